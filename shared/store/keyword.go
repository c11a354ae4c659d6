package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
)

// Field weights for BM25: a word in a note's title or aliases says more about what the note
// is about than the same word in its body, and a heading more than the body.
const (
	titleWeight   = 10
	aliasesWeight = 10
	headingWeight = 3
	bodyWeight    = 1
)

// MinCoverage is the share of a query's weight that a section must hold to be a keyword match.
//
// A query's words do not weigh the same: a word in few sections (like "flamingo") tells more
// than one in many ("how", "my"). So each word weighs its inverse document frequency, as in
// BM25, and a word no section holds weighs the most. "how do I renew my passport" over a
// vault that never mentions passports is matched by sections that say "how" and "my", but
// those hold a small share of its weight, and are not matches.
const MinCoverage = 0.35

// maxQueryTerms bounds the words of a query that are looked up: a question, not a document.
const maxQueryTerms = 64

// keywordCandidates is how many sections the keyword index returns at first, best first,
// before the coverage check and the choice of each note's best section; a search that finds
// too few notes among them asks for four times as many, up to maxKeywordCandidates.
const (
	keywordCandidates    = 100
	maxKeywordCandidates = 6400
)

// KeywordNotes searches the keyword index for query, and returns the opts.K best notes (its
// best section each), best first. A note matches when one of its sections holds at least
// MinCoverage of the query's weight; Score is that share, from MinCoverage to 1. shared is how
// many of the query's words the index holds: 0 for a query that shares no word with the vault.
//
// Words in double quotes must occur together, in that order: `"cold frame"` does not match
// a section that says "frame" in one place and "cold" in another.
func (s *Store) KeywordNotes(ctx context.Context, query string, opts Options) (hits []Hit, shared int, err error) {
	if _, err := s.confirmed(); err != nil {
		return nil, 0, err
	}
	if opts.K < 1 || opts.K > MaxK {
		return nil, 0, fmt.Errorf("keyword search: k must be between 1 and %d, got %d", MaxK, opts.K)
	}
	opts.Folder = strings.Trim(opts.Folder, "/")
	opts.Tag = normalizeTag(opts.Tag)

	q := parseQuery(query)
	if len(q.words) == 0 {
		return nil, 0, nil
	}
	if ctx, err = uninterrupted(ctx); err != nil {
		return nil, 0, err
	}
	weights, counts, sections, err := s.wordWeights(ctx, q.words)
	if err != nil {
		return nil, 0, fmt.Errorf("keyword search: %w", err)
	}
	for _, n := range counts {
		if n > 0 {
			shared++
		}
	}
	match := q.match(counts, sections)
	if match == "" {
		return nil, shared, nil // no section holds any of the words
	}

	filter := ""
	if opts.Folder != "" {
		filter += " AND " + inFolder
	}
	if opts.Tag != "" {
		filter += " AND " + withTag
	}
	enough, none := q.enough(weights, counts)
	if none {
		return nil, shared, nil // no section can hold MinCoverage of the query's weight
	}
	if enough != "" {
		// "+" keeps SQLite from handing the ids to FTS5 one by one, each a search of its own.
		filter += " AND +words.rowid IN (SELECT rowid FROM words WHERE words MATCH :enough)"
	}
	hits, err = s.rankedNotes(ctx, match, filter, enough, newCoverage(q.words, weights), opts)
	return hits, shared, err
}

// rankedNotes reads the sections FTS5 ranks best for match, among those that pass filter, and
// keeps the first of each note that holds MinCoverage of the query's weight, up to opts.K
// notes.
//
// FTS5 ranks sections, and K notes are wanted. One long note can hold the first hundred
// sections, so it asks for more while the sections read hold fewer than K notes that pass and
// the index may hold more. It reads their ids first, best first, and what a result shows only
// for the sections it judges, each once.
func (s *Store) rankedNotes(ctx context.Context, match, filter, enough string, c coverage, opts Options) ([]Hit, error) {
	rank := fmt.Sprintf("bm25(words, %d, %d, %d, %d)", titleWeight, aliasesWeight, headingWeight, bodyWeight)
	from := "words"
	if opts.Folder != "" || opts.Tag != "" {
		from = "words JOIN sections s ON s.id = words.rowid JOIN notes n ON n.id = s.note_id"
	}
	// The section's id breaks ties, so that a longer list begins with the shorter one.
	ranked := `SELECT coalesce(group_concat(id), '') FROM (
		SELECT words.rowid AS id FROM ` + from + `
		WHERE words MATCH :match` + filter + `
		ORDER BY ` + rank + `, words.rowid LIMIT :limit)`
	var hits []Hit
	seen := map[string]bool{}
	judged := 0
	for limit := keywordCandidates; ; limit *= 4 {
		var list string
		err := s.db.QueryRowContext(ctx, ranked, sql.Named("match", match), sql.Named("limit", limit),
			sql.Named("enough", enough), sql.Named("folder", opts.Folder), sql.Named("tag", opts.Tag)).Scan(&list)
		if err != nil {
			return nil, fmt.Errorf("keyword search: %w", err)
		}
		ids := strings.Split(list, ",")
		if list == "" {
			ids = nil
		}
		if judged < len(ids) {
			if hits, err = s.judge(ctx, ids[judged:], c, seen, hits, opts.K); err != nil {
				return nil, err
			}
			judged = len(ids)
		}
		if len(hits) == opts.K || len(ids) < limit || limit >= maxKeywordCandidates {
			return hits, nil
		}
	}
}

// judge reads the sections with ids, best first, and adds to hits the first of each note not
// seen yet that holds MinCoverage of the query's weight, until hits holds k notes. It inflates
// and reads the text only of the sections it judges: not those of notes already found, nor
// any after the k-th note.
func (s *Store) judge(ctx context.Context, ids []string, c coverage, seen map[string]bool, hits []Hit, k int) ([]Hit, error) {
	rows, err := s.db.QueryContext(ctx, `
		SELECT n.path, n.title, n.aliases, s.heading, s.line, s.text
		FROM json_each(:ids) c
		JOIN sections s ON s.id = c.value
		JOIN notes n ON n.id = s.note_id
		ORDER BY c.key`, sql.Named("ids", "["+strings.Join(ids, ",")+"]"))
	if err != nil {
		return nil, fmt.Errorf("keyword search: %w", err)
	}
	defer rows.Close()
	for len(hits) < k && rows.Next() {
		var h Hit
		var aliases string
		var text sql.RawBytes // inflated only if the section is judged
		if err := rows.Scan(&h.Path, &h.Title, &aliases, &h.Heading, &h.Line, &text); err != nil {
			return nil, fmt.Errorf("keyword search: %w", err)
		}
		if seen[h.Path] {
			continue
		}
		if err := (*deflated)(&h.Text).Scan([]byte(text)); err != nil {
			return nil, fmt.Errorf("keyword search: %w", err)
		}
		h.Score = c.share(h.Title + "\n" + aliases + "\n" + h.Text)
		if h.Score < MinCoverage {
			continue
		}
		seen[h.Path] = true
		hits = append(hits, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("keyword search: %w", err)
	}
	return hits, nil
}

// coverage is the share of the query's weight that a text holds: the weights of the query's
// words found in it, over the weights of them all.
type coverage struct {
	bit     map[string]uint64 // each word of the query, by its place
	weights []float64         // in that place
	total   float64
}

// newCoverage prepares the coverage of a query's words, each with its weight.
func newCoverage(words []string, weights map[string]float64) coverage {
	c := coverage{bit: make(map[string]uint64, len(words))}
	for _, w := range words {
		c.bit[w] = 1 << len(c.weights) // at most maxQueryTerms words: 64 bits
		c.weights = append(c.weights, weights[w])
		c.total += weights[w]
	}
	return c
}

// share returns the share of the query's weight in text.
func (c coverage) share(text string) float64 {
	if c.total == 0 {
		return 0
	}
	var found uint64
	for _, w := range terms(text) {
		found |= c.bit[w]
	}
	var sum float64
	for i, weight := range c.weights {
		if found&(1<<i) != 0 {
			sum += weight
		}
	}
	return sum / c.total
}

// wordWeights gives each word its inverse document frequency among the sections: BM25's
// ln(1 + (N - n + 0.5) / (n + 0.5)), for N sections of which n hold the word. A word that no
// section holds gets the largest weight. It also returns n for each word, and N.
func (s *Store) wordWeights(ctx context.Context, words []string) (weights, counts map[string]float64, sections float64, err error) {
	sections, counts, err = s.wordCounts.get(ctx, s.db, s.writes.Load(), words)
	if err != nil {
		return nil, nil, 0, err
	}
	weights = make(map[string]float64, len(words))
	for _, w := range words {
		n := counts[w]
		weights[w] = math.Log(1 + (sections-n+0.5)/(n+0.5))
		if r, _ := utf8.DecodeRuneInString(w); n == 0 && isCJK(r) {
			// Most pairs no section holds straddle two words (茶的 in 普洱茶的水温), where
			// a word no section holds in a spaced language is a word of the query.
			weights[w] /= 2
		}
	}
	return weights, counts, sections, nil
}

// wordCounts remembers how many sections hold each word, from the index as the last write left
// it. FTS5 counts a word's sections by reading its whole list of places, so a word in most
// sections ("the", "how") costs milliseconds at 50,000 sections, and such words are in many
// queries. Any write may change the counts: the cache keeps those of one generation of
// writes (Store.writes), and starts again at the next.
type wordCounts struct {
	mu         sync.Mutex
	generation int64
	sections   float64 // how many sections there are; -1 until read
	counts     map[string]float64
}

// maxCachedWords bounds the cache of counts: a few hundred kilobytes.
const maxCachedWords = 4096

// get returns how many sections there are, and how many hold each of words, as of generation
// (read before the index was), reading from db those it has not kept.
func (c *wordCounts) get(ctx context.Context, db *sql.DB, generation int64, words []string) (sections float64, counts map[string]float64, err error) {
	c.mu.Lock()
	if c.generation != generation || c.counts == nil || len(c.counts) > maxCachedWords {
		c.generation, c.sections, c.counts = generation, -1, map[string]float64{}
	}
	sections = c.sections
	counts = make(map[string]float64, len(words))
	var missing []any
	for _, w := range words {
		if n, ok := c.counts[w]; ok {
			counts[w] = n
		} else {
			missing = append(missing, w)
		}
	}
	c.mu.Unlock()

	if sections < 0 {
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sections`).Scan(&sections); err != nil {
			return 0, nil, err
		}
	}
	read := map[string]float64{}
	if len(missing) > 0 {
		// One word at a time: fts5vocab finds a word by "term = ?" directly.
		stmt, err := db.PrepareContext(ctx, `SELECT doc FROM word_counts WHERE term = ?`)
		if err != nil {
			return 0, nil, err
		}
		defer stmt.Close()
		for _, w := range missing {
			var n float64
			if err := stmt.QueryRowContext(ctx, w).Scan(&n); err != nil && !errors.Is(err, sql.ErrNoRows) {
				return 0, nil, err
			}
			read[w.(string)], counts[w.(string)] = n, n
		}
	}

	c.mu.Lock()
	defer c.mu.Unlock()
	if c.generation == generation { // no write since: what was read is current
		c.sections = sections
		for w, n := range read {
			c.counts[w] = n
		}
	}
	return sections, counts, nil
}

// keywordQuery is a search query taken apart for the keyword index.
type keywordQuery struct {
	words   []string   // each distinct word once
	groups  [][]string // the words of each part of the query written without spaces
	phrases [][]string // the words of each "quoted phrase", which must all match
}

// parseQuery splits a query into its words, its groups (the words of "context.WithCancel" or
// "obsidian://open", which are written together and should be found together) and its quoted
// phrases.
func parseQuery(query string) keywordQuery {
	var q keywordQuery
	seen := map[string]bool{}
	add := func(ws []string) []string {
		for _, w := range ws {
			if !seen[w] && len(q.words) < maxQueryTerms {
				seen[w] = true
				q.words = append(q.words, w)
			}
		}
		return ws
	}
	for i, part := range strings.Split(query, `"`) {
		if i%2 == 1 { // between quotes; an unclosed quote counts as closed at the end
			if ws := add(terms(part)); len(ws) > 0 {
				q.phrases = append(q.phrases, ws)
			}
			continue
		}
		for _, field := range strings.Fields(part) {
			if ws := add(terms(field)); len(ws) > 1 {
				q.groups = append(q.groups, ws)
			}
		}
	}
	return q
}

// match writes the FTS5 query: any word that some section holds, or any group, ranked by BM25
// (more words, rarer words and words in the title rank higher), and every phrase. It returns ""
// when no section can match. counts says how many of the index's sections hold each word.
//
// A word in more than a quarter of the sections ("the", "how") is left out when the query has
// rarer ones: BM25 gives it almost no weight, and asking for it would make FTS5 rank most of
// the index (28 ms at 10,000 sections, against 1 ms without it). The coverage check still
// counts it. An English stop word in more than half of them ("the", "of") is never asked for:
// it tells no section from the rest, so a query of nothing else ("the and of") matches
// nothing, rather than most of the vault, each note holding every word of the query. A word
// of the vault's subject may be in most sections too ("zebra" in a vault about zebras), and
// is asked for: the notes that say it most come first.
func (q keywordQuery) match(counts map[string]float64, sections float64) string {
	var any, common []string
	for _, w := range q.words {
		switch n := counts[w]; {
		case n > sections/2 && english.IsStopWord(w):
		case n > sections/4:
			common = append(common, quote(w))
		case n > 0:
			any = append(any, quote(w))
		}
	}
	if len(any) == 0 {
		any = common
	}
	for _, g := range q.groups {
		any = append(any, quote(g...))
	}
	if len(any) == 0 {
		return ""
	}
	match := "(" + strings.Join(any, " OR ") + ")"
	for _, p := range q.phrases {
		match += " AND " + quote(p...)
	}
	return match
}

// maxEnoughWords and maxEnoughSets bound the work of enough: 2^maxEnoughWords sums, and a
// query of at most maxEnoughSets groups for FTS5.
const (
	maxEnoughWords = 12
	maxEnoughSets  = 64
)

// enough writes an FTS5 query that matches the sections whose words could hold MinCoverage of
// the query's weight: any set of the query's words that weighs enough, and whose every word is
// needed. A section that holds none of these sets fails the coverage check whatever its rank,
// so the search need not read it; where a word in most sections ranks thousands of sections
// that fail, this saves reading every one of them. It returns "" when every section the match
// finds might pass anyway, or when the words are too many to list their sets, and none when no
// section can pass.
//
// The sets are found a little generously (a sum within a billionth of the bound counts), so
// that the coverage check, which adds the same weights in another order, has the last word.
func (q keywordQuery) enough(weights, counts map[string]float64) (match string, none bool) {
	var total float64
	var held []string // the words some section holds: only these can be found
	for _, w := range q.words {
		total += weights[w]
		if counts[w] > 0 {
			held = append(held, w)
		}
	}
	if len(held) > maxEnoughWords {
		return "", false
	}
	need := MinCoverage * total * (1 - 1e-9)
	sum := make([]float64, 1<<len(held))
	var sets []uint
	singles := 0
	for set := uint(1); set < uint(len(sum)); set++ {
		low := set & -set
		sum[set] = sum[set&^low] + weights[held[bits.TrailingZeros(low)]]
		if sum[set] < need {
			continue
		}
		minimal := true
		for rest := set; rest != 0 && minimal; rest &= rest - 1 {
			minimal = sum[set&^(rest&-rest)] < need
		}
		if minimal {
			sets = append(sets, set)
			if bits.OnesCount(set) == 1 {
				singles++
			}
		}
	}
	switch {
	case len(sets) == 0:
		return "", true
	case singles == len(held), len(sets) > maxEnoughSets:
		// Any word the index holds is enough, or the sets are too many to ask for.
		return "", false
	}
	alternatives := make([]string, len(sets))
	for i, set := range sets {
		var words []string
		for j, w := range held {
			if set&(1<<j) != 0 {
				words = append(words, quote(w))
			}
		}
		alternatives[i] = "(" + strings.Join(words, " AND ") + ")"
	}
	return strings.Join(alternatives, " OR "), false
}

// quote writes words as an FTS5 phrase: "a b c" matches the words together, in order. terms
// gives no word with a double quote in it, so none needs escaping.
func quote(words ...string) string {
	return `"` + strings.Join(words, " ") + `"`
}
