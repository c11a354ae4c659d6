// Package embed turns text into vectors, so that notes can be found by what they say rather
// than by the exact words a search uses.
//
// Two embedders implement one interface: Ollama asks a local Ollama server to run a real
// embedding model (nomic-embed-text by default), and Offline hashes words, which needs no
// server but matches only shared words. Choose picks one for the -embedder flag.
package embed

import (
	"context"
	"fmt"
	"math"
)

// An Embedder turns text into vectors of Dimensions numbers. Texts that mean similar things
// get vectors that point in similar directions; Cosine measures how similar.
//
// Documents and queries are embedded by different methods because some models, nomic's
// among them, are trained to embed the two differently: a question and the passage that
// answers it should land close together even though they are worded nothing alike.
type Embedder interface {
	// EmbedDocuments returns one vector per text, in order. Texts are note sections.
	EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error)
	// EmbedQuery returns the vector of a search query.
	EmbedQuery(ctx context.Context, text string) ([]float32, error)
	// Model names what made the vectors. An index records it: vectors from different
	// models are not comparable, so a change of model means embedding every note again.
	Model() string
	// Dimensions is the length of every vector.
	Dimensions() int
}

// Cosine returns the cosine of the angle between a and b: 1 for the same direction, 0 for
// unrelated, -1 for opposite. It is 0 when either vector is all zeros. a and b must have the
// same length; vectors of different lengths come from different models and cannot be compared.
func Cosine(a, b []float32) float32 {
	if len(a) != len(b) {
		panic(fmt.Sprintf("embed.Cosine: vectors of different lengths (%d and %d)", len(a), len(b)))
	}
	// Sum in float64, so rounding over hundreds of terms stays far below the gaps between scores.
	var dot, normA, normB float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		normA += x * x
		normB += y * y
	}
	if normA == 0 || normB == 0 {
		return 0
	}
	return float32(dot / math.Sqrt(normA*normB))
}
