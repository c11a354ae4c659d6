package main

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestEachLegAloneFails is the example chapter 6 tells: a question whose answer neither leg
// ranks first alone, and the fused ranking does, because both legs place it near the top
// while each leg's own first choice is far down the other's list.
func TestEachLegAloneFails(t *testing.T) {
	const query, answer = "why do my tomatoes split?", "Garden/Tomatoes.md"
	for _, tc := range []struct {
		ranking string
		first   bool
	}{
		{rankKeyword, false},
		{rankVector, false},
		{rankHybrid, true},
	} {
		url := startServer(t, filepath.Join("..", "..", "sample-vault"), "-embedder", "offline", "-rank", tc.ranking)
		got, errText := searchFor(t, url, map[string]any{"query": query, "limit": 5})
		rank := slices.IndexFunc(got.Results, func(h hit) bool { return h.Path == answer }) + 1
		if errText != "" || rank == 0 || (rank == 1) != tc.first {
			t.Errorf("-rank %s: %q puts %s at rank %d (0: absent), want first: %v; %s", tc.ranking, query, answer, rank, tc.first, errText)
		}
	}
}
