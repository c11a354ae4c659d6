package store

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
)

// The signs a search compares are kept twice: in memory, changed as notes are written and
// removed, and in the vectors table, read back at the first search. After random writes, with
// the memory loaded part-way through, both must be exactly the signs of the vectors in the
// embeddings table. 2,000 notes fill more than one of vec0's chunks of 1024, removals leave
// holes in them, and 70 dimensions leave the last 64-bit word of each section part empty.
func TestSignsLoaded(t *testing.T) {
	e := Embedder{Name: "test", Model: "signs", Dimension: 70}
	s := newIndex(t)
	if err := s.Reset(t.Context(), e); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 6))
	vector := func() []float32 {
		v := make([]float32, e.Dimension)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		return v
	}
	entry := func(path string) Entry {
		n := 1 + r.IntN(3)
		en := Entry{Note: Note{Path: path}}
		for i := range n {
			en.Sections = append(en.Sections, Section{Heading: fmt.Sprint(i), Text: path})
			en.Vectors = append(en.Vectors, vector())
		}
		return en
	}
	path := func() string { return fmt.Sprintf("n%d.md", r.IntN(2000)) }

	for round := range 6 {
		if round == 2 {
			search(t, s, vector(), Options{K: 1}) // from here on, memory follows each write
		}
		var batch []Entry
		for range 400 {
			batch = append(batch, entry(path()))
		}
		// A note that fails takes only its own changes back.
		bad := entry("bad.md")
		bad.Vectors[0] = bad.Vectors[0][:3]
		batch = append(batch, bad)
		for _, err := range s.PutNotes(t.Context(), batch)[:len(batch)-1] {
			if err != nil {
				t.Fatal(err)
			}
		}
		// The note written last holds the largest ids: written again, it takes the same ids
		// for new sections, in the transaction that removes the old ones.
		var largest int64
		s.db.QueryRowContext(t.Context(), `SELECT max(id) FROM sections`).Scan(&largest)
		again := entry(batch[len(batch)-2].Note.Path)
		again.Sections, again.Vectors = again.Sections[:1], again.Vectors[:1]
		if err := s.PutNotes(t.Context(), []Entry{again})[0]; err != nil {
			t.Fatal(err)
		}
		var reused int64
		s.db.QueryRowContext(t.Context(), `SELECT max(id) FROM sections`).Scan(&reused)
		if reused > largest {
			t.Fatalf("rewriting the last note took id %d, after %d: the test no longer reuses ids", reused, largest)
		}
		for range 100 {
			if err := s.DeleteNote(t.Context(), path()); err != nil {
				t.Fatal(err)
			}
		}
		for range 20 {
			s.RenameNote(t.Context(), path(), path()) // a missing note is no matter here
		}
	}

	want := map[int64][]uint64{}
	rows, err := s.db.QueryContext(t.Context(), `SELECT id, vector FROM embeddings`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		var blob []byte
		if err := rows.Scan(&id, &blob); err != nil {
			t.Fatal(err)
		}
		v := make([]float32, len(blob))
		for i, b := range blob {
			v[i] = float32(int8(b))
		}
		want[id] = appendWords(nil, signs(v), 2)
	}
	rows.Close()
	if len(want) < 1500 {
		t.Fatalf("only %d sections in the index: the test needs more than one chunk", len(want))
	}

	var fromDisk signIndex
	if err := fromDisk.load(t.Context(), s.db, e.Dimension); err != nil {
		t.Fatal(err)
	}
	for name, x := range map[string]*signIndex{"in memory": &s.signs, "read from the vectors table": &fromDisk} {
		got := map[int64][]uint64{}
		for i, id := range x.ids {
			if got[id] != nil {
				t.Fatalf("%s: section %d twice", name, id)
			}
			got[id] = x.words[i*x.width : (i+1)*x.width]
		}
		if !maps.EqualFunc(got, want, slices.Equal) {
			t.Errorf("%s: the signs of %d sections, want those of the %d in the embeddings table", name, len(got), len(want))
		}
	}
}

// nearest must return what sorting every allowed section by its distance returns, up to ties.
func TestNearest(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	x := signIndex{loaded: true, width: 2}
	var changes signChanges
	signsOf := map[int64][]uint64{}
	for id := range int64(3000) {
		s := make([]byte, 12) // 96 bits, so that some distances tie
		for i := range s {
			s[i] = byte(r.Uint32())
		}
		changes.add(id, s)
		signsOf[id] = appendWords(nil, s, 2)
	}
	x.apply(&changes)
	distance := func(q []uint64, id int64) int {
		d := 0
		for j, w := range signsOf[id] {
			d += popcount(w ^ q[j])
		}
		return d
	}
	for _, n := range []int{1, 10, 256, 2999, 5000} {
		for _, filtered := range []bool{false, true} {
			query := make([]byte, 12)
			for i := range query {
				query[i] = byte(r.Uint32())
			}
			var allowed map[int64]bool
			candidates := x.ids
			if filtered {
				allowed = map[int64]bool{}
				candidates = nil
				for _, id := range x.ids {
					if id%3 == 0 {
						allowed[id] = true
						candidates = append(candidates, id)
					}
				}
			}
			q := appendWords(nil, query, 2)
			exact := slices.Clone(candidates)
			slices.SortStableFunc(exact, func(a, b int64) int { return distance(q, a) - distance(q, b) })
			exact = exact[:min(n, len(exact))]

			got := x.nearest(query, n, allowed)
			if seen := map[int64]bool{}; len(got) > 0 {
				for _, id := range got {
					if seen[id] {
						t.Fatalf("n=%d filtered=%v: section %d twice", n, filtered, id)
					}
					seen[id] = true
				}
			}
			if len(got) != len(exact) {
				t.Fatalf("n=%d filtered=%v: %d sections, want %d", n, filtered, len(got), len(exact))
			}
			for i := range got {
				if filtered && !allowed[got[i]] {
					t.Fatalf("n=%d: section %d is not allowed", n, got[i])
				}
				if distance(q, got[i]) != distance(q, exact[i]) {
					t.Fatalf("n=%d filtered=%v: #%d is at distance %d, want %d", n, filtered, i, distance(q, got[i]), distance(q, exact[i]))
				}
			}
		}
	}
}

func popcount(w uint64) int {
	n := 0
	for ; w != 0; w &= w - 1 {
		n++
	}
	return n
}

// TestOlderChunksStillRead: an index made before the vectors table asked for chunks of
// signChunk slots has vec0's own 1,024. Its signs still load, and its next compaction writes
// the table anew with signChunk.
func TestOlderChunksStillRead(t *testing.T) {
	e := Embedder{Name: "test", Model: "chunks", Dimension: 70}
	s := newIndex(t)
	if err := s.Reset(t.Context(), e); err != nil {
		t.Fatal(err)
	}
	older := fmt.Sprintf(`DROP TABLE vectors; CREATE VIRTUAL TABLE vectors USING vec0(embedding bit[%d])`, signBytes(e.Dimension)*8)
	if _, err := s.db.ExecContext(t.Context(), older); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(9, 9))
	var batch []Entry
	for i := range 700 {
		en := Entry{Note: Note{Path: fmt.Sprintf("n%d.md", i)}}
		for j := range 2 {
			v := make([]float32, e.Dimension)
			for k := range v {
				v[k] = float32(r.NormFloat64())
			}
			en.Sections = append(en.Sections, Section{Heading: fmt.Sprint(j), Text: en.Note.Path})
			en.Vectors = append(en.Vectors, v)
		}
		batch = append(batch, en)
	}
	for _, err := range s.PutNotes(t.Context(), batch) {
		if err != nil {
			t.Fatal(err)
		}
	}
	loaded := func() int {
		t.Helper()
		var x signIndex
		if err := x.load(t.Context(), s.db, e.Dimension); err != nil {
			t.Fatal(err)
		}
		return len(x.ids)
	}
	chunkSize := func() (slots int) {
		t.Helper()
		if err := s.db.QueryRowContext(t.Context(), `SELECT length(rowids) / 8 FROM vectors_chunks LIMIT 1`).Scan(&slots); err != nil {
			t.Fatal(err)
		}
		return slots
	}
	if got := chunkSize(); got != 1024 {
		t.Fatalf("the older table has chunks of %d slots; want vec0's 1024", got)
	}
	if got := loaded(); got != 1400 {
		t.Fatalf("%d signs loaded from chunks of 1024; want 1400", got)
	}
	if err := s.Compact(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := chunkSize(); got != signChunk {
		t.Errorf("after a compaction the chunks have %d slots; want %d", got, signChunk)
	}
	if got := loaded(); got != 1400 {
		t.Errorf("%d signs loaded after the compaction; want 1400", got)
	}
}

// TestFirstSearchBesideWrites: the first search after Open reads the signs into memory while
// notes are being written, as step 10's first searches meet its catch-up. Memory must then hold
// exactly the signs on disk: none missing, none twice.
func TestFirstSearchBesideWrites(t *testing.T) {
	e := Embedder{Name: "test", Model: "first", Dimension: 70}
	r := rand.New(rand.NewPCG(3, 4))
	vector := func() []float32 {
		v := make([]float32, e.Dimension)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		return v
	}
	rounds := 60 // a write lands in the window of a first load now and then: give it chances
	if testing.Short() {
		rounds = 20
	}
	for round := range rounds {
		s := newIndex(t)
		if err := s.Reset(t.Context(), e); err != nil {
			t.Fatal(err)
		}
		var entries []Entry
		for i := range 200 {
			entries = append(entries, Entry{Note: Note{Path: fmt.Sprintf("r%d/n%d.md", round, i)},
				Sections: []Section{{Heading: "h", Text: "text"}}, Vectors: [][]float32{vector()}})
		}
		query := vector()
		done := make(chan error)
		go func() {
			for _, en := range entries {
				if err := s.PutNotes(t.Context(), []Entry{en})[0]; err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
		for range 5 { // filtered: its transaction starts after a query of its own
			if _, err := s.SearchNotes(t.Context(), query, Options{K: 5, Folder: fmt.Sprintf("r%d", round)}); err != nil {
				t.Fatal(err)
			}
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		var fromDisk signIndex
		if err := fromDisk.load(t.Context(), s.db, e.Dimension); err != nil {
			t.Fatal(err)
		}
		got := slices.Sorted(slices.Values(s.signs.ids))
		want := slices.Sorted(slices.Values(fromDisk.ids))
		if !slices.Equal(got, want) {
			t.Fatalf("round %d: memory holds %d sections, the disk %d: memory missed or doubled a write made during the first search", round, len(got), len(want))
		}
	}
}
