package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// errZero is what encode says of a vector of zeros: it has no direction, so it is similar to
// nothing. An embedder gives one for a text without words (the offline one does for "!!!").
var errZero = errors.New("is zero, so it has no direction to compare")

// encode checks that v has the index's dimension, scales it to unit length, and returns it in
// the form vec0 reads: float32 values, little-endian, one after another.
//
// Stored at unit length, vectors compare by direction alone, which is what cosine similarity
// measures; Search explains the rest.
func encode(v []float32, dimension int) ([]byte, error) {
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
	b := make([]byte, 0, 4*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(float64(x)/length)))
	}
	return b, nil
}

// signs is the coarse form of a vector that the vectors table holds: one bit for each number,
// set when it is positive, eight to a byte. Two vectors that point the same way have mostly
// the same signs, so the number of bits in which they differ (their Hamming distance) ranks
// sections roughly as their cosine does, for 96 bytes instead of 3,072 at 768 dimensions, and
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
