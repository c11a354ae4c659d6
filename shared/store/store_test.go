package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"vaultmcp/shared/frontmatter"
)

// testEmbedder makes vectors short enough to write by hand.
var testEmbedder = Embedder{Name: "test", Model: "by-hand", Dimension: 4}

// openIndex opens the index at path, ready for testEmbedder.
func openIndex(t *testing.T, path string) *Store {
	t.Helper()
	s, err := Open(t.Context(), path, Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.CheckEmbedder(t.Context(), testEmbedder); errors.Is(err, ErrRebuild) {
		err = s.Reset(t.Context(), testEmbedder)
	}
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func newIndex(t *testing.T) *Store {
	return openIndex(t, filepath.Join(t.TempDir(), "index.db"))
}

// put stores a note whose sections are named by their vectors: section i has the heading
// "<path> #i" and the text "text of <path> #i".
func put(t *testing.T, s *Store, n Note, vectors ...[]float32) {
	t.Helper()
	var sections []Section
	for i := range vectors {
		name := fmt.Sprintf("%s #%d", n.Path, i)
		sections = append(sections, Section{Heading: name, Line: 10 * (i + 1), Text: "text of " + name})
	}
	if err := s.PutNote(t.Context(), n, sections, vectors); err != nil {
		t.Fatal(err)
	}
}

func search(t *testing.T, s *Store, query []float32, opts Options) []Hit {
	t.Helper()
	hits, err := s.filtered(t.Context(), query, opts)
	if err != nil {
		t.Fatal(err)
	}
	return hits
}

// filtered is Search with the filters of opts: the opts.K nearest sections that pass them, as
// SearchNotes finds them before it keeps each note's best.
func (s *Store) filtered(ctx context.Context, query []float32, opts Options) ([]Hit, error) {
	q, err := s.prepareSearch(query, opts.K)
	if q.unit == nil || err != nil {
		return nil, err
	}
	if err := s.loadSigns(ctx, q.dimension); err != nil {
		return nil, err
	}
	allowed, err := s.allowedSections(ctx, opts)
	if err != nil {
		return nil, err
	}
	var hits []Hit
	err = s.read(ctx, func(tx *sql.Tx) error {
		nearest, err := s.knn(ctx, tx, q, opts.K, allowed)
		if err == nil {
			hits, err = readHits(ctx, tx, nearest)
		}
		return err
	})
	return hits, err
}

// paths lists the hits' notes, in order.
func paths(hits []Hit) []string {
	var p []string
	for _, h := range hits {
		p = append(p, h.Path)
	}
	return p
}

// count counts the rows of a table, or of a query's results.
func count(t *testing.T, s *Store, table string) int {
	t.Helper()
	var n int
	if err := s.db.QueryRowContext(t.Context(), "SELECT count(*) FROM "+table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func checkIntegrity(t *testing.T, s *Store) {
	t.Helper()
	var result string
	if err := s.db.QueryRowContext(t.Context(), "PRAGMA integrity_check").Scan(&result); err != nil {
		t.Fatal(err)
	}
	if result != "ok" {
		t.Errorf("integrity_check: %s", result)
	}
}

func TestRoundTrip(t *testing.T) {
	s := newIndex(t)
	mtime := time.Date(2025, 3, 1, 12, 0, 0, 123456789, time.UTC)
	note := Note{
		Path: "Garden/Tomatoes.md", Title: "Tomatoes", Size: 1234, MTime: mtime, Hash: "abc123",
		Frontmatter: `{"tags":["garden"]}`, Tags: []string{"garden"},
	}
	sections := []Section{
		{Heading: "", Line: 4, Text: "Tomatoes > intro"},
		{Heading: "Watering", Line: 9, Text: "Tomatoes > Watering: deep and rarely"},
	}
	// The second vector is not unit length: the index scales it.
	vectors := [][]float32{{1, 0, 0, 0}, {0, 3, 0, 0}}
	if err := s.PutNote(t.Context(), note, sections, vectors); err != nil {
		t.Fatal(err)
	}

	hits := search(t, s, []float32{0, 1, 0, 0}, Options{K: 5})
	want := []Hit{
		{Path: note.Path, Title: "Tomatoes", Heading: "Watering", Line: 9, Text: sections[1].Text, Score: 1},
		{Path: note.Path, Title: "Tomatoes", Heading: "", Line: 4, Text: sections[0].Text, Score: 0},
	}
	if len(hits) != len(want) {
		t.Fatalf("got %d hits, want %d: %+v", len(hits), len(want), hits)
	}
	for i := range want {
		got := hits[i]
		if math.Abs(got.Score-want[i].Score) > 1e-6 {
			t.Errorf("hit %d: score %v, want %v", i, got.Score, want[i].Score)
		}
		got.Score = want[i].Score
		if got != want[i] {
			t.Errorf("hit %d:\n got %+v\nwant %+v", i, got, want[i])
		}
	}

	states, err := s.NoteStates(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	st, ok := states[note.Path]
	if !ok || len(states) != 1 {
		t.Fatalf("NoteStates = %v, want only %s", states, note.Path)
	}
	if st.Size != note.Size || st.Hash != note.Hash || !st.MTime.Equal(mtime) {
		t.Errorf("NoteStates[%s] = %+v, want size %d, hash %s, mtime %v", note.Path, st, note.Size, note.Hash, mtime)
	}
	// It checks its context itself, between rows (see NoteStates): a stop still ends it.
	stopped, stop := context.WithCancel(t.Context())
	stop()
	if states, err := s.NoteStates(stopped); !errors.Is(err, context.Canceled) {
		t.Errorf("NoteStates with a cancelled context = %v, %v; want context.Canceled", states, err)
	}
	// A search does not hand its context to SQLite (see uninterrupted), but one asked on a
	// context that has ended does not start.
	if hits, err := s.Search(stopped, []float32{0, 1, 0, 0}, 5); !errors.Is(err, context.Canceled) {
		t.Errorf("Search with a cancelled context = %v, %v; want context.Canceled", hits, err)
	}
	if hits, err := s.SearchNotes(stopped, []float32{0, 1, 0, 0}, Options{K: 5}); !errors.Is(err, context.Canceled) {
		t.Errorf("SearchNotes with a cancelled context = %v, %v; want context.Canceled", hits, err)
	}
	if hits, _, err := s.KeywordNotes(stopped, "tomatoes", Options{K: 5}); !errors.Is(err, context.Canceled) {
		t.Errorf("KeywordNotes with a cancelled context = %v, %v; want context.Canceled", hits, err)
	}

	var fm string
	if err := s.db.QueryRow(`SELECT frontmatter ->> '$.tags[0]' FROM notes`).Scan(&fm); err != nil || fm != "garden" {
		t.Errorf("frontmatter tags[0] = %q, %v; want garden", fm, err)
	}
}

func TestPutNoteReplaces(t *testing.T) {
	s := newIndex(t)
	n := Note{Path: "a.md", Title: "a", Hash: "v1", Tags: []string{"old"}}
	put(t, s, n, []float32{1, 0, 0, 0}, []float32{0, 1, 0, 0}, []float32{0, 0, 1, 0})
	put(t, s, Note{Path: "b.md", Title: "b"}, []float32{0, 0, 0, 1})

	n.Hash, n.Tags = "v2", []string{"new"}
	put(t, s, n, []float32{0, 0, 1, 0})

	if got := count(t, s, "sections"); got != 2 {
		t.Errorf("%d sections, want 2 (one per note)", got)
	}
	if got := count(t, s, "vectors"); got != 2 {
		t.Errorf("%d vectors, want 2 (one per note)", got)
	}
	hits := search(t, s, []float32{1, 0, 0, 0}, Options{K: 10})
	if got := len(hits); got != 2 {
		t.Fatalf("got %d hits, want 2: %+v", got, hits)
	}
	for _, h := range hits {
		if h.Path == "a.md" && h.Text != "text of a.md #0" {
			t.Errorf("a.md's section: %q, want the new version's only section", h.Text)
		}
	}
	if got := search(t, s, []float32{1, 0, 0, 0}, Options{K: 10, Tag: "old"}); len(got) != 0 {
		t.Errorf("tag old still finds %v", paths(got))
	}
	if got := search(t, s, []float32{1, 0, 0, 0}, Options{K: 10, Tag: "new"}); !slices.Equal(paths(got), []string{"a.md"}) {
		t.Errorf("tag new finds %v, want [a.md]", paths(got))
	}
}

func TestDeleteNote(t *testing.T) {
	s := newIndex(t)
	put(t, s, Note{Path: "a.md", Tags: []string{"x"}}, []float32{1, 0, 0, 0}, []float32{0, 1, 0, 0})
	put(t, s, Note{Path: "b.md", Tags: []string{"x"}}, []float32{0, 0, 1, 0})

	if err := s.DeleteNote(t.Context(), "a.md"); err != nil {
		t.Fatal(err)
	}
	for table, want := range map[string]int{"notes": 1, "sections": 1, "tags": 1, "vectors": 1} {
		if got := count(t, s, table); got != want {
			t.Errorf("%d rows in %s after the delete, want %d", got, table, want)
		}
	}
	if got := search(t, s, []float32{1, 0, 0, 0}, Options{K: 10}); !slices.Equal(paths(got), []string{"b.md"}) {
		t.Errorf("search finds %v, want [b.md]", paths(got))
	}
	if err := s.DeleteNote(t.Context(), "never-indexed.md"); err != nil {
		t.Errorf("deleting a note the index does not hold: %v", err)
	}
	checkIntegrity(t, s)
}

func TestRenameNote(t *testing.T) {
	s := newIndex(t)
	put(t, s, Note{Path: "Inbox/draft.md", Title: "draft", Hash: "h1", Tags: []string{"idea"}},
		[]float32{1, 0, 0, 0}, []float32{0, 1, 0, 0})
	put(t, s, Note{Path: "Ideas/final.md", Title: "final", Hash: "old"}, []float32{0, 0, 1, 0})
	var vectorsBefore []int64
	rows, err := s.db.Query(`SELECT rowid FROM vectors ORDER BY rowid`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		rows.Scan(&id)
		vectorsBefore = append(vectorsBefore, id)
	}
	rows.Close()

	// Onto a path the index holds: the note there is replaced, as a file would be.
	if err := s.RenameNote(t.Context(), "Inbox/draft.md", "Ideas/final.md"); err != nil {
		t.Fatal(err)
	}
	hits := search(t, s, []float32{1, 0, 0, 0}, Options{K: 10, Folder: "Ideas", Tag: "idea"})
	if len(hits) != 2 || hits[0].Path != "Ideas/final.md" || hits[0].Title != "final" || hits[0].Text != "text of Inbox/draft.md #0" {
		t.Errorf("after the rename: %+v, want draft's two sections under Ideas/final.md", hits)
	}
	states, _ := s.NoteStates(t.Context())
	if len(states) != 1 || states["Ideas/final.md"].Hash != "h1" {
		t.Errorf("NoteStates = %v, want only Ideas/final.md with hash h1", states)
	}
	if got := count(t, s, "vectors"); got != 2 {
		t.Errorf("%d vectors, want draft's 2", got)
	}
	var kept int
	s.db.QueryRow(`SELECT count(*) FROM sections WHERE id IN (?, ?)`, vectorsBefore[0], vectorsBefore[1]).Scan(&kept)
	if kept != 2 {
		t.Errorf("the renamed note's sections were made anew; a rename must keep them and their vectors")
	}

	if err := s.RenameNote(t.Context(), "nope.md", "other.md"); !errors.Is(err, ErrNotFound) {
		t.Errorf("renaming a note the index does not hold: %v, want ErrNotFound", err)
	}
	checkIntegrity(t, s)
}

func TestFolderFilter(t *testing.T) {
	s := newIndex(t)
	for _, p := range []string{"top.md", "Garden/a.md", "Garden/Sub/b.md", "Garden/Sub/Deep/c.md",
		"Gardening/d.md", "Garden-2/e.md", "Garden0/f.md", "Work/Garden/g.md"} {
		put(t, s, Note{Path: p}, []float32{1, 0, 0, 0})
	}
	q := []float32{1, 0, 0, 0}
	for _, tc := range []struct {
		folder string
		want   []string
	}{
		{"Garden", []string{"Garden/Sub/Deep/c.md", "Garden/Sub/b.md", "Garden/a.md"}},
		{"Garden/", []string{"Garden/Sub/Deep/c.md", "Garden/Sub/b.md", "Garden/a.md"}},
		{"Garden/Sub", []string{"Garden/Sub/Deep/c.md", "Garden/Sub/b.md"}},
		{"Garden/Sub/Deep", []string{"Garden/Sub/Deep/c.md"}},
		{"garden", nil}, // folders keep their case, as file systems on Linux do
		{"Gard", nil},
		{"Nowhere", nil},
	} {
		got := paths(search(t, s, q, Options{K: 20, Folder: tc.folder}))
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("folder %q: %v, want %v", tc.folder, got, tc.want)
		}
	}
}

func TestTagFilter(t *testing.T) {
	s := newIndex(t)
	for p, tags := range map[string][]string{
		"a.md": {"garden"},
		"b.md": {"Garden/Vegetables"},
		"c.md": {"#garden/vegetables/tomatoes", "work"},
		"d.md": {"gardening"},
		"e.md": {"work"},
		"f.md": nil,
	} {
		put(t, s, Note{Path: p, Tags: tags}, []float32{1, 0, 0, 0})
	}
	q := []float32{1, 0, 0, 0}
	for _, tc := range []struct {
		tag  string
		want []string
	}{
		{"garden", []string{"a.md", "b.md", "c.md"}},
		{"#Garden", []string{"a.md", "b.md", "c.md"}},
		{"garden/vegetables", []string{"b.md", "c.md"}},
		{"vegetables", nil}, // a nested tag is found through its parents, not by its last part
		{"gard", nil},
		{"work", []string{"c.md", "e.md"}},
	} {
		got := paths(search(t, s, q, Options{K: 20, Tag: tc.tag}))
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("tag %q: %v, want %v", tc.tag, got, tc.want)
		}
	}
	got := paths(search(t, s, q, Options{K: 20, Tag: "work", Folder: "Nowhere"}))
	if len(got) != 0 {
		t.Errorf("tag and folder together: %v, want none (both must hold)", got)
	}
}

// allowedSections tells no filter (nil: the first pass lets every section through) from a
// filter that no section passes (an empty map: it lets none through).
func TestAllowedSections(t *testing.T) {
	s := newIndex(t)
	put(t, s, Note{Path: "Garden/a.md", Tags: []string{"garden"}}, []float32{1, 0, 0, 0}, []float32{0, 1, 0, 0})
	for _, tc := range []struct {
		opts     Options
		sections int // how many sections pass; -1: every one (nil)
	}{
		{Options{K: 1}, -1},
		{Options{K: 1, Folder: "Garden"}, 2},
		{Options{K: 1, Tag: "garden"}, 2},
		{Options{K: 1, Folder: "Nowhere"}, 0},
		{Options{K: 1, Folder: "Garden", Tag: "work"}, 0},
	} {
		got, err := s.allowedSections(t.Context(), tc.opts)
		if err != nil || (got == nil) != (tc.sections < 0) || (got != nil && len(got) != tc.sections) {
			t.Errorf("%+v: %v (nil: %v), %v; want %d sections (-1: nil, every one)", tc.opts, got, got == nil, err, tc.sections)
		}
	}
}

// A filter inside the KNN query returns the k nearest notes that pass it, even when every one
// of them is farther than k notes that do not. A filter applied after the top-k cut would
// return nothing here.
func TestFilterNeverReturnsFewerThanExist(t *testing.T) {
	s := newIndex(t)
	for i := range 50 {
		put(t, s, Note{Path: fmt.Sprintf("Near/n%02d.md", i), Tags: []string{"near"}}, []float32{1, float32(i) / 100, 0, 0})
	}
	for i := range 3 {
		put(t, s, Note{Path: fmt.Sprintf("Far/f%d.md", i), Tags: []string{"far"}}, []float32{float32(3-i) / 100, 0, 1, 0})
	}
	q := []float32{1, 0, 0, 0}
	for _, h := range search(t, s, q, Options{K: 5}) {
		if !strings.HasPrefix(h.Path, "Near/") {
			t.Fatalf("the unfiltered top 5 should all be near the query; found %s", h.Path)
		}
	}
	want := []string{"Far/f0.md", "Far/f1.md", "Far/f2.md"}
	for _, opts := range []Options{{K: 5, Folder: "Far"}, {K: 5, Tag: "far"}, {K: 3, Folder: "Far", Tag: "far"}} {
		if got := paths(search(t, s, q, opts)); !slices.Equal(got, want) {
			t.Errorf("%+v: %v, want %v", opts, got, want)
		}
		notes, err := s.SearchNotes(t.Context(), q, opts)
		if err != nil {
			t.Fatal(err)
		}
		if got := paths(notes); !slices.Equal(got, want) {
			t.Errorf("SearchNotes %+v: %v, want %v", opts, got, want)
		}
	}
}

func TestSearchNotesKeepsBestSectionPerNote(t *testing.T) {
	s := newIndex(t)
	// long.md has many sections, all nearer than any other note's.
	var long [][]float32
	for i := range 40 {
		long = append(long, []float32{1, float32(i) / 1000, 0, 0})
	}
	put(t, s, Note{Path: "long.md"}, long...)
	put(t, s, Note{Path: "b.md"}, []float32{1, 0.5, 0, 0}, []float32{1, 0.2, 0, 0})
	put(t, s, Note{Path: "c.md"}, []float32{1, 0.3, 0, 0})
	put(t, s, Note{Path: "d.md"}, []float32{0, 0, 0, 1})
	q := []float32{1, 0, 0, 0}

	if got := paths(search(t, s, q, Options{K: 3})); !slices.Equal(got, []string{"long.md", "long.md", "long.md"}) {
		t.Fatalf("Search: %v, want long.md to fill the results", got)
	}
	hits, err := s.SearchNotes(t.Context(), q, Options{K: 3})
	if err != nil {
		t.Fatal(err)
	}
	if got := paths(hits); !slices.Equal(got, []string{"long.md", "b.md", "c.md"}) {
		t.Errorf("SearchNotes: %v, want [long.md b.md c.md]", got)
	}
	if hits[0].Heading != "long.md #0" || hits[1].Heading != "b.md #1" {
		t.Errorf("SearchNotes kept %q and %q, want each note's best section", hits[0].Heading, hits[1].Heading)
	}
	all, err := s.SearchNotes(t.Context(), q, Options{K: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 4 {
		t.Errorf("SearchNotes for 10 of 4 notes: %v, want all 4", paths(all))
	}
}

// Search agrees with a plain scan of the same vectors, filtered or not.
func TestSearchMatchesBruteForce(t *testing.T) {
	const dim = 16
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "index.db"), Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Reset(t.Context(), Embedder{Name: "test", Model: "random", Dimension: dim}); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	// minCandidates sections or fewer: the first pass keeps them all, so the search is exact.
	data := randomCorpus(r, minCandidates/4, 4, dim)
	for _, n := range data.notes {
		if err := s.PutNote(t.Context(), n.note, n.sections, n.vectors); err != nil {
			t.Fatal(err)
		}
	}
	// What the index holds: the vectors as quantize leaves them.
	stored := data.quantized()
	for i := range 10 {
		q := randomUnit(r, dim)
		folder := ""
		if i%2 == 1 {
			folder = fmt.Sprintf("F%d", i%folders)
		}
		hits, err := s.filtered(t.Context(), q, Options{K: 15, Folder: folder})
		if err != nil {
			t.Fatal(err)
		}
		want := stored.bruteForce(q, 15, folder)
		if len(hits) != len(want) {
			t.Fatalf("query %d: %d hits, brute force finds %d", i, len(hits), len(want))
		}
		for j := range want {
			if hits[j].Heading != want[j].heading || math.Abs(hits[j].Score-float64(want[j].score)) > 1e-4 {
				t.Errorf("query %d, hit %d: %s (%.5f), brute force %s (%.5f)", i, j,
					hits[j].Heading, hits[j].Score, want[j].heading, want[j].score)
			}
		}
	}
}

// TestSearchRecall measures the two-pass search against exact search on vectors shaped like a
// model's: sections in topics, each near its topic's direction (see clusteredCorpus), kept as
// float32s in the test and quantized in the index. Of the 10 nearest sections by their float32
// vectors, the search must find at least 95% on average, each with its score within
// maxScoreError of the exact one.
func TestSearchRecall(t *testing.T) {
	const dim, k = 768, 10
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "index.db"), Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Reset(t.Context(), Embedder{Name: "test", Model: "clustered", Dimension: dim}); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	data := clusteredCorpus(r, 1000, 5, dim)
	data.put(t, s)
	var found, asked int
	var worst float64
	for range 20 {
		q := data.query(r)
		hits, err := s.Search(t.Context(), q, k)
		if err != nil {
			t.Fatal(err)
		}
		exact := map[string]float32{}
		for _, w := range data.bruteForce(q, k, "") {
			exact[w.heading] = w.score
		}
		for _, h := range hits {
			if score, ok := exact[h.Heading]; ok {
				found++
				worst = max(worst, math.Abs(h.Score-float64(score)))
				if math.Abs(h.Score-float64(score)) > maxScoreError {
					t.Errorf("%s scores %.5f, exactly %.5f", h.Heading, h.Score, score)
				}
			}
		}
		asked += k
	}
	recall := float64(found) / float64(asked)
	if recall < 0.95 {
		t.Errorf("recall@%d = %.3f over 5,000 sections, want at least 0.95", k, recall)
	}
	t.Logf("recall@%d = %.3f, scores off by %.5f at most", k, recall, worst)
}

// maxScoreError is how far a score may be from the cosine of the float32 vectors: the tools
// show three decimals, and a quantized vector moves a score by about one in the fourth.
const maxScoreError = 0.005

func TestPersistsAcrossOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "index.db")
	s, err := Open(t.Context(), path, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Reset(t.Context(), testEmbedder); err != nil {
		t.Fatal(err)
	}
	mtime := time.Unix(1700000000, 987654321)
	put(t, s, Note{Path: "a.md", Title: "a", Size: 7, MTime: mtime, Hash: "h", Tags: []string{"t"}}, []float32{1, 0, 0, 0})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = openIndex(t, path)
	if got := paths(search(t, s, []float32{1, 0, 0, 0}, Options{K: 5, Tag: "t"})); !slices.Equal(got, []string{"a.md"}) {
		t.Errorf("after reopening, search finds %v, want [a.md]", got)
	}
	states, err := s.NoteStates(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if st := states["a.md"]; !st.MTime.Equal(mtime) || st.Size != 7 || st.Hash != "h" {
		t.Errorf("after reopening, a.md's state is %+v", st)
	}
}

func TestEmbedderMismatch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "index.db")
	s, err := Open(t.Context(), path, Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := t.Context()

	if _, err := s.Search(ctx, []float32{1, 0, 0, 0}, 1); err == nil {
		t.Error("Search before the embedder is confirmed: no error")
	}
	if err := s.CheckEmbedder(ctx, testEmbedder); !errors.Is(err, ErrRebuild) {
		t.Errorf("a new index: CheckEmbedder = %v, want ErrRebuild", err)
	}
	if err := s.Reset(ctx, testEmbedder); err != nil {
		t.Fatal(err)
	}
	put(t, s, Note{Path: "a.md"}, []float32{1, 0, 0, 0})
	if got, err := s.Embedder(ctx); err != nil || got != testEmbedder {
		t.Errorf("Embedder = %v, %v; want %v", got, err, testEmbedder)
	}

	otherModel := Embedder{Name: "test", Model: "another", Dimension: 4}
	otherSize := Embedder{Name: "test", Model: "by-hand", Dimension: 8}
	for _, e := range []Embedder{otherModel, otherSize} {
		err := s.CheckEmbedder(ctx, e)
		if !errors.Is(err, ErrRebuild) {
			t.Errorf("CheckEmbedder(%v) on an index for %v: %v, want ErrRebuild", e, testEmbedder, err)
		} else if !strings.Contains(err.Error(), testEmbedder.String()) || !strings.Contains(err.Error(), e.String()) {
			t.Errorf("the error should name both embedders: %v", err)
		}
	}
	if err := s.CheckEmbedder(ctx, testEmbedder); err != nil {
		t.Errorf("CheckEmbedder with the index's own embedder: %v", err)
	}

	// A new dimension needs a new vector table; Reset makes it, empty.
	if err := s.Reset(ctx, otherSize); err != nil {
		t.Fatal(err)
	}
	if got := count(t, s, "notes"); got != 0 {
		t.Errorf("%d notes after Reset, want 0", got)
	}
	if _, err := s.Search(ctx, []float32{1, 0, 0, 0}, 1); err == nil {
		t.Error("a 4-dimensional query on an 8-dimensional index: no error")
	}
	put(t, s, Note{Path: "a.md"}, []float32{1, 0, 0, 0, 0, 0, 0, 0})
	if got := search(t, s, []float32{1, 0, 0, 0, 0, 0, 0, 0}, Options{K: 1}); len(got) != 1 {
		t.Errorf("search after Reset to 8 dimensions: %v", got)
	}

	s.Close()
	s = openIndex(t, path) // openIndex resets it for testEmbedder, since it no longer matches
	if got := count(t, s, "notes"); got != 0 {
		t.Errorf("%d notes after the change of embedder, want 0", got)
	}
}

func TestSchemaVersionChangeRebuilds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "index.db")
	s := openIndex(t, path)
	put(t, s, Note{Path: "a.md"}, []float32{1, 0, 0, 0})
	if _, err := s.db.Exec(`UPDATE meta SET value = '0' WHERE key = 'schema_version'`); err != nil {
		t.Fatal(err)
	}
	s.Close()

	s, err := Open(t.Context(), path, Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	err = s.CheckEmbedder(t.Context(), testEmbedder)
	if !errors.Is(err, ErrRebuild) || !strings.Contains(err.Error(), "schema version 0") {
		t.Errorf("an index from another schema version: CheckEmbedder = %v, want ErrRebuild naming version 0", err)
	}
	if got := count(t, s, "notes"); got != 0 {
		t.Errorf("%d notes kept from the old schema, want 0", got)
	}

	// The rebuild that follows records its reason, and the index is then current.
	if err := s.Rebuild(t.Context(), testEmbedder, err.Error()); err != nil {
		t.Fatal(err)
	}
	at, because, err := s.Rebuilt(t.Context())
	if err != nil || !strings.Contains(because, "schema version 0") || time.Since(at) > time.Minute {
		t.Errorf("Rebuilt after the rebuild = %v, %q, %v; want a recent time and the reason", at, because, err)
	}
	if err := s.CheckEmbedder(t.Context(), testEmbedder); err != nil {
		t.Errorf("CheckEmbedder after the rebuild: %v", err)
	}
	checkIntegrity(t, s)
}

// TestOldPagesRepaged: an index of an earlier schema, with its 16 KiB pages, is emptied and
// written anew with the pages a new index has; one of this version keeps its pages and notes.
func TestOldPagesRepaged(t *testing.T) {
	path := filepath.Join(t.TempDir(), "index.db")
	s := openIndex(t, path)
	put(t, s, Note{Path: "a.md"}, []float32{1, 0, 0, 0})
	pages := func(s *Store) (size int) {
		if err := s.db.QueryRow(`PRAGMA page_size`).Scan(&size); err != nil {
			t.Fatal(err)
		}
		return size
	}
	if got := pages(s); got != pageSize {
		t.Errorf("a new index has pages of %d bytes, want %d", got, pageSize)
	}
	s.Close()
	s = openIndex(t, path)
	if got := count(t, s, "notes"); got != 1 || pages(s) != pageSize {
		t.Errorf("reopened, the index holds %d notes in pages of %d bytes; want 1 in %d", got, pages(s), pageSize)
	}
	// What an earlier version left: 16 KiB pages (set by VACUUM, out of WAL mode) and an
	// older schema version.
	if _, err := s.db.Exec(`PRAGMA journal_mode = DELETE; PRAGMA page_size = 16384; VACUUM;
		UPDATE meta SET value = '6' WHERE key = 'schema_version'`); err != nil {
		t.Fatal(err)
	}
	if got := pages(s); got != 16384 {
		t.Fatalf("the test could not give the index 16 KiB pages: %d", got)
	}
	s.Close()

	s, err := Open(t.Context(), path, Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := pages(s); got != pageSize {
		t.Errorf("an index of version 6 emptied: pages of %d bytes, want %d", got, pageSize)
	}
	var mode string
	if err := s.db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal mode %q (%v), want wal", mode, err)
	}
	err = s.CheckEmbedder(t.Context(), testEmbedder)
	if !errors.Is(err, ErrRebuild) || !strings.Contains(err.Error(), "schema version 6") {
		t.Errorf("CheckEmbedder = %v, want ErrRebuild naming version 6", err)
	}
	checkIntegrity(t, s)
}

func TestBadInput(t *testing.T) {
	s := newIndex(t)
	ctx := t.Context()
	searchErr := func(q []float32, opts Options) error {
		_, err := s.Search(ctx, q, opts.K)
		return err
	}
	q := []float32{1, 0, 0, 0}
	nan := float32(math.NaN())
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"k 0", searchErr(q, Options{K: 0}), "between 1 and 4096"},
		{"k too large", searchErr(q, Options{K: MaxK + 1}), "between 1 and 4096"},
		{"short query", searchErr(q[:3], Options{K: 1}), "has 3 dimensions, but the index holds vectors of 4"},
		{"NaN query", searchErr([]float32{nan, 0, 0, 0}, Options{K: 1}), "no direction"},
		{"sections without vectors", s.PutNote(ctx, Note{Path: "a.md"}, []Section{{}}, nil), "1 sections but 0 vectors"},
		{"no path", s.PutNote(ctx, Note{}, nil, nil), "path is empty"},
		{"frontmatter that is not JSON", s.PutNote(ctx, Note{Path: "a.md", Frontmatter: "tags: [a]"}, nil, nil), "CHECK constraint failed"},
		{"reset without a dimension", s.Reset(ctx, Embedder{Name: "x", Model: "y"}), "between 1 and 8192"},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, tc.err, tc.want)
		}
	}
	if got := count(t, s, "notes"); got != 0 {
		t.Errorf("%d notes stored from bad input, want 0", got)
	}
}

// TestDeepFrontmatter stores notes whose frontmatter nests deep, read as the index reads
// them. SQLite refuses JSON nested over 1,000 levels, which 2 KB of "[" reach; the reader
// must stop well before, so the note is stored with its body and without its properties.
func TestDeepFrontmatter(t *testing.T) {
	s := newIndex(t)
	for _, depth := range []int{frontmatter.MaxDepth - 1, frontmatter.MaxDepth, 1000} {
		path := fmt.Sprintf("deep %d.md", depth)
		fm, body, _ := frontmatter.Split("---\na: " + strings.Repeat("[", depth) + strings.Repeat("]", depth) + "\n---\nThe body.\n")
		n := Note{Path: path}
		if fm.Fields != nil {
			fields, err := json.Marshal(fm.Fields)
			if err != nil {
				t.Fatal(err)
			}
			n.Frontmatter = string(fields)
		}
		if err := s.PutNote(t.Context(), n, []Section{{Line: 4, Text: body}}, [][]float32{{1, 0, 0, 0}}); err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		var stored sql.NullString
		if err := s.db.QueryRow(`SELECT frontmatter FROM notes WHERE path = ?`, path).Scan(&stored); err != nil {
			t.Fatal(err)
		}
		if tooDeep := depth >= frontmatter.MaxDepth; stored.Valid == tooDeep || (fm.Err != nil) != tooDeep {
			t.Errorf("%s: frontmatter stored %v, error %v; want them only within %d levels", path, stored.Valid, fm.Err, frontmatter.MaxDepth)
		}
	}
	if got := count(t, s, "sections"); got != 3 {
		t.Errorf("%d sections stored, want every note's body", got)
	}
}

// A PutNote that fails midway leaves the note as it was, and the file consistent.
func TestFailedPutNoteKeepsOldVersion(t *testing.T) {
	s := newIndex(t)
	put(t, s, Note{Path: "a.md", Hash: "v1"}, []float32{1, 0, 0, 0}, []float32{0, 1, 0, 0})
	put(t, s, Note{Path: "b.md", Hash: "v1"}, []float32{0, 0, 1, 0})

	// The new version fails at its last vector, after its note row, its other sections
	// and their vectors have been written.
	sections := []Section{{Text: "new 0"}, {Text: "new 1"}, {Text: "new 2"}}
	vectors := [][]float32{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1}}
	err := s.PutNote(t.Context(), Note{Path: "a.md", Hash: "v2"}, sections, vectors)
	if err == nil || !strings.Contains(err.Error(), "section 2") {
		t.Fatalf("PutNote with a short vector: %v, want an error naming section 2", err)
	}

	// Large enough for vec0 to start new chunks (of 1024 vectors) before the failure.
	var many []Section
	var manyVectors [][]float32
	for i := range 2100 {
		many = append(many, Section{Text: fmt.Sprint("big ", i)})
		manyVectors = append(manyVectors, []float32{1, 1, 1, float32(i)})
	}
	manyVectors[len(manyVectors)-1] = []float32{0, 0, 0, float32(math.Inf(1))}
	if err := s.PutNote(t.Context(), Note{Path: "a.md", Hash: "v3"}, many, manyVectors); err == nil {
		t.Fatal("PutNote with an infinite vector: no error")
	}

	states, _ := s.NoteStates(t.Context())
	if states["a.md"].Hash != "v1" || len(states) != 2 {
		t.Errorf("after the failures, NoteStates = %v, want a.md at v1 and b.md", states)
	}
	for table, want := range map[string]int{"sections": 3, "vectors": 3} {
		if got := count(t, s, table); got != want {
			t.Errorf("%d rows in %s, want %d: the failed versions left rows behind", got, table, want)
		}
	}
	hits := search(t, s, []float32{1, 0, 0, 0}, Options{K: 10})
	if len(hits) != 3 || hits[0].Text != "text of a.md #0" {
		t.Errorf("search after the failures: %+v", hits)
	}
	checkIntegrity(t, s)

	// The index still takes writes after the rollbacks, including new chunks.
	put(t, s, Note{Path: "c.md"}, manyVectors[:1500]...)
	if got := count(t, s, "vectors"); got != 1503 {
		t.Errorf("%d vectors after a later write, want 1503", got)
	}
	checkIntegrity(t, s)
}

// A batch whose middle note fails stores the others, and keeps the old version of the one
// that failed, whole: each note is behind its own savepoint.
func TestPutNotesFailsOneNoteAlone(t *testing.T) {
	s := newIndex(t)
	put(t, s, Note{Path: "b.md", Hash: "v1"}, []float32{0, 0, 1, 0}, []float32{0, 0, 0, 1})

	one := func(path, hash string, vectors ...[]float32) Entry {
		sections := make([]Section, len(vectors))
		for i := range sections {
			sections[i] = Section{Text: fmt.Sprintf("%s %s #%d", path, hash, i)}
		}
		return Entry{Note: Note{Path: path, Hash: hash}, Sections: sections, Vectors: vectors}
	}
	errs := s.PutNotes(t.Context(), []Entry{
		one("a.md", "v1", []float32{1, 0, 0, 0}),
		one("b.md", "v2", []float32{0, 1, 0, 0}, []float32{0, 0, 1}), // its last vector is short
		one("c.md", "v1", []float32{0, 1, 0, 0}),
	})
	if errs[0] != nil || errs[2] != nil {
		t.Fatalf("PutNotes: %v, want a.md and c.md stored", errs)
	}
	if errs[1] == nil || !strings.Contains(errs[1].Error(), "b.md") || !strings.Contains(errs[1].Error(), "section 1") {
		t.Fatalf("PutNotes: b.md gave %v, want an error naming b.md and section 1", errs[1])
	}

	states, _ := s.NoteStates(t.Context())
	if len(states) != 3 || states["b.md"].Hash != "v1" {
		t.Errorf("after the batch, NoteStates = %v, want a.md, c.md, and b.md at v1", states)
	}
	for table, want := range map[string]int{"sections": 4, "vectors": 4, "embeddings": 4} {
		if got := count(t, s, table); got != want {
			t.Errorf("%d rows in %s, want %d", got, table, want)
		}
	}
	checkIntegrity(t, s)
}

// Searches run while a note is rewritten, and each sees one version of it, whole. Run with
// -race.
func TestConcurrentReadsDuringWrites(t *testing.T) {
	s := newIndex(t)
	for i := range 20 {
		put(t, s, Note{Path: fmt.Sprintf("other%d.md", i)}, []float32{0, 0, 1, float32(i)})
	}
	write := func(version int) error {
		sections := make([]Section, 5)
		vectors := make([][]float32, 5)
		for i := range sections {
			sections[i] = Section{Heading: fmt.Sprint(i), Text: fmt.Sprintf("version %d", version)}
			vectors[i] = []float32{1, float32(i) / 10, 0, 0}
		}
		return s.PutNote(context.Background(), Note{Path: "busy.md"}, sections, vectors)
	}
	if err := write(0); err != nil {
		t.Fatal(err)
	}

	var wg sync.WaitGroup
	stop := make(chan struct{})
	errs := make(chan error, 10)
	var searching atomic.Int32 // readers that have made a search
	const readers = 3
	wg.Go(func() {
		defer close(stop)
		// Write at least 40 versions, and on until every reader has searched during the
		// writes: on a busy machine a reader may start late.
		for v := 1; v <= 40 || (searching.Load() < readers && v <= 100_000); v++ {
			if err := write(v); err != nil {
				errs <- err
				return
			}
		}
	})
	for range readers {
		wg.Go(func() {
			for searches := 0; ; searches++ {
				if searches == 1 {
					searching.Add(1)
				}
				select {
				case <-stop:
					if searches == 0 {
						errs <- errors.New("a reader made no search while the writer ran")
					}
					return
				default:
				}
				hits, err := s.Search(context.Background(), []float32{1, 0, 0, 0}, 5)
				if err != nil {
					errs <- err
					return
				}
				if len(hits) != 5 {
					errs <- fmt.Errorf("a search found %d of busy.md's 5 sections", len(hits))
					return
				}
				for _, h := range hits {
					if h.Text != hits[0].Text {
						errs <- fmt.Errorf("a search saw two versions at once: %q and %q", hits[0].Text, h.Text)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestStatsAndLookups(t *testing.T) {
	ctx := t.Context()
	s := newIndex(t)
	put(t, s, Note{Path: "Garden/Beds/North.md", Tags: []string{"garden/vegetables"}}, []float32{1, 0, 0, 0})
	put(t, s, Note{Path: "Kitchen.md", Tags: []string{"kitchen"}}, []float32{0, 1, 0, 0})

	st, err := s.Stats(ctx)
	if err != nil || st.Notes != 2 || st.Sections != 2 || st.Embedder != testEmbedder {
		t.Errorf("Stats = %+v, %v", st, err)
	}
	for folder, want := range map[string]bool{"Garden": true, "Garden/Beds": true, "Garden/": true, "Gard": false, "Kitchen": false} {
		if got, err := s.HasFolder(ctx, folder); err != nil || got != want {
			t.Errorf("HasFolder(%q) = %v, %v; want %v", folder, got, err, want)
		}
	}
	for tag, want := range map[string]bool{"garden": true, "#Garden/Vegetables": true, "garden/veg": false, "bread": false} {
		if got, err := s.HasTag(ctx, tag); err != nil || got != want {
			t.Errorf("HasTag(%q) = %v, %v; want %v", tag, got, err, want)
		}
	}
}

// A vector of zeros (the offline embedder's for a text without words) is similar to nothing:
// such a section is kept but never found, and such a query finds nothing.
func TestZeroVectors(t *testing.T) {
	s := newIndex(t)
	put(t, s, Note{Path: "a.md"}, []float32{1, 0, 0, 0}, []float32{0, 0, 0, 0})
	if got := count(t, s, "sections"); got != 2 {
		t.Errorf("%d sections stored, want 2", got)
	}
	if got := count(t, s, "vectors"); got != 1 {
		t.Errorf("%d vectors stored, want 1", got)
	}
	hits, err := s.Search(t.Context(), make([]float32, 4), 5)
	if err != nil || len(hits) != 0 {
		t.Errorf("a zero query: Search found %v, %v; want nothing and no error", hits, err)
	}
	if hits, err = s.SearchNotes(t.Context(), make([]float32, 4), Options{K: 5}); err != nil || len(hits) != 0 {
		t.Errorf("a zero query: SearchNotes found %v, %v; want nothing and no error", hits, err)
	}
}

func TestState(t *testing.T) {
	s := newIndex(t)
	mtime := time.Unix(1_700_000_000, 5)
	ctime, seen := mtime.Add(time.Minute), mtime.Add(time.Hour)
	put(t, s, Note{Path: "a.md", Size: 12, MTime: mtime, CTime: ctime, FileID: 1 << 62, Seen: seen, Hash: "h1"}, []float32{1, 0, 0, 0})
	put(t, s, Note{Path: "b.md", Size: 3, MTime: mtime, Hash: "h2"}, []float32{0, 1, 0, 0}) // where the system gives no ctime or inode
	want := map[string]NoteState{
		"a.md": {Size: 12, MTime: mtime, CTime: ctime, FileID: 1 << 62, Seen: seen, Hash: "h1"},
		"b.md": {Size: 3, MTime: mtime, Hash: "h2"},
	}
	all, err := s.NoteStates(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for path, w := range want {
		st, ok, err := s.State(t.Context(), path)
		if err != nil || !ok || !sameState(st, w) || !sameState(all[path], w) {
			t.Errorf("State(%s) = %+v, %v, %v; NoteStates has %+v; want %+v", path, st, ok, err, all[path], w)
		}
	}
	if _, ok, err := s.State(t.Context(), "c.md"); ok || err != nil {
		t.Errorf("State(c.md) = %v, %v; want not found", ok, err)
	}
}

// sameState compares two NoteStates, their times as instants.
func sameState(a, b NoteState) bool {
	return a.Size == b.Size && a.MTime.Equal(b.MTime) && a.CTime.Equal(b.CTime) && a.FileID == b.FileID &&
		a.Seen.Equal(b.Seen) && a.Hash == b.Hash
}

func TestUpdateStateKeepsSectionsAndVectors(t *testing.T) {
	s := newIndex(t)
	put(t, s, Note{Path: "a.md", Size: 12, MTime: time.Unix(1_700_000_000, 0), Hash: "h1"}, []float32{1, 0, 0, 0})
	touched := time.Unix(1_800_000_000, 7)
	state := NoteState{Size: 13, MTime: touched, CTime: touched.Add(time.Second), FileID: 9, Seen: touched.Add(time.Hour), Hash: "ignored"}
	if err := s.UpdateState(t.Context(), "a.md", state); err != nil {
		t.Fatal(err)
	}
	st, _, _ := s.State(t.Context(), "a.md")
	if state.Hash = "h1"; !sameState(st, state) {
		t.Errorf("State after UpdateState = %+v, want %+v: the new state, the hash as it was", st, state)
	}
	if hits := search(t, s, []float32{1, 0, 0, 0}, Options{K: 1}); len(hits) != 1 || hits[0].Path != "a.md" {
		t.Errorf("after UpdateState the note's vector is gone: %+v", hits)
	}
	if err := s.UpdateState(t.Context(), "b.md", state); !errors.Is(err, ErrNotFound) {
		t.Errorf("UpdateState of a note the index does not hold: %v, want ErrNotFound", err)
	}
	checkIntegrity(t, s)
}

func TestCheck(t *testing.T) {
	s := newIndex(t)
	put(t, s, Note{Path: "a.md"}, []float32{1, 0, 0, 0}, []float32{0, 1, 0, 0})
	if err := s.Check(t.Context()); err != nil {
		t.Fatalf("Check of a sound index: %v", err)
	}
	// A vector left behind by a delete that skipped vec0 (foreign keys cannot reach it).
	if _, err := s.db.Exec(`DELETE FROM sections WHERE ord = 1`); err != nil {
		t.Fatal(err)
	}
	if err := s.Check(t.Context()); err == nil || !strings.Contains(err.Error(), "has no section") {
		t.Errorf("Check with an orphan vector = %v, want it named", err)
	}
}

// TestLinkTablesComeWithTheGraph: an index holds the link graph's tables only once
// AddLinkTables made them; Reset drops them with the rest, and an index built without them
// names every note as one whose links are missing.
func TestLinkTablesComeWithTheGraph(t *testing.T) {
	s := newIndex(t)
	put(t, s, Note{Path: "a.md", Title: "a"}, []float32{1, 0, 0, 0})
	hasLinks := func() bool {
		var n int
		err := s.db.QueryRowContext(t.Context(), `SELECT count(*) FROM sqlite_schema WHERE name = 'links'`).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		return n == 1
	}
	if hasLinks() {
		t.Fatal("a new index holds the link graph's tables before AddLinkTables")
	}
	if err := s.AddLinkTables(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := s.AddLinkTables(t.Context()); err != nil || !hasLinks() {
		t.Fatalf("AddLinkTables twice: %v, tables there: %v", err, hasLinks())
	}
	onlyLinked, stale, err := s.LinksDisagree(t.Context())
	if err != nil || len(onlyLinked) != 0 || !slices.Equal(stale, []string{"a.md"}) {
		t.Errorf("LinksDisagree = %v, %v, %v; want a.md only indexed", onlyLinked, stale, err)
	}
	if err := s.Reset(t.Context(), testEmbedder); err != nil {
		t.Fatal(err)
	}
	if hasLinks() {
		t.Error("Reset kept the link graph's tables")
	}
}

// TestLinksCarryTheirNotesVersion: the link graph records the version (content hash) of the
// note its links were read from. LinksDisagree names a note whose links come from another
// version than its sections, and a note the graph holds that the index does not. An Entry's
// Links are written behind the note's own savepoint: kept with it, or rolled back with it.
func TestLinksCarryTheirNotesVersion(t *testing.T) {
	s := newIndex(t)
	if err := s.AddLinkTables(t.Context()); err != nil {
		t.Fatal(err)
	}
	addNote := func(path, version string) func(*LinkTx) error {
		return func(tx *LinkTx) error {
			_, err := tx.AddNote(path, strings.TrimSuffix(path, ".md"), nil, version)
			return err
		}
	}
	entries := []Entry{
		{Note: Note{Path: "same.md", Hash: "v1"}, Sections: []Section{{Text: "a"}}, Vectors: [][]float32{{1, 0, 0, 0}}, Links: addNote("same.md", "v1")},
		{Note: Note{Path: "older.md", Hash: "v2"}, Sections: []Section{{Text: "b"}}, Vectors: [][]float32{{0, 1, 0, 0}}, Links: addNote("older.md", "v1")},
		// Its vector is of the wrong length: the note fails, and its links go with it.
		{Note: Note{Path: "failed.md", Hash: "v1"}, Sections: []Section{{Text: "c"}}, Vectors: [][]float32{{1}}, Links: addNote("failed.md", "v1")},
	}
	errs := s.PutNotes(t.Context(), entries)
	if errs[0] != nil || errs[1] != nil || errs[2] == nil {
		t.Fatalf("PutNotes = %v, want only failed.md to fail", errs)
	}
	if err := s.UpdateLinks(t.Context(), addNote("gone.md", "v1")); err != nil {
		t.Fatal(err)
	}
	onlyLinked, stale, err := s.LinksDisagree(t.Context())
	if err != nil || !slices.Equal(onlyLinked, []string{"gone.md"}) || !slices.Equal(stale, []string{"older.md"}) {
		t.Errorf("LinksDisagree = %v, %v, %v; want gone.md only linked, older.md from another version", onlyLinked, stale, err)
	}
	var removed LinkedNote
	err = s.UpdateLinks(t.Context(), func(tx *LinkTx) error {
		var found bool
		removed, found, err = tx.RemoveNote("older.md")
		if err == nil && !found {
			err = errors.New("not found")
		}
		return err
	})
	if err != nil || removed.Version != "v1" {
		t.Errorf("RemoveNote(older.md) = %+v, %v; want its version, v1", removed, err)
	}
}

// TestLinksFollowTheirNotesPath: a link leads to its note by the id of the note's row, and
// behaves as if it held the note's path. A note removed and stored again at the same path, in
// one transaction (as a note stored again is), keeps the links that led to it; a note removed
// alone leaves them unresolved, until package links resolves them again.
func TestLinksFollowTheirNotesPath(t *testing.T) {
	s := newIndex(t)
	ctx := t.Context()
	if err := s.AddLinkTables(ctx); err != nil {
		t.Fatal(err)
	}
	err := s.UpdateLinks(ctx, func(tx *LinkTx) error {
		if _, err := tx.AddNote("target.md", "target", nil, "v1"); err != nil {
			return err
		}
		from, err := tx.AddNote("from.md", "from", nil, "v1")
		if err != nil {
			return err
		}
		return tx.AddLinks(from, []StoredLink{{Written: []byte(`{}`), TargetKey: "target", Seeks: []string{"target"}, To: "target.md"}})
	})
	if err != nil {
		t.Fatal(err)
	}
	leadsTo := func() []string {
		t.Helper()
		links, err := s.LinksTo(ctx, "target.md")
		if err != nil {
			t.Fatal(err)
		}
		var from []string
		for _, l := range links {
			from = append(from, l.From+" → "+l.To)
		}
		return from
	}
	if got := leadsTo(); !slices.Equal(got, []string{"from.md → target.md"}) {
		t.Fatalf("links to target.md: %q, want the one from from.md", got)
	}

	err = s.UpdateLinks(ctx, func(tx *LinkTx) error {
		if _, _, err := tx.RemoveNote("target.md"); err != nil {
			return err
		}
		_, err := tx.AddNote("target.md", "target", nil, "v2")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := leadsTo(); !slices.Equal(got, []string{"from.md → target.md"}) {
		t.Errorf("after target.md was stored again: links to it %q, want the one from from.md", got)
	}

	err = s.UpdateLinks(ctx, func(tx *LinkTx) error {
		_, _, err := tx.RemoveNote("target.md")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := leadsTo(); len(got) != 0 {
		t.Errorf("after target.md was removed: links to it %q, want none", got)
	}
	missing, err := s.UnresolvedLinks(ctx, "target")
	if err != nil || len(missing) != 1 || missing[0].From != "from.md" || missing[0].To != "" {
		t.Errorf("UnresolvedLinks(target) = %+v, %v; want the link from from.md, leading nowhere", missing, err)
	}
	// The reads do not hand their context to SQLite (see uninterrupted), but one asked on a
	// context that has ended does not start.
	stopped, stop := context.WithCancel(ctx)
	stop()
	_, err1 := s.UnresolvedLinks(stopped, "target")
	_, err2 := s.LinksTo(stopped, "target.md")
	_, _, err3 := s.LinksFrom(stopped, "from.md")
	for i, err := range []error{err1, err2, err3} {
		if !errors.Is(err, context.Canceled) {
			t.Errorf("read %d of the links with a cancelled context: %v, want context.Canceled", i+1, err)
		}
	}
	// A note of that path that comes later, in another transaction, is package links' to
	// resolve: the link does not follow by itself.
	if err := s.UpdateLinks(ctx, func(tx *LinkTx) error {
		_, err := tx.AddNote("target.md", "target", nil, "v3")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got := leadsTo(); len(got) != 0 {
		t.Errorf("a new target.md in a later transaction: links to it %q, want none until resolved again", got)
	}
}

// TestLinkRowsKeepStringsOnce: a link that seeks its own target key keeps no name of its own,
// and reads back as seeking it; one that may also be an alias keeps a flag, not the key again.
func TestLinkRowsKeepStringsOnce(t *testing.T) {
	s := newIndex(t)
	ctx := t.Context()
	if err := s.AddLinkTables(ctx); err != nil {
		t.Fatal(err)
	}
	err := s.UpdateLinks(ctx, func(tx *LinkTx) error {
		from, err := tx.AddNote("from.md", "from", nil, "v1")
		if err != nil {
			return err
		}
		return tx.AddLinks(from, []StoredLink{
			{Written: []byte(`{}`), TargetKey: "compost", Seeks: []string{"compost"}},
			{Written: []byte(`{}`), TargetKey: "garden/compost", Seeks: []string{"compost", "garden/compost"}},
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	var names, flags int
	if err := s.db.QueryRow(`SELECT count(seeks_name), sum(seeks_alias) FROM links`).Scan(&names, &flags); err != nil {
		t.Fatal(err)
	}
	if names != 1 || flags != 1 {
		t.Errorf("%d names and %d alias flags stored, want 1 name (compost, for garden/compost) and 1 flag", names, flags)
	}
	err = s.UpdateLinks(ctx, func(tx *LinkTx) error {
		for name, want := range map[string]int{"compost": 2, "garden/compost": 1, "garden": 0} {
			links, err := tx.LinksSeeking(name)
			if err != nil {
				return err
			}
			if len(links) != want {
				t.Errorf("LinksSeeking(%q): %d links, want %d", name, len(links), want)
			}
		}
		links, err := tx.LinksSeeking("garden/compost")
		if err == nil && len(links) == 1 && !slices.Equal(links[0].Seeks, []string{"compost", "garden/compost"}) {
			t.Errorf("the link to garden/compost reads back seeking %q, want compost and garden/compost", links[0].Seeks)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
