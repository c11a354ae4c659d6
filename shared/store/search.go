package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// How a search finds its sections.
//
// The search has two passes. The first compares the query's signs with every section's (see
// signs and signIndex) and keeps the :coarse nearest by Hamming distance, the candidates. The
// second reads the exact vectors of those candidates, by their ids, from the embeddings table,
// and keeps the :k nearest by Euclidean distance. Comparing the signs takes a fraction of the
// time the floats would, and when the candidates are many more than k, the k nearest are
// nearly always among them: TestSearchRecall measures how often.
const knnQuery = `
	SELECT n.path, n.title, s.heading, s.line, s.text, vec_distance_l2(e.vector, :query) AS distance
	FROM json_each(:candidates) c
	JOIN embeddings e ON e.id = c.value
	JOIN sections s ON s.id = c.value
	JOIN notes n ON n.id = s.note_id
	ORDER BY distance
	LIMIT :k`

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
// The vectors are stored at unit length (see encode), and sqlite-vec's vec_distance_l2 measures
// their Euclidean distance d. For unit vectors d² = 2 - 2·cos, so the nearest are the most
// similar, and the score 1 - d²/2 is the cosine similarity. Euclidean distance ranks exactly as
// cosine distance would, and is faster in this build: vec_distance_cosine works out both
// lengths for every pair it compares.
func (s *Store) Search(ctx context.Context, query []float32, k int) ([]Hit, error) {
	q, err := s.prepareSearch(query, k)
	if q.exact == nil || err != nil {
		return nil, err
	}
	return s.knn(ctx, q, k, nil)
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
	if q.exact == nil || err != nil {
		return nil, err
	}
	allowed, err := s.allowedSections(ctx, opts)
	if err != nil {
		return nil, err
	}
	for k := min(opts.K*overfetch, MaxK); ; k = min(k*overfetch, MaxK) {
		hits, err := s.knn(ctx, q, k, allowed)
		if err != nil {
			return nil, err
		}
		best := bestPerNote(hits, opts.K)
		if len(best) == opts.K || len(hits) < k || k == MaxK {
			return best, nil
		}
	}
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
	exact, err := encode(query, e.Dimension)
	if errors.Is(err, errZero) {
		return searchQuery{}, nil // similar to nothing: no hits, and no error either
	}
	if err != nil {
		return searchQuery{}, fmt.Errorf("search: the query vector %w", err)
	}
	return searchQuery{exact: exact, signs: signs(query), dimension: e.Dimension}, nil
}

// searchQuery is a query vector in the two forms the search compares: encoded, for the exact
// distances, and its signs, for the candidates.
type searchQuery struct {
	exact, signs []byte
	dimension    int
}

// knn returns the k nearest sections among those allowed (nil allows all).
func (s *Store) knn(ctx context.Context, query searchQuery, k int, allowed map[int64]bool) ([]Hit, error) {
	if err := s.signs.load(ctx, s.db, query.dimension); err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	candidates, err := json.Marshal(s.signs.nearest(query.signs, min(max(k*candidatesPerHit, minCandidates), MaxK), allowed))
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	rows, err := s.db.QueryContext(ctx, knnQuery,
		sql.Named("query", query.exact), sql.Named("candidates", string(candidates)), sql.Named("k", k))
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	defer rows.Close()
	var hits []Hit
	for rows.Next() {
		var h Hit
		var distance float64
		if err := rows.Scan(&h.Path, &h.Title, &h.Heading, &h.Line, &h.Text, &distance); err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
		h.Score = 1 - distance*distance/2
		hits = append(hits, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("search: %w", err)
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

// bestPerNote keeps the first hit of each note, up to n notes. Hits come nearest first, so
// the first is the best.
func bestPerNote(hits []Hit, n int) []Hit {
	seen := make(map[string]bool)
	var best []Hit
	for _, h := range hits {
		if len(best) == n {
			break
		}
		if !seen[h.Path] {
			seen[h.Path] = true
			best = append(best, h)
		}
	}
	return best
}
