package store

import (
	"errors"
	"fmt"
	"math"
)

// errZero is what quantize says of a vector of zeros: it has no direction, so it is similar to
// nothing. An embedder gives one for a text without words (the offline one does for "!!!").
var errZero = errors.New("is zero, so it has no direction to compare")

// unitVector checks that v has the index's dimension and returns it scaled to unit length.
// Stored at unit length, vectors compare by direction alone, which is what cosine similarity
// measures.
func unitVector(v []float32, dimension int) ([]float32, error) {
	if len(v) != dimension {
		return nil, fmt.Errorf("has %d dimensions, but the index holds vectors of %d", len(v), dimension)
	}
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	length := math.Sqrt(sum)
	if length == 0 {
		return nil, errZero
	}
	if math.IsInf(length, 0) || math.IsNaN(length) {
		return nil, errors.New("is infinite or not a number, so it has no direction to compare")
	}
	unit := make([]float32, len(v))
	for i, x := range v {
		unit[i] = float32(float64(x) / length)
	}
	return unit, nil
}

// A quantized vector is how the index keeps a section's vector: one signed byte a number, and
// one scale for the whole vector, a quarter of the 4 bytes a float32 takes.
//
// The largest number of the vector becomes ±127 and the others their share of it, rounded to a
// whole number, so each number is off by at most half a step of max/127. A vector at unit
// length spreads its length over hundreds of numbers, and the errors, as likely up as down,
// mostly cancel in a dot product: a score moves by about a thousandth, where two sections a
// search must tell apart differ by more (BenchmarkSearch and make eval measure it). The scale
// is 1/|q|, so that scale·q, the vector the index compares, is at unit length exactly, and a
// score is a cosine between -1 and 1.
type quantized struct {
	values []int8
	scale  float64
}

// quantize returns the quantized form of a unit vector.
func quantize(unit []float32) quantized {
	var largest float32
	for _, x := range unit {
		largest = max(largest, x, -x)
	}
	q := quantized{values: make([]int8, len(unit))}
	var sum float64
	for i, x := range unit {
		n := math.Round(float64(x / largest * 127))
		q.values[i] = int8(n)
		sum += n * n
	}
	q.scale = 1 / math.Sqrt(sum) // not 0: the largest number is ±127
	return q
}

// bytes is the values as the embeddings table stores them, one byte each.
func (q quantized) bytes() []byte {
	b := make([]byte, len(q.values))
	for i, v := range q.values {
		b[i] = byte(v)
	}
	return b
}

// unit is the vector q stands for, at unit length.
func (q quantized) unit() []float32 {
	v := make([]float32, len(q.values))
	for i, n := range q.values {
		v[i] = float32(float64(n) * q.scale)
	}
	return v
}

// similarity is the cosine similarity of a unit query with a stored vector: values, one signed
// byte a number as the embeddings table holds them, times scale.
func similarity(query []float32, values []byte, scale float64) float64 {
	var dot float32
	values = values[:len(query)] // one bounds check here rather than one a number
	for i, q := range query {
		dot += q * float32(int8(values[i]))
	}
	return float64(dot) * scale
}

// signs is the coarse form of a vector that the vectors table holds: one bit for each number,
// set when it is positive, eight to a byte. Two vectors that point the same way have mostly
// the same signs, so the number of bits in which they differ (their Hamming distance) ranks
// sections roughly as their cosine does, for 96 bytes instead of 768 at 768 dimensions, and
// with a comparison that costs a few instructions per 64 numbers.
func signs(v []float32) []byte {
	b := make([]byte, signBytes(len(v)))
	for i, x := range v {
		if x > 0 {
			b[i/8] |= 1 << (i % 8)
		}
	}
	return b
}

// signBytes is how many bytes hold the signs of a vector of dimension numbers.
func signBytes(dimension int) int { return (dimension + 7) / 8 }

// signChunk is how many sections' signs sqlite-vec keeps in one row of its storage. It writes
// each new row whole, zeros for the slots to come, so the last row is mostly empty until they
// fill: with vec0's 1,024, a vault of 1,072 sections paid for 2,048 slots, 180 bytes a section
// for 96 bytes of signs. 248 leaves at most 247 slots empty, and its row of rowids (8 bytes a
// slot) fits two to a page of SQLite's, where 256 would fit one: so a large index costs what
// it cost with 1,024 (BenchmarkIndexSize).
const signChunk = 248

// createVectors is the statement that creates the vectors table for vectors of dimension
// numbers: their signs, a bit each.
func createVectors(dimension int) string {
	return fmt.Sprintf(`CREATE VIRTUAL TABLE vectors USING vec0(embedding bit[%d], chunk_size=%d)`, signBytes(dimension)*8, signChunk)
}
