package store

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"testing"
)

func TestCompleteNotes(t *testing.T) {
	s := newIndex(t)
	for p, aliases := range map[string][]string{
		"Garden/Tomatoes.md":             nil,
		"Garden/Raised beds.md":          nil,
		"Kitchen/Preserving tomatoes.md": nil,
		"Kitchen/Bread/Country loaf.md":  nil,
		"Kitchen/Flatbread.md":           nil,
		"Kitchen/Crème fraîche.md":       {"Creme fraiche"},
		"Tomato sauce.md":                nil,
		"Home.md":                        {"Start here"},
		"Projects/Rain barrel.md":        {"Water butt"},
		"100% rye_bread.md":              nil,
		"100 rye.md":                     nil,
	} {
		title := strings.TrimSuffix(path.Base(p), ".md")
		put(t, s, Note{Path: p, Title: title, Aliases: aliases})
	}

	for typed, want := range map[string][]string{
		// A path from the root first, then a title that starts so, then the word inside.
		"Garden/T": {"Garden/Tomatoes.md"},
		"tomat":    {"Tomato sauce.md", "Garden/Tomatoes.md", "Kitchen/Preserving tomatoes.md"},
		"BED":      {"Garden/Raised beds.md"},
		"bread":    {"Kitchen/Bread/Country loaf.md", "100% rye_bread.md", "Kitchen/Flatbread.md"}, // a folder's name first
		"start":    {"Home.md"},                                                                    // by its alias
		"water":    {"Projects/Rain barrel.md"},
		"crème":    {"Kitchen/Crème fraîche.md"},
		"creme":    {"Kitchen/Crème fraîche.md"},                    // the alias without accents
		"100%":     {"100% rye_bread.md"},                           // % is a character, not a wildcard
		"e_b":      {"100% rye_bread.md"},                           // and so is _
		"Garden/":  {"Garden/Tomatoes.md", "Garden/Raised beds.md"}, // shorter first
		"nothing":  nil,
	} {
		got, total, err := s.CompleteNotes(t.Context(), typed, 10)
		if err != nil || !slices.Equal(got, want) || total != len(want) {
			t.Errorf("CompleteNotes(%q) = %q, %d, %v; want %q", typed, got, total, err, want)
		}
	}

	// At most n come back, and the total says how many match.
	for i := range 3 * MaxCompletions {
		put(t, s, Note{Path: fmt.Sprintf("Daily/2026-%03d.md", i), Title: fmt.Sprintf("2026-%03d", i)})
	}
	got, total, err := s.CompleteNotes(t.Context(), "daily/", 1000)
	if err != nil || len(got) != MaxCompletions || total != 3*MaxCompletions || got[0] != "Daily/2026-000.md" {
		t.Errorf("CompleteNotes(daily/) = %d notes from %q, total %d, %v; want %d of %d", len(got), got[:min(len(got), 1)], total, err, MaxCompletions, 3*MaxCompletions)
	}
}
