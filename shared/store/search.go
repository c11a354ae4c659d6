package store

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// How a search finds its sections.
//
// The search has two passes. The first compares the query's signs with every section's (see
// signs and signIndex) and keeps the :coarse nearest by Hamming distance, the candidates. The
// second reads the stored vectors of those candidates, by their ids, from the embeddings table,
// and keeps the k most similar to the query. Comparing the signs takes a fraction of the time
// the vectors would, and when the candidates are many more than k, the k nearest are nearly
// always among them: TestSearchRecall measures how often.
//
// Only the sections that the second pass keeps are looked up in the sections table, for their
// notes (see withNotes): a few dozen rows rather than hundreds.
const candidatesQuery = `
	SELECT e.id, e.scale, e.vector
	FROM json_each(:candidates) c
	JOIN embeddings e ON e.id = c.value`

// notesQuery reads the notes of sections, in the order given.
const notesQuery = `
	SELECT s.note_id
	FROM json_each(:ids) c
	JOIN sections s ON s.id = c.value
	ORDER BY c.key`

// hitsQuery reads what a search returns about the sections it chose, in the order given.
const hitsQuery = `
	SELECT n.path, n.title, s.heading, s.line, s.text
	FROM json_each(:ids) c
	JOIN sections s ON s.id = c.value
	JOIN notes n ON n.id = s.note_id
	ORDER BY c.key`

// MaxK is the most hits one search returns, which bounds the work of one search.
const MaxK = 4096

// How many candidates the first pass keeps: candidatesPerHit for each hit asked, and at least
// minCandidates, so that an index of that many sections or fewer is searched exactly.
const (
	candidatesPerHit = 8
	minCandidates    = 256
)

// Hit is a section that matched a search.
type Hit struct {
	Path    string
	Title   string
	Heading string
	Line    int
	Text    string
	Score   float64 // Search: the cosine similarity with the query, from -1 to 1 (1: the same direction); KeywordNotes: the share of the query's weight the section holds
}

// Search returns the k sections nearest to the query vector, nearest first; fewer only if the
// index holds fewer. The query must come from the embedder the index was built with.
//
// The score of a section is the cosine similarity of its vector with the query's: 1 for the
// same direction, 0 for unrelated. Both are at unit length, the query scaled here and the
// sections when they were stored (see quantize), so it is their dot product.
func (s *Store) Search(ctx context.Context, query []float32, k int) ([]Hit, error) {
	q, err := s.prepareSearch(query, k)
	if q.unit == nil || err != nil {
		return nil, err
	}
	ctx, err = uninterrupted(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.loadSigns(ctx, q.dimension); err != nil {
		return nil, err
	}
	var hits []Hit
	err = s.read(ctx, func(tx *sql.Tx) error {
		nearest, err := s.knn(ctx, tx, q, k, nil)
		if err == nil {
			hits, err = readHits(ctx, tx, nearest)
		}
		return err
	})
	return hits, err
}

// Options says what a search returns.
type Options struct {
	K      int    // how many hits, from 1 to MaxK
	Folder string // only notes in this folder or those within it ("Garden" holds "Garden/Sub/x.md"); "" for all
	Tag    string // only notes with this tag or one nested in it ("garden" matches #garden/vegetables); "" for all
}

// overfetch is how many more sections than notes SearchNotes asks for at a time.
const overfetch = 4

// SearchNotes is Search with one hit per note, its best section, so that one long note cannot
// fill the results, and with the filters of opts. It returns the opts.K best notes, or all
// that pass the filters if fewer.
//
// The nearest sections, once they hold K notes, hold exactly the K best: any other note's best
// section is farther than all of them. So SearchNotes asks for a few sections per note wanted,
// and for more while they hold too few notes and the index may have more. It stops at MaxK
// sections, so at worst it returns fewer than K notes when one note fills thousands of them.
func (s *Store) SearchNotes(ctx context.Context, query []float32, opts Options) ([]Hit, error) {
	q, err := s.prepareSearch(query, opts.K)
	if q.unit == nil || err != nil {
		return nil, err
	}
	if ctx, err = uninterrupted(ctx); err != nil {
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
		for k := min(opts.K*overfetch, MaxK); ; k = min(k*overfetch, MaxK) {
			nearest, err := s.knn(ctx, tx, q, k, allowed)
			if err == nil {
				err = withNotes(ctx, tx, nearest)
			}
			if err != nil {
				return err
			}
			best := bestPerNote(nearest, opts.K)
			if len(best) == opts.K || len(nearest) < k || k == MaxK {
				hits, err = readHits(ctx, tx, best)
				return err
			}
		}
	})
	return hits, err
}

// uninterrupted returns ctx without its cancellation, or ctx's error if it has ended. A
// search reads a few hundred rows, each a few microseconds' work, and is over in milliseconds;
// for a context that can be cancelled, the driver (ncruces/go-sqlite3 v0.21.3) arms SQLite's
// interrupt before each row and disarms it after, two more calls into SQLite a row, which
// cost a search more than being interruptible saves (see NoteStates).
func uninterrupted(ctx context.Context) (context.Context, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return context.WithoutCancel(ctx), nil
}

// read runs fn in a read transaction: what it reads in several queries is one state of the
// index, whatever is written meanwhile.
func (s *Store) read(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("search: %w", err)
	}
	defer tx.Rollback() // a read transaction has nothing to commit
	return fn(tx)
}

// prepareSearch checks a search for k sections and puts its query in the form the index uses.
// A query of zeros gives a nil query: the search finds nothing.
func (s *Store) prepareSearch(query []float32, k int) (searchQuery, error) {
	e, err := s.confirmed()
	if err != nil {
		return searchQuery{}, err
	}
	if k < 1 || k > MaxK {
		return searchQuery{}, fmt.Errorf("search: k must be between 1 and %d, got %d", MaxK, k)
	}
	unit, err := unitVector(query, e.Dimension)
	if errors.Is(err, errZero) {
		return searchQuery{}, nil // similar to nothing: no hits, and no error either
	}
	if err != nil {
		return searchQuery{}, fmt.Errorf("search: the query vector %w", err)
	}
	return searchQuery{unit: unit, signs: signs(unit), dimension: e.Dimension}, nil
}

// searchQuery is a query vector in the two forms the search compares: at unit length, for the
// scores, and its signs, for the candidates.
type searchQuery struct {
	unit      []float32
	signs     []byte
	dimension int
}

// scoredSection is a section a search found, before it reads what it returns about it.
type scoredSection struct {
	id, note int64
	score    float64
}

// loadSigns reads every section's signs into memory at the first search, on a connection of
// its own and holding the commit lock, as loadNames does: no write commits while it reads, so
// each write is either in what it reads or changes memory after. Read in a search's own
// transaction, whose snapshot may be older, a write that committed in between would be missing
// from memory until the next Reset, or there twice.
func (s *Store) loadSigns(ctx context.Context, dimension int) error {
	if s.signs.isLoaded() {
		return nil
	}
	// A connection before the lock, for the reason loadNames gives.
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("search: %w", err)
	}
	defer conn.Close()
	s.commitMu.Lock()
	defer s.commitMu.Unlock()
	if err := s.signs.load(ctx, conn, dimension); err != nil {
		return fmt.Errorf("search: %w", err)
	}
	return nil
}

// knn returns the k sections nearest to the query among those allowed (nil allows all),
// nearest first.
func (s *Store) knn(ctx context.Context, tx *sql.Tx, query searchQuery, k int, allowed map[int64]bool) ([]scoredSection, error) {
	candidates, err := json.Marshal(s.signs.nearest(query.signs, min(max(k*candidatesPerHit, minCandidates), MaxK), allowed))
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	rows, err := tx.QueryContext(ctx, candidatesQuery, sql.Named("candidates", string(candidates)))
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	defer rows.Close()
	var found []scoredSection
	var vector sql.RawBytes // read in place: only the score is kept
	for rows.Next() {
		var sc scoredSection
		var scale float64
		if err := rows.Scan(&sc.id, &scale, &vector); err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
		if len(vector) != query.dimension {
			return nil, fmt.Errorf("search: section %d has a vector of %d numbers, the index %d: delete the index, and it is rebuilt", sc.id, len(vector), query.dimension)
		}
		sc.score = similarity(query.unit, vector, scale)
		found = append(found, sc)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	slices.SortStableFunc(found, func(a, b scoredSection) int { return cmp.Compare(b.score, a.score) })
	return found[:min(k, len(found))], nil
}

// withNotes fills in the note of each section found.
func withNotes(ctx context.Context, tx *sql.Tx, found []scoredSection) error {
	if len(found) == 0 {
		return nil
	}
	rows, err := tx.QueryContext(ctx, notesQuery, sql.Named("ids", sectionIDs(found)))
	if err != nil {
		return fmt.Errorf("search: %w", err)
	}
	defer rows.Close()
	read := 0
	for rows.Next() && read < len(found) {
		if err := rows.Scan(&found[read].note); err != nil {
			return fmt.Errorf("search: %w", err)
		}
		read++
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("search: %w", err)
	}
	if read != len(found) {
		// The sections and their vectors are written and deleted together, in one transaction.
		return fmt.Errorf("search: found %d sections, but read the notes of %d", len(found), read)
	}
	return nil
}

// sectionIDs lists the ids of sections as a JSON array, for json_each.
func sectionIDs(found []scoredSection) string {
	list := make([]byte, 0, 8*len(found))
	list = append(list, '[')
	for i, sc := range found {
		if i > 0 {
			list = append(list, ',')
		}
		list = strconv.AppendInt(list, sc.id, 10)
	}
	return string(append(list, ']'))
}

// readHits reads what a search returns about the sections it found, in their order.
func readHits(ctx context.Context, tx *sql.Tx, found []scoredSection) ([]Hit, error) {
	if len(found) == 0 {
		return nil, nil
	}
	rows, err := tx.QueryContext(ctx, hitsQuery, sql.Named("ids", sectionIDs(found)))
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	defer rows.Close()
	hits := make([]Hit, 0, len(found))
	for rows.Next() {
		h := Hit{Score: found[len(hits)].score}
		if err := rows.Scan(&h.Path, &h.Title, &h.Heading, &h.Line, (*deflated)(&h.Text)); err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
		hits = append(hits, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	if len(hits) != len(found) {
		// knn and readHits read in the same transaction: a section one found, the other reads.
		return nil, fmt.Errorf("search: found %d sections, but read %d", len(found), len(hits))
	}
	return hits, nil
}

// How SearchNotes filters by folder or tag.
//
// A filter must reach the first pass, which then skips the sections that fail it. Applied to
// the candidates afterwards, it would drop some and return fewer than exist, or none when the
// sections that pass it are all farther than the candidates. The filters are ordinary SQL on
// the notes and tags tables, with their indexes, and give the ids of the sections allowed.
//
// A folder F holds the paths that start with "F/": the range from "F/" up to "F0", since '0'
// is the character after '/'. A range, unlike LIKE, uses the index on notes.path and has no
// wildcards to escape. A tag T matches T and the tags nested in it (T/...), as Obsidian's tag
// search does, by the same kind of range.
const (
	allowedQuery = `SELECT coalesce(group_concat(s.id), '') FROM notes n JOIN sections s ON s.note_id = n.id WHERE %s`
	inFolder     = `n.path >= :folder || '/' AND n.path < :folder || '0'`
	withTag      = `n.id IN (
				SELECT note_id FROM tags
				WHERE tag = :tag OR (tag >= :tag || '/' AND tag < :tag || '0')
			)`
)

// allowedSections returns the ids of the sections that pass the filters in opts. Without a
// filter it returns nil, which the first pass reads as "every section passes"; a filter that no
// section passes gives an empty map, which lets none through.
func (s *Store) allowedSections(ctx context.Context, opts Options) (map[int64]bool, error) {
	opts.Folder = strings.Trim(opts.Folder, "/")
	opts.Tag = normalizeTag(opts.Tag)
	var where []string
	if opts.Folder != "" {
		where = append(where, inFolder)
	}
	if opts.Tag != "" {
		where = append(where, withTag)
	}
	if len(where) == 0 {
		return nil, nil
	}
	// One row with every id, rather than a row each: at 5,000 sections the rows cost ten
	// times the query.
	var ids string
	err := s.db.QueryRowContext(ctx, fmt.Sprintf(allowedQuery, strings.Join(where, " AND ")),
		sql.Named("folder", opts.Folder), sql.Named("tag", opts.Tag)).Scan(&ids)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	allowed := make(map[int64]bool)
	for field := range strings.SplitSeq(ids, ",") {
		if id, err := strconv.ParseInt(field, 10, 64); err == nil {
			allowed[id] = true
		}
	}
	return allowed, nil
}

// bestPerNote keeps the first section of each note, up to n notes. They come nearest first,
// so the first is the best.
func bestPerNote(found []scoredSection, n int) []scoredSection {
	seen := make(map[int64]bool)
	var best []scoredSection
	for _, sc := range found {
		if len(best) == n {
			break
		}
		if !seen[sc.note] {
			seen[sc.note] = true
			best = append(best, sc)
		}
	}
	return best
}
