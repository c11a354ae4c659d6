package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"vaultmcp/shared/store"
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
// holds it. The floor alone would hide it too, so both runs lower it to let chance through.
func TestNoSharedWordFindsNothing(t *testing.T) {
	const query = "zq922xv"
	vault := filepath.Join("..", "..", "sample-vault")
	chance := []string{"-embedder", "offline", "-min-score", "0.01"}
	if got, _ := searchFor(t, startServer(t, vault, append(chance, "-rank", rankVector)...), map[string]any{"query": query}); len(got.Results) == 0 {
		t.Fatalf("-rank vector: %q finds nothing; the test needs a word whose vector collides with a note's", query)
	}
	if got, errText := searchFor(t, startServer(t, vault, chance...), map[string]any{"query": query}); len(got.Results) != 0 || errText != "" {
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

// TestFuseKeepsAFullMatchFirst: when the keyword leg's first note holds every word of the
// query, fusion keeps it first, whatever the vector leg thinks; when it holds only some, the
// note both legs rank well wins, as reciprocal rank fusion decides.
func TestFuseKeepsAFullMatchFirst(t *testing.T) {
	hits := func(scores map[string]float64, paths ...string) []store.Hit {
		var out []store.Hit
		for _, p := range paths {
			out = append(out, store.Hit{Path: p, Score: scores[p]})
		}
		return out
	}
	vector := hits(map[string]float64{"b.md": 0.4, "c.md": 0.3, "a.md": 0.1}, "b.md", "c.md", "a.md")
	for _, tc := range []struct {
		keywordScore float64
		want         []string
	}{
		{1, []string{"a.md", "b.md", "c.md"}},   // every word: the keyword leg decides first place
		{0.6, []string{"b.md", "a.md", "c.md"}}, // some words: b.md, second and first, wins
	} {
		keyword := hits(map[string]float64{"a.md": tc.keywordScore, "b.md": 0.5}, "a.md", "b.md")
		got := fuse(keyword, vector, 3)
		if paths := pathsOf(got); !slices.Equal(paths, tc.want) {
			t.Errorf("keyword score %v: fuse = %q, want %q", tc.keywordScore, paths, tc.want)
		}
		for _, h := range got {
			if h.Score < 0 || h.Score > 1 {
				t.Errorf("keyword score %v: %s scores %v, outside 0 to 1", tc.keywordScore, h.Path, h.Score)
			}
		}
	}
}

func pathsOf(hits []store.Hit) []string {
	var paths []string
	for _, h := range hits {
		paths = append(paths, h.Path)
	}
	return paths
}

// TestNonsenseIsTheSameEveryRun: the floor is measured with the same queries every time, so
// the same index gets the same floor.
func TestNonsenseIsTheSameEveryRun(t *testing.T) {
	a, b := nonsense(nonsenseQueries), nonsense(nonsenseQueries)
	if !slices.Equal(a, b) || len(a) != nonsenseQueries {
		t.Fatalf("nonsense gave %q, then %q", a, b)
	}
	if len(slices.Compact(slices.Sorted(slices.Values(a)))) != len(a) {
		t.Errorf("nonsense repeats a query: %q", a)
	}
}
