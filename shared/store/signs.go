package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync"
)

// signIndex is the first pass of a search, in memory: every section's signs (see signs) side
// by side, so that finding the candidates is one pass over a few megabytes.
//
// vec0 can find them itself, with a KNN query on the same signs. But sqlite-vec v0.1.6 picks
// the k nearest of each chunk of vectors in time that grows with k: the 256 candidates a
// search asks for cost it about 40 ms at 50,000 sections, where this scan takes well under 2
// (BenchmarkSearch). So vec0 stays where the signs are kept on disk, written in the same
// transaction as their note, and the index reads them into memory at the first search after
// Open or Reset: 96 bytes a section at 768 dimensions.
type signIndex struct {
	mu     sync.RWMutex
	loaded bool
	width  int      // 64-bit words a section
	ids    []int64  // the sections' ids
	words  []uint64 // their signs: width words each, in the order of ids
}

// signChanges is what a transaction did to the vectors table, for the signIndex to do the same
// once it commits: sections added (with their signs) and removed, in order, or, after reset,
// a new table. It holds what the transaction did to the notes' names too, for the nameIndex.
type signChanges struct {
	reset bool
	list  []signChange
	names []nameChange
}

type signChange struct {
	id    int64
	signs []byte // nil when the section was removed
}

// join adds later's changes, made after c's, to c.
func (c *signChanges) join(later *signChanges) {
	c.list = append(c.list, later.list...)
	c.names = append(c.names, later.names...)
}

func (c *signChanges) add(id int64, signs []byte) { c.list = append(c.list, signChange{id, signs}) }
func (c *signChanges) remove(id int64)            { c.list = append(c.list, signChange{id: id}) }

// removed counts the sections removed; a nil *signChanges removed none.
func (c *signChanges) removed() int {
	n := 0
	if c != nil {
		for _, ch := range c.list {
			if ch.signs == nil {
				n++
			}
		}
	}
	return n
}

// apply makes memory match a committed transaction. Before the first search nothing is in
// memory, and the load will read what was committed.
//
// A section removed loses its signs; if the transaction gave its id to a new section (SQLite
// may reuse the largest id), the new signs come after. Every other id added is new: the
// vectors table refuses a rowid it holds. So the changes cost one pass over memory when they
// remove something, and appends when they only add.
func (x *signIndex) apply(c *signChanges) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if c.reset {
		x.loaded, x.ids, x.words = false, nil, nil
		return
	}
	if !x.loaded {
		return
	}
	removed := make(map[int64]bool)
	last := make(map[int64]int, len(c.list)) // the last change to each id
	for i, ch := range c.list {
		if ch.signs == nil {
			removed[ch.id] = true
		}
		last[ch.id] = i
	}
	if len(removed) > 0 {
		kept := 0
		for i, id := range x.ids {
			if removed[id] {
				continue
			}
			x.ids[kept] = id
			copy(x.words[kept*x.width:(kept+1)*x.width], x.words[i*x.width:])
			kept++
		}
		x.ids, x.words = x.ids[:kept], x.words[:kept*x.width]
	}
	for i, ch := range c.list {
		if ch.signs != nil && last[ch.id] == i {
			x.ids = append(x.ids, ch.id)
			x.words = appendWords(x.words, ch.signs, x.width)
		}
	}
}

// appendWords appends signs to words as width 64-bit words, the last padded with zeros, so that
// a comparison takes a word at a time.
func appendWords(words []uint64, signs []byte, width int) []uint64 {
	for j := range width {
		var word [8]byte
		copy(word[:], signs[min(8*j, len(signs)):])
		words = append(words, binary.LittleEndian.Uint64(word[:]))
	}
	return words
}

// isLoaded reports whether the signs are in memory.
func (x *signIndex) isLoaded() bool {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.loaded
}

// load reads every section's signs, once, from the storage of the vec0 table (see readSigns).
func (x *signIndex) load(ctx context.Context, db querier, dimension int) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.loaded {
		return nil
	}
	x.width = (signBytes(dimension) + 7) / 8
	// vec0 keeps a row of vectors_rowids for each vector: their number sizes the memory once.
	var count int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM vectors_rowids`).Scan(&count); err != nil {
		return fmt.Errorf("read the vectors' signs: %w", err)
	}
	x.ids, x.words = make([]int64, 0, count), make([]uint64, 0, count*x.width)
	err := readSigns(ctx, db, dimension, func(id int64, signs []byte) {
		x.ids = append(x.ids, id)
		x.words = appendWords(x.words, signs, x.width)
	})
	if err != nil {
		return err
	}
	x.loaded = true
	return nil
}

// querier is what a *sql.DB and a *sql.Tx both do.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// readSigns calls fn with the id and signs of every vector in the vectors table, read from
// its storage. A row of vectors_chunks holds the rowids of a chunk's slots (little-endian
// int64s) and a bitmap of the slots in use; the row of vectors_vector_chunks00 with the same id
// holds their signs, one after another. 200 such rows hold 50,000 sections, where asking
// vec0 for each vector (SELECT rowid, embedding FROM vectors) looks them up one at a time,
// over ten times slower. This is sqlite-vec v0.1.6's own layout, not its interface:
// TestSignsLoaded checks it, so a new version that changes it fails the tests rather than the
// searches.
func readSigns(ctx context.Context, db querier, dimension int, fn func(id int64, signs []byte)) error {
	size := signBytes(dimension)
	rows, err := db.QueryContext(ctx, `
		SELECT c.validity, c.rowids, v.vectors
		FROM vectors_chunks c JOIN vectors_vector_chunks00 v ON v.rowid = c.chunk_id`)
	if err != nil {
		return fmt.Errorf("read the vectors' signs: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var validity, rowids, vectors []byte
		if err := rows.Scan(&validity, &rowids, &vectors); err != nil {
			return fmt.Errorf("read the vectors' signs: %w", err)
		}
		slots := len(rowids) / 8
		if len(rowids)%8 != 0 || len(validity)*8 < slots || len(vectors) != slots*size {
			return fmt.Errorf("read the vectors' signs: a chunk of the vectors table is not laid out as sqlite-vec v0.1.6 does (%d, %d and %d bytes)", len(validity), len(rowids), len(vectors))
		}
		for slot := range slots {
			if validity[slot/8]&(1<<(slot%8)) != 0 {
				fn(int64(binary.LittleEndian.Uint64(rowids[slot*8:])), vectors[slot*size:(slot+1)*size])
			}
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read the vectors' signs: %w", err)
	}
	return nil
}

// nearest returns the ids of the n sections whose signs differ from query's in the fewest
// bits, among those allowed (nil allows all), nearest first.
//
// A Hamming distance is a small whole number (at most one per dimension), so rather than keep
// a heap of the n best, nearest counts how many sections lie at each distance, finds the
// distance within which there are n, and takes the sections up to it. The distances are
// worked out once, into two bytes a section that searches reuse (see distanceBuffers).
func (x *signIndex) nearest(query []byte, n int, allowed map[int64]bool) []int64 {
	x.mu.RLock()
	defer x.mu.RUnlock()
	q := appendWords(nil, query, x.width)
	buffer := distanceBuffers.Get().(*[]uint16)
	defer distanceBuffers.Put(buffer)
	distances := slices.Grow((*buffer)[:0], len(x.ids))[:len(x.ids)]
	*buffer = distances
	const excluded = math.MaxUint16 // farther than any distance: at most maxDimension bits differ
	counts := make([]int, 64*x.width+1)
	for i := range x.ids {
		if allowed != nil && !allowed[x.ids[i]] {
			distances[i] = excluded
			continue
		}
		d := 0
		row := x.words[i*x.width:][:len(q)] // as long as q: no bounds check in the loop
		for j, w := range q {
			d += bits.OnesCount64(w ^ row[j])
		}
		distances[i] = uint16(d)
		counts[d]++
	}
	// Every section at a distance below limit is taken, and those at limit until there are n.
	limit, below := 0, 0
	for limit < len(counts)-1 && below+counts[limit] < n {
		below += counts[limit]
		limit++
	}
	// Place each section by its distance: start[d] is where those at distance d begin.
	start := make([]int, limit+2)
	for d := range limit + 1 {
		start[d+1] = start[d] + counts[d]
	}
	ordered := make([]int64, min(start[limit+1], n))
	for i, d := range distances {
		if int(d) > limit || start[d] >= len(ordered) {
			continue
		}
		ordered[start[d]] = x.ids[i]
		start[d]++
	}
	return ordered
}

// distanceBuffers holds the buffers nearest works its distances out in: two bytes a section,
// reused from search to search rather than made anew each time.
var distanceBuffers = sync.Pool{New: func() any { return new([]uint16) }}
