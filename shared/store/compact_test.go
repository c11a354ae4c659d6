package store

import (
	"bufio"
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// churnEmbedder is small enough for a test to rewrite thousands of sections quickly.
var churnEmbedder = Embedder{Name: "test", Model: "churn", Dimension: 64}

// churn edits, deletes, re-creates and renames the corpus's notes at random, n times, as a
// vault's life does, keeping the vault's size, and returns the notes as they end: what a fresh index of the vault holds.
// each, when not nil, is called after every change with the time it took.
func churn(t testing.TB, s *Store, r *rand.Rand, c corpus, n int, each func(took time.Duration)) map[string]corpusNote {
	t.Helper()
	ctx := context.Background()
	notes := make(map[string]corpusNote, len(c.notes))
	for _, note := range c.notes {
		notes[note.note.Path] = note
	}
	for i := range n {
		start := time.Now()
		paths := slices.Sorted(maps.Keys(notes))
		note := notes[paths[r.IntN(len(paths))]]
		switch op := r.IntN(10); {
		case op < 7: // an edit: new text in each section, so new vectors, and the same size
			edited := corpusNote{note: note.note}
			edited.note.Hash = fmt.Sprint("edit ", i)
			for j := range note.sections {
				edited.sections = append(edited.sections, Section{Heading: fmt.Sprintf("%s #%d.%d", note.note.Path, i, j), Line: j + 1, Text: randomText(r, 80)})
				edited.vectors = append(edited.vectors, c.query(r))
			}
			if err := s.PutNote(ctx, edited.note, edited.sections, edited.vectors); err != nil {
				t.Fatal(err)
			}
			notes[note.note.Path] = edited
		case op < 8: // deleted, and written again at once under another name
			if err := s.DeleteNote(ctx, note.note.Path); err != nil {
				t.Fatal(err)
			}
			delete(notes, note.note.Path)
			note.note.Path = fmt.Sprintf("New/n%05d.md", i)
			if err := s.PutNote(ctx, note.note, note.sections, note.vectors); err != nil {
				t.Fatal(err)
			}
			notes[note.note.Path] = note
		default: // renamed
			from := note.note.Path
			note.note.Path = fmt.Sprintf("Moved/n%05d.md", i)
			if err := s.RenameNote(ctx, from, note.note.Path); err != nil {
				t.Fatal(err)
			}
			note.note.Title = strings.TrimSuffix(filepath.Base(note.note.Path), ".md")
			delete(notes, from)
			notes[note.note.Path] = note
		}
		if each != nil {
			each(time.Since(start))
		}
	}
	return notes
}

// answers is what an index says to a fixed set of questions: its notes, their sections, and
// the results of searches by vector and by keyword, with their scores.
func answers(t *testing.T, s *Store, queries [][]float32, words []string) string {
	t.Helper()
	ctx := t.Context()
	var b strings.Builder
	rows, err := s.db.QueryContext(ctx, `
		SELECT n.path, n.title, s.ord, s.heading, s.text FROM notes n JOIN sections s ON s.note_id = n.id
		ORDER BY n.path, s.ord`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var path, title, heading, text string
		var ord int
		if err := rows.Scan(&path, &title, &ord, &heading, &text); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s (%s) %d %s: %s\n", path, title, ord, heading, text)
	}
	rows.Close()
	for _, q := range queries {
		writeHits(&b, "vector", search(t, s, q, Options{K: 10}))
	}
	for _, w := range words {
		hits, _, err := s.KeywordNotes(ctx, w, Options{K: 10})
		if err != nil {
			t.Fatal(err)
		}
		writeHits(&b, "keyword "+w, hits)
	}
	return b.String()
}

// writeHits writes hits a line each, best first, and those with the same score in the order
// of their paths.
func writeHits(b *strings.Builder, by string, hits []Hit) {
	slices.SortStableFunc(hits, func(x, y Hit) int {
		if sx, sy := fmt.Sprintf("%.4f", x.Score), fmt.Sprintf("%.4f", y.Score); sx != sy {
			return strings.Compare(sy, sx)
		}
		return strings.Compare(x.Path, y.Path)
	})
	for _, h := range hits {
		fmt.Fprintf(b, "%s: %s > %s %.4f\n", by, h.Path, h.Heading, h.Score)
	}
}

// freshIndex indexes notes in a new index at path, for e, as a first start over the vault
// would.
func freshIndex(t testing.TB, path string, e Embedder, notes map[string]corpusNote) *Store {
	t.Helper()
	s, err := Open(context.Background(), path, Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.Reset(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	var c corpus
	for _, path := range slices.Sorted(maps.Keys(notes)) {
		c.notes = append(c.notes, notes[path])
	}
	c.put(t, s)
	return s
}

// TestChurnEndsAsAFreshIndex: after thousands of random edits, deletions and renames, with
// the index compacting itself along the way and searches reading it throughout, the index
// answers every question exactly as a fresh index of the same notes does.
func TestChurnEndsAsAFreshIndex(t *testing.T) {
	if testing.Short() {
		t.Skip("thousands of random changes to one index; `make check` runs it")
	}
	r := rand.New(rand.NewPCG(7, 7))
	c := clusteredCorpus(r, 300, 4, churnEmbedder.Dimension)
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "index.db"), Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	compaction := s.KeepCompact()
	if err := s.Reset(t.Context(), churnEmbedder); err != nil {
		t.Fatal(err)
	}
	c.put(t, s)
	queries := make([][]float32, 20)
	for i := range queries {
		queries[i] = c.query(r)
	}
	// Rare words, each in fewer sections than a search returns: the ranks of sections that
	// tie fall to their ids, which differ between two indexes of the same notes.
	words := []string{wordName(3000), wordName(6000), wordName(3001) + " " + wordName(6001), wordName(9000)}
	search(t, s, queries[0], Options{K: 10}) // the signs are in memory from here on

	compactions := 0
	for range 8 {
		_, before, _ := s.Slots(t.Context())
		notes := churn(t, s, r, c, 500, nil)
		live, dead, err := s.Slots(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if dead < before {
			compactions++
		}
		if wasteful(live, dead) {
			t.Fatalf("%d dead slots beside %d live ones: the index did not compact", dead, live)
		}
		c.notes = slices.Collect(maps.Values(notes))
		slices.SortFunc(c.notes, func(a, b corpusNote) int { return strings.Compare(a.note.Path, b.note.Path) })
	}
	if compactions < 2 {
		t.Fatalf("the index compacted %d times in 4,000 changes; want at least 2", compactions)
	}
	if err := compaction.Err(); err != nil {
		t.Fatalf("a compaction failed: %v", err)
	}
	checkIntegrity(t, s)

	notes := map[string]corpusNote{}
	for _, n := range c.notes {
		notes[n.note.Path] = n
	}
	got, want := answers(t, s, queries, words), answers(t, freshIndex(t, filepath.Join(t.TempDir(), "fresh.db"), churnEmbedder, notes), queries, words)
	if !strings.Contains(want, "keyword ") {
		t.Fatal("no keyword search found anything: the test compares nothing of the keyword index")
	}
	if got != want {
		t.Errorf("the churned index answers differently from a fresh one:\n%s", firstDifference(got, want))
	}
}

// TestOnlyKeepCompactCounts: an index that KeepCompact does not look after leaves its dead
// slots uncounted, so it never compacts, and one that it does counts them, under the same
// churn (too short to compact).
func TestOnlyKeepCompactCounts(t *testing.T) {
	for _, keep := range []bool{false, true} {
		r := rand.New(rand.NewPCG(5, 5))
		c := clusteredCorpus(r, 300, 4, churnEmbedder.Dimension)
		s, err := Open(t.Context(), filepath.Join(t.TempDir(), "index.db"), Config{})
		if err != nil {
			t.Fatal(err)
		}
		if keep {
			s.KeepCompact()
		}
		if err := s.Reset(t.Context(), churnEmbedder); err != nil {
			t.Fatal(err)
		}
		c.put(t, s)
		churn(t, s, r, c, 50, nil)
		_, dead, err := s.Slots(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		var counted bool
		if err := s.db.QueryRowContext(t.Context(), `SELECT EXISTS (SELECT 1 FROM meta WHERE key = 'dead_vectors')`).Scan(&counted); err != nil {
			t.Fatal(err)
		}
		switch {
		case !keep && (dead != 0 || counted):
			t.Errorf("without KeepCompact, %d dead slots were counted; want none", dead)
		case keep && (dead == 0 || !counted):
			t.Error("with KeepCompact, no dead slot was counted")
		}
		s.Close()
	}
}

// firstDifference shows the first line on which got and want differ.
func firstDifference(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d:\n got %s\nwant %s", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("got %d lines, want %d", len(g), len(w))
}

// TestCompactionSurvivesKill kills a process in the middle of compacting, again and again, at
// different moments. Each time the index opens whole and answers as it did before.
func TestCompactionSurvivesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a churned index and kills a process ten times; `make check` runs it")
	}
	r := rand.New(rand.NewPCG(3, 3))
	c := clusteredCorpus(r, 1000, 4, 256)
	path := filepath.Join(t.TempDir(), "index.db")
	e := Embedder{Name: "test", Model: "kill", Dimension: 256}
	s, err := Open(t.Context(), path, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Reset(t.Context(), e); err != nil {
		t.Fatal(err)
	}
	c.put(t, s)
	queries := [][]float32{c.query(r), c.query(r), c.query(r)}
	ask := func(s *Store) string {
		var b strings.Builder
		for _, q := range queries {
			for _, h := range search(t, s, q, Options{K: 10}) {
				fmt.Fprintf(&b, "%s > %s %.4f\n", h.Path, h.Heading, h.Score)
			}
		}
		return b.String()
	}
	want := ask(s)
	s.Close()

	for i := range 10 {
		helper := exec.Command(os.Args[0], "-test.run=^TestCompactForever$")
		helper.Env = append(os.Environ(), "VAULTMCP_COMPACT_INDEX="+path)
		out, err := helper.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := helper.Start(); err != nil {
			t.Fatal(err)
		}
		line, _ := bufio.NewReader(out).ReadString('\n')
		if line != "compacting\n" {
			helper.Process.Kill()
			helper.Wait()
			t.Fatalf("the helper said %q, not that it was compacting", line)
		}
		time.Sleep(time.Duration(i*70) * time.Millisecond)
		helper.Process.Kill()
		helper.Wait()

		s, err := Open(t.Context(), path, Config{})
		if err != nil {
			t.Fatalf("kill %d: the index does not open: %v", i+1, err)
		}
		if err := s.CheckEmbedder(t.Context(), e); err != nil {
			t.Fatalf("kill %d: %v", i+1, err)
		}
		checkIntegrity(t, s)
		if got := ask(s); got != want {
			t.Errorf("kill %d, %d ms into compacting: the index answers differently:\n%s", i+1, i*70, firstDifference(got, want))
		}
		s.Close()
	}
}

// TestCompactForever is TestCompactionSurvivesKill's helper process: it compacts the index
// in VAULTMCP_COMPACT_INDEX until it is killed.
func TestCompactForever(t *testing.T) {
	path := os.Getenv("VAULTMCP_COMPACT_INDEX")
	if path == "" {
		t.Skip("the helper process of TestCompactionSurvivesKill")
	}
	s, err := Open(t.Context(), path, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CheckEmbedder(t.Context(), Embedder{Name: "test", Model: "kill", Dimension: 256}); err != nil {
		t.Fatal(err)
	}
	fmt.Println("compacting")
	for {
		if err := s.Compact(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
}

// TestEmptyPagesGoBack: deleting most notes of an index that KeepCompact looks after leaves
// the file no more than maxFreePages empty pages, where it would otherwise keep them all; and
// an index made before Open asked for auto_vacuum takes it on at its next compaction.
func TestEmptyPagesGoBack(t *testing.T) {
	ctx := t.Context()
	pages := func(s *Store) (total, free, mode int) {
		t.Helper()
		err := s.db.QueryRowContext(ctx, `SELECT * FROM pragma_page_count, pragma_freelist_count, pragma_auto_vacuum`).Scan(&total, &free, &mode)
		if err != nil {
			t.Fatal(err)
		}
		return total, free, mode
	}
	for _, keep := range []bool{false, true} {
		r := rand.New(rand.NewPCG(7, 7))
		c := clusteredCorpus(r, 300, 4, churnEmbedder.Dimension)
		s, err := Open(ctx, filepath.Join(t.TempDir(), "index.db"), Config{})
		if err != nil {
			t.Fatal(err)
		}
		if keep {
			s.KeepCompact()
		}
		if err := s.Reset(ctx, churnEmbedder); err != nil {
			t.Fatal(err)
		}
		c.put(t, s)
		full, _, mode := pages(s)
		if mode != 2 {
			t.Fatalf("a new index has auto_vacuum %d; want 2 (incremental)", mode)
		}
		for _, n := range c.notes[:250] {
			if err := s.DeleteNote(ctx, n.note.Path); err != nil {
				t.Fatal(err)
			}
		}
		total, free, _ := pages(s)
		switch {
		case keep && (free > maxFreePages || total >= full):
			t.Errorf("with KeepCompact, after deleting 250 of 300 notes the file has %d pages (%d before), %d of them empty; want at most %d empty",
				total, full, free, maxFreePages)
		case !keep && (free <= maxFreePages || total < full):
			t.Errorf("without KeepCompact, the file has %d pages (%d before), %d of them empty; want it to keep its empty pages", total, full, free)
		}
		s.Close()
	}

	// An index as Open made it before: auto_vacuum off until a compaction VACUUMs it.
	s, err := Open(ctx, filepath.Join(t.TempDir(), "index.db"), Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Reset(ctx, churnEmbedder); err != nil {
		t.Fatal(err)
	}
	conn, err := s.db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{`PRAGMA auto_vacuum = NONE`, `VACUUM`} {
		if _, err := conn.ExecContext(context.WithoutCancel(ctx), stmt); err != nil { // as Compact runs VACUUM
			t.Fatal(err)
		}
	}
	conn.Close()
	if _, _, mode := pages(s); mode != 0 {
		t.Fatalf("auto_vacuum is %d after turning it off; want 0", mode)
	}
	if err := s.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	if _, _, mode := pages(s); mode != 2 {
		t.Errorf("after a compaction, auto_vacuum is %d; want 2 (incremental)", mode)
	}
}
