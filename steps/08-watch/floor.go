package main

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync"

	"vaultmcp/shared/embed"
	"vaultmcp/shared/store"
)

// The score floor: the similarity below which a vector match is chance.
//
// Every embedding model scores unrelated texts above zero, and each at a level of its own: on
// the same notes, nonsense reaches about 0.2 with the offline embedder and 0.4 to 0.6 with a
// Universal Sentence Encoder, and nomic-embed-text is said to score unrelated text around 0.3
// to 0.4. A fixed floor chosen for one model cuts the real matches of another, or lets chance
// through. So the server measures chance on the index it has: it searches for nonsense
// (strings of made-up words that no vault holds) and takes the best score any of them reaches
// as the floor. A note whose best section does no better than nonsense is no vector match.
//
// The floor belongs to the index as much as to the model: more sections give chance more
// tries. It is measured at the first search, and again when the index has doubled or halved.

// nonsenseQueries is how many queries of nonsense measure the floor: enough that the best of
// them is a fair picture of chance, few enough to embed in a moment.
const nonsenseQueries = 16

// floor measures and keeps the score floor of an index.
type floor struct {
	fixed  float64 // from -min-score: the floor, never measured; 0 to measure it
	logger *slog.Logger

	mu       sync.Mutex
	value    float64
	sections int // how many sections the index held when value was measured; 0: not yet
}

// get returns the floor for the index as it is now, measuring it if it was never measured or
// the index has since doubled or halved.
func (f *floor) get(ctx context.Context, embedder embed.Embedder, db *store.Store) (float64, error) {
	if f.fixed > 0 {
		return f.fixed, nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	stats, err := db.Stats(ctx)
	if err != nil {
		return 0, err
	}
	if stats.Sections == 0 {
		return 0, nil // nothing to find, and nothing to measure chance on: once there is
	}
	if f.sections > 0 && stats.Sections < 2*f.sections && 2*stats.Sections > f.sections {
		return f.value, nil
	}
	value := 0.0
	for _, query := range nonsense(nonsenseQueries) {
		v, err := embedder.EmbedQuery(ctx, query)
		if err != nil {
			return 0, fmt.Errorf("cannot measure the score floor: %w", err)
		}
		hits, err := db.Search(ctx, v, 1)
		if err != nil {
			return 0, fmt.Errorf("cannot measure the score floor: %w", err)
		}
		if len(hits) > 0 {
			value = max(value, hits[0].Score)
		}
	}
	f.value, f.sections = value, stats.Sections
	f.logger.Info("score floor measured", "min_score", round(value), "model", embedder.Model(),
		"how", fmt.Sprintf("the best score of %d queries of nonsense over %d sections", nonsenseQueries, stats.Sections))
	return value, nil
}

// String says what the floor is, for the log: the one -min-score gave, or how it is chosen.
func (f *floor) String() string {
	if f.fixed > 0 {
		return fmt.Sprint(f.fixed)
	}
	return "measured at the first search"
}

// normalize maps a vector score to the scale a model reads: 0 at the floor (chance), 1 for a
// section that means exactly what the query does. Scores below the floor are not matches.
func normalize(score, floor float64) float64 {
	if floor >= 1 {
		return 0
	}
	return max(0, (score-floor)/(1-floor))
}

// nonsense returns n queries of made-up words, the same on every run: syllables of a consonant
// and a vowel, which a model's tokenizer reads as words it has never seen, as it would a real
// query about something the vault does not hold.
func nonsense(n int) []string {
	const consonants, vowels = "bcdfghjklmnpqrstvwxz", "aeiou"
	r := rand.New(rand.NewPCG(1, 2))
	queries := make([]string, n)
	for i := range queries {
		words := make([]string, 2+r.IntN(3))
		for j := range words {
			var w strings.Builder
			for range 3 + r.IntN(2) {
				w.WriteByte(consonants[r.IntN(len(consonants))])
				w.WriteByte(vowels[r.IntN(len(vowels))])
			}
			words[j] = w.String()
		}
		queries[i] = strings.Join(words, " ")
	}
	return queries
}
