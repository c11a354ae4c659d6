package store

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path"
	"slices"
	"strings"
	"sync"
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

// TestCompleteNotesAsQuery checks completion from memory against the query that states its
// rules (queryNames), on random names and typing, after every kind of write: notes put,
// edited, removed and renamed (onto another note too), in batches with a note that fails, a
// compaction, and a reset. Both must give the same paths, in the same order, and the same total.
func TestCompleteNotesAsQuery(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	s := newIndex(t)
	s.KeepCompact()
	words := []string{"Garden", "garden", "GARDEN", "tomato", "Tomatoes", "bed", "raised beds", "Bread",
		"flatbread", "Crème", "creme", "CRÈME", "fraîche", "Straße", "ÉTÉ", "été", "日本語", "茶", "🌱 seeds",
		"100%", "%", "50_50", "_", `back\slash`, `\`, "a%b_c", "x", "X-ray", "2026-01-02", "Ǆemal", "ǆ", "to do"}
	word := func() string { return words[r.IntN(len(words))] }
	name := func() string {
		n := word()
		for range r.IntN(3) {
			n += []string{" ", "", "-", "_", "%"}[r.IntN(5)] + word()
		}
		return n
	}
	newPath := func() string {
		p := name() + ".md"
		for range r.IntN(3) {
			p = name() + "/" + p
		}
		return p
	}
	note := func(p string) Note {
		n := Note{Path: p, Title: strings.TrimSuffix(path.Base(p), ".md")}
		if r.IntN(5) == 0 {
			n.Title = name() // a title that is not the file name
		}
		for range r.IntN(4) - 1 {
			n.Aliases = append(n.Aliases, name())
		}
		return n
	}
	var paths []string // what the index holds, as far as the test knows
	pick := func() string { return paths[r.IntN(len(paths))] }
	// typed is a piece of a name, its letter case changed now and then, or text of its own.
	typed := func() string {
		if len(paths) == 0 || r.IntN(4) == 0 {
			return []string{"", "%", "_", `\`, "\n", " ", "/", ".md", "e", "É", "nothing", "a%", `h\`, "/b"}[r.IntN(14)]
		}
		chars := []rune(pick())
		start := r.IntN(len(chars))
		piece := string(chars[start:min(len(chars), start+1+r.IntN(6))])
		switch r.IntN(3) {
		case 0:
			piece = strings.ToUpper(piece)
		case 1:
			piece = strings.ToLower(piece)
		}
		return piece
	}
	compare := func(when string) {
		t.Helper()
		for range 25 {
			q := typed()
			for _, n := range []int{10, []int{MaxCompletions, 1, 0, -1}[r.IntN(4)]} {
				got, gotTotal, err := s.CompleteNotes(t.Context(), q, n)
				if err != nil {
					t.Fatal(err)
				}
				want, wantTotal, err := s.queryNames(t.Context(), q, min(n, MaxCompletions))
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, want) || gotTotal != wantTotal {
					t.Fatalf("%s: CompleteNotes(%q, %d) = %q, %d; the query gives %q, %d", when, q, n, got, gotTotal, want, wantTotal)
				}
			}
		}
		if !s.names.loaded || s.names.unplain != 0 {
			t.Fatalf("%s: the names are not in memory (loaded %v, %d not plain): the query answered", when, s.names.loaded, s.names.unplain)
		}
	}
	add := func(n int) {
		for range n {
			p := newPath()
			if !slices.Contains(paths, p) {
				paths = append(paths, p)
			}
			put(t, s, note(p), []float32{1, 0, 0, 0})
		}
	}

	add(20)
	compare("before the first completion")
	add(200)
	compare("after notes were added")
	for round := range 200 {
		var when string
		switch op := r.IntN(15); {
		case op < 4:
			when = "an edit"
			put(t, s, note(pick()), []float32{0, 1, 0, 0})
		case op < 6:
			when = "a removal"
			i := r.IntN(len(paths))
			if err := s.DeleteNote(t.Context(), paths[i]); err != nil {
				t.Fatal(err)
			}
			paths = slices.Delete(paths, i, i+1)
		case op < 10:
			when = "a rename"
			from, to := pick(), newPath()
			if r.IntN(3) == 0 {
				to = pick() // onto another note, which it replaces
			}
			if err := s.RenameNote(t.Context(), from, to); err != nil {
				t.Fatal(err)
			}
			paths = slices.DeleteFunc(paths, func(p string) bool { return p == from || p == to })
			paths = append(paths, to)
		case op < 14:
			// A batch: new notes, edits, and one whose vectors do not match its sections,
			// which is rolled back alone.
			when = "a batch"
			var entries []Entry
			for range 1 + r.IntN(5) {
				p := newPath()
				if r.IntN(2) == 0 {
					p = pick()
				}
				entries = append(entries, Entry{Note: note(p)})
				if !slices.Contains(paths, p) {
					paths = append(paths, p)
				}
			}
			entries = append(entries, Entry{Note: note(pick()), Sections: []Section{{Text: "x"}}})
			errs := s.PutNotes(t.Context(), entries)
			for i, err := range errs {
				if (err != nil) != (i == len(entries)-1) {
					t.Fatalf("PutNotes: note %d: %v", i, err)
				}
			}
		default:
			when = "a compaction"
			if err := s.Compact(t.Context()); err != nil {
				t.Fatal(err)
			}
		}
		if round%3 == 0 { // and some writes with nothing in memory, before a completion
			compare(fmt.Sprintf("round %d, after %s", round, when))
		}
		if round == 100 {
			if err := s.Reset(t.Context(), testEmbedder); err != nil {
				t.Fatal(err)
			}
			paths = nil
			compare("after a reset")
			add(100)
			compare("after a reset and new notes")
		}
	}
	if err := s.Rebuild(t.Context(), testEmbedder, "a test"); err != nil {
		t.Fatal(err)
	}
	paths = nil
	add(30)
	compare("after a rebuild")
}

// TestCompleteNotesNotPlain: names and typing that are not UTF-8, or hold a NUL, which SQLite
// reads its own way, get the query's answer, and memory answers again once they are gone.
func TestCompleteNotesNotPlain(t *testing.T) {
	s := newIndex(t)
	put(t, s, Note{Path: "Garden/Tomatoes.md", Title: "Tomatoes"})
	put(t, s, Note{Path: "Garden/Beans.md", Title: "Beans", Aliases: []string{"Runner beans"}})
	same := func(typed string) {
		t.Helper()
		got, gotTotal, err := s.CompleteNotes(t.Context(), typed, 10)
		want, wantTotal, wantErr := s.queryNames(t.Context(), typed, 10)
		if !slices.Equal(got, want) || gotTotal != wantTotal || (err == nil) != (wantErr == nil) {
			t.Errorf("CompleteNotes(%q) = %q, %d, %v; the query gives %q, %d, %v", typed, got, gotTotal, err, want, wantTotal, wantErr)
		}
	}
	for _, typed := range []string{"be\x00", "\x00", "to\xffm", "\xc3", strings.Repeat("%", 30000), "be"} {
		same(typed)
	}
	put(t, s, Note{Path: "Kitchen/Bread.md", Title: "Bread", Aliases: []string{"Loaf\x00of bread", "P\xe9che"}})
	if s.names.unplain != 1 {
		t.Fatalf("%d names not plain in memory, want 1", s.names.unplain)
	}
	for _, typed := range []string{"of", "loaf", "be", "p", "\ufffd", "che", ""} {
		same(typed)
	}
	if err := s.RenameNote(t.Context(), "Kitchen/Bread.md", "Kitchen/Loaf.md"); err != nil {
		t.Fatal(err)
	}
	same("loaf")
	if err := s.DeleteNote(t.Context(), "Kitchen/Loaf.md"); err != nil {
		t.Fatal(err)
	}
	if s.names.unplain != 0 {
		t.Fatalf("%d names not plain in memory after the note was removed, want 0", s.names.unplain)
	}
	got, total, err := s.CompleteNotes(t.Context(), "BE", 10)
	if want := []string{"Garden/Beans.md"}; err != nil || !slices.Equal(got, want) || total != 1 {
		t.Errorf("CompleteNotes(BE) = %q, %d, %v; want %q", got, total, err, want)
	}

	ended, cancel := context.WithCancel(t.Context())
	cancel()
	if _, _, err := s.CompleteNotes(ended, "be", 10); !errors.Is(err, context.Canceled) {
		t.Errorf("CompleteNotes on an ended context: %v, want context.Canceled", err)
	}
}

// TestCompleteNotesWhileWriting completes while notes are written, renamed and removed from
// other goroutines (for the race detector), and then checks memory against the query.
func TestCompleteNotesWhileWriting(t *testing.T) {
	s := newIndex(t)
	for i := range 50 {
		put(t, s, Note{Path: fmt.Sprintf("Seeds/Seed %d.md", i), Title: fmt.Sprintf("Seed %d", i)})
	}
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Go(func() {
			for i := range 40 {
				p := fmt.Sprintf("Beds/Bed %d-%d.md", w, i)
				if err := s.PutNote(t.Context(), Note{Path: p, Title: path.Base(p), Aliases: []string{"seed bed"}}, nil, nil); err != nil {
					t.Error(err)
					return
				}
				if err := s.RenameNote(t.Context(), p, "Seeds/"+path.Base(p)); err != nil {
					t.Error(err)
					return
				}
				if i%3 == 0 {
					if err := s.DeleteNote(t.Context(), "Seeds/"+path.Base(p)); err != nil {
						t.Error(err)
						return
					}
				}
			}
		})
	}
	for range 2 {
		wg.Go(func() {
			for range 60 {
				if _, _, err := s.CompleteNotes(t.Context(), "seed", MaxCompletions); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	for _, typed := range []string{"seed", "bed", "seeds/b", "1"} {
		got, gotTotal, err := s.CompleteNotes(t.Context(), typed, -1)
		want, wantTotal, wantErr := s.queryNames(t.Context(), typed, -1)
		if err != nil || wantErr != nil || !slices.Equal(got, want) || gotTotal != wantTotal {
			t.Errorf("CompleteNotes(%q) = %d notes, total %d, %v; the query gives %d, %d, %v", typed, len(got), gotTotal, err, len(want), wantTotal, wantErr)
		}
	}
}
