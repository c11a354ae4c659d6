package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
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

// TestNoSharedWordFindsNothing: a made-up word that the offline vectors match by chance (its
// hashed letter groups collide with a note's) finds nothing in hybrid search, since no section
// holds it.
func TestNoSharedWordFindsNothing(t *testing.T) {
	const query = "zq922xv"
	vault := filepath.Join("..", "..", "sample-vault")
	if got, _ := searchFor(t, startServer(t, vault, "-embedder", "offline", "-rank", rankVector), map[string]any{"query": query}); len(got.Results) == 0 {
		t.Fatalf("-rank vector: %q finds nothing; the test needs a word whose vector collides with a note's", query)
	}
	if got, errText := searchFor(t, startServer(t, vault, "-embedder", "offline"), map[string]any{"query": query}); len(got.Results) != 0 || errText != "" {
		t.Errorf("hybrid: %q finds %+v %s; want nothing", query, got.Results, errText)
	}
}

// TestOneLongNoteCannotFloodKeywords: a note of 150 sections that each say a word three times
// fills the keyword index's first hundred sections; the twelve short notes that say it once
// must still come back, up to the limit, with -rank keyword and with a quoted query.
func TestOneLongNoteCannotFloodKeywords(t *testing.T) {
	const filler = "Rain fell on the hills all week, the rivers rose, and the grass grew tall and green again."
	dir := t.TempDir()
	var long strings.Builder
	for i := range 150 {
		fmt.Fprintf(&long, "## Part %d\n\nA zebra crossed the plain. %s The zebra drank, and the zebra slept.\n\n", i+1, filler)
	}
	writeNote(t, dir, "Long.md", long.String())
	for i := range 12 {
		writeNote(t, dir, fmt.Sprintf("Short %02d.md", i), "A zebra, once. "+filler+"\n")
	}
	for _, tc := range []struct{ query, ranking string }{{"zebra", rankKeyword}, {`"zebra"`, rankHybrid}} {
		url := startServer(t, dir, "-embedder", "offline", "-rank", tc.ranking)
		got, errText := searchFor(t, url, map[string]any{"query": tc.query, "limit": 10})
		if errText != "" || len(got.Results) != 10 {
			t.Errorf("-rank %s: %s with limit 10 finds %d notes, want 10; %s", tc.ranking, tc.query, len(got.Results), errText)
		}
	}
}

func writeNote(t *testing.T, dir, name, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
