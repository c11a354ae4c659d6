package links_test

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"vaultmcp/shared/links"
	"vaultmcp/shared/markdown"
	"vaultmcp/shared/store"
	"vaultmcp/shared/testvaults"
)

// BenchmarkBuild builds the graph of the largest real vault from notes already parsed, and
// reports the memory the graph keeps and the time against parsing the same notes.
func BenchmarkBuild(b *testing.B) {
	notes := readVault(b, testvaults.Dir(b, "data-engineering-wiki"))
	paths := slices.Sorted(maps.Keys(notes))
	parsed := make([]markdown.Note, len(paths))
	for i, p := range paths {
		parsed[i] = markdown.Parse(p, notes[p])
	}

	// The graph is built from copies of the notes that are dropped afterwards, so what stays
	// in use is the graph alone, including anything of the notes it should not have kept.
	bytes := retained(func() any {
		g := links.New()
		for _, p := range paths {
			content := strings.Clone(notes[p])
			g.Set(p, content, markdown.Parse(p, content))
		}
		return g
	})
	n := 0
	for _, note := range parsed {
		n += len(note.Links)
	}

	for b.Loop() {
		g := links.New()
		for i, p := range paths {
			g.Set(p, notes[p], parsed[i])
		}
	}
	perBuild := b.Elapsed() / time.Duration(b.N)

	// Its peer: parsing the same notes, which every build needs first.
	const runs = 20
	start := time.Now()
	for range runs {
		for _, p := range paths {
			markdown.Parse(p, notes[p])
		}
	}
	perParse := time.Since(start) / runs

	// Reported after the loop, which resets metrics when it starts.
	b.ReportMetric(float64(bytes), "graph-bytes")
	b.ReportMetric(float64(bytes)/float64(n), "bytes/link")
	b.ReportMetric(float64(perBuild.Nanoseconds())/float64(n), "ns/link")
	b.ReportMetric(float64(perBuild)/float64(perParse), "x-parse")
}

// BenchmarkUpdate changes one note of generated vaults of growing size: the cost should follow
// the links the change touches, not the number of notes.
func BenchmarkUpdate(b *testing.B) {
	for _, size := range []int{1_000, 20_000} {
		notes := generatedVault(size)
		var g *links.Graph
		bytes := retained(func() any { g = build(notes); return g })
		const p = "F7/Note 7.md"
		edits := []string{notes[p], notes[p] + "\n[[Note 1]] [[Missing 3]]"}
		parsedEdits := []markdown.Note{markdown.Parse(p, edits[0]), markdown.Parse(p, edits[1])}

		b.Run(fmt.Sprintf("set/notes=%d", size), func(b *testing.B) {
			i := 0
			for b.Loop() {
				i++
				g.Set(p, edits[i%2], parsedEdits[i%2])
			}
			b.ReportMetric(float64(bytes)/float64(size*7), "graph-bytes/link")
		})
		b.Run(fmt.Sprintf("rename/notes=%d", size), func(b *testing.B) {
			from, to := p, "Elsewhere/Note 7.md"
			for b.Loop() {
				g.Rename(from, to)
				from, to = to, from
			}
		})
		b.Run(fmt.Sprintf("backlinks/notes=%d", size), func(b *testing.B) {
			for b.Loop() {
				g.Backlinks("F1/Note 1.md")
			}
		})
	}
}

// generatedVault returns n notes in 100 folders, each with seven links: five to other notes by
// name, one to a missing note and one to an alias, which every tenth note declares.
func generatedVault(n int) map[string]string {
	rng := rand.New(rand.NewPCG(7, 7))
	notes := make(map[string]string, n)
	for i := range n {
		var b strings.Builder
		if i%10 == 0 {
			fmt.Fprintf(&b, "---\naliases: [Alias %d]\n---\n", i)
		}
		fmt.Fprintf(&b, "# Note %d\n", i)
		for range 5 {
			fmt.Fprintf(&b, "See [[Note %d]] for more.\n", rng.IntN(n))
		}
		fmt.Fprintf(&b, "## Later\n[[Missing %d]] and [[Alias %d]]\n", rng.IntN(n), rng.IntN(n/10)*10)
		notes[fmt.Sprintf("F%d/Note %d.md", i%100, i)] = b.String()
	}
	return notes
}

// retained returns how many bytes of heap the value that f returns keeps in use.
func retained(f func() any) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	kept := f()
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(kept)
	return after.HeapAlloc - before.HeapAlloc
}

// BenchmarkMuchLinkedNote removes and restores a note that 10,000 others link to: every one of
// those links is re-resolved, and each must leave and join its sets in constant time, or the
// cost grows with the square of the backlinks.
func BenchmarkMuchLinkedNote(b *testing.B) {
	g := links.New()
	hub := "# Hub\n"
	g.Set("Hub.md", hub, markdown.Parse("Hub.md", hub))
	for i := range 10_000 {
		path := fmt.Sprintf("Notes/%d.md", i)
		content := "# Note\n\nSee [[Hub]].\n"
		g.Set(path, content, markdown.Parse(path, content))
	}
	parsedHub := markdown.Parse("Hub.md", hub)
	for b.Loop() {
		g.Remove("Hub.md")
		g.Set("Hub.md", hub, parsedHub)
	}
	if n := len(g.Backlinks("Hub.md")); n != 10_000 {
		b.Fatalf("Hub has %d backlinks, want 10000", n)
	}
}

// BenchmarkStoredBacklinks asks the stored graph for the backlinks of a note that 1,000 notes
// link to, each a file on disk. The index keeps where each link is, and the answer reads its
// line from the note, a read a note; the bound is reading the links' rows alone.
func BenchmarkStoredBacklinks(b *testing.B) {
	ctx := b.Context()
	dir := b.TempDir()
	db, err := store.Open(ctx, filepath.Join(b.TempDir(), "index.db"), store.Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	g, err := links.NewStored(ctx, db, func(path string) (string, error) {
		data, err := os.ReadFile(filepath.Join(dir, path))
		return string(data), err
	})
	if err != nil {
		b.Fatal(err)
	}
	sources := []links.Source{{Path: "Hub.md", Content: "# Hub\n", Parsed: markdown.Parse("Hub.md", "# Hub\n")}}
	for i := range 1_000 {
		path := fmt.Sprintf("Note %d.md", i)
		content := fmt.Sprintf("# Note %d\n\nA line of the kind notes hold, before the link: see [[Hub]] for more.\n", i)
		if err := os.WriteFile(filepath.Join(dir, path), []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
		sources = append(sources, links.Source{Path: path, Content: content, Parsed: markdown.Parse(path, content)})
	}
	if err := g.SetMany(ctx, sources); err != nil {
		b.Fatal(err)
	}
	b.Run("rows", func(b *testing.B) {
		for b.Loop() {
			if rows, err := db.LinksTo(ctx, "Hub.md"); err != nil || len(rows) != 1_000 {
				b.Fatalf("LinksTo = %d rows, %v", len(rows), err)
			}
		}
	})
	b.Run("backlinks", func(b *testing.B) {
		for b.Loop() {
			if refs, err := g.Backlinks(ctx, "Hub.md"); err != nil || len(refs) != 1_000 || refs[0].Text == "" {
				b.Fatalf("Backlinks = %d refs, %v", len(refs), err)
			}
		}
	})
}
