package store

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"
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
	// FTS5 ranks sections, and K notes are wanted. One long note can hold the first hundred
	// sections, so ask for more while the sections read hold fewer than K notes that pass
	// and the index may hold more.
	for limit := keywordCandidates; ; limit *= 4 {
		var read int
		hits, read, err = s.keywordPass(ctx, match, filter, limit, weights, opts)
		if err != nil || len(hits) == opts.K || read < limit || limit >= maxKeywordCandidates {
			return hits, shared, err
		}
	}
}

// keywordPass reads the limit best sections for an FTS5 query, and keeps the first of each
// note that holds MinCoverage of the query's weight, up to opts.K notes. read is how many
// sections it read.
func (s *Store) keywordPass(ctx context.Context, match, filter string, limit int, weights map[string]float64, opts Options) (hits []Hit, read int, err error) {
	rank := fmt.Sprintf("bm25(words, %d, %d, %d, %d)", titleWeight, aliasesWeight, headingWeight, bodyWeight)
	rows, err := s.db.QueryContext(ctx, `
		SELECT n.path, n.title, n.aliases, s.heading, s.line, s.text
		FROM words
		JOIN sections s ON s.id = words.rowid
		JOIN notes n ON n.id = s.note_id
		WHERE words MATCH :match`+filter+`
		ORDER BY `+rank+` LIMIT :limit`,
		sql.Named("match", match), sql.Named("limit", limit),
		sql.Named("folder", opts.Folder), sql.Named("tag", opts.Tag))
	if err != nil {
		return nil, 0, fmt.Errorf("keyword search: %w", err)
	}
	defer rows.Close()

	seen := map[string]bool{}
	for rows.Next() && len(hits) < opts.K {
		read++
		var h Hit
		var aliases string
		if err := rows.Scan(&h.Path, &h.Title, &aliases, &h.Heading, &h.Line, (*deflated)(&h.Text)); err != nil {
			return nil, 0, fmt.Errorf("keyword search: %w", err)
		}
		if seen[h.Path] {
			continue
		}
		h.Score = coverage(weights, h.Title+"\n"+aliases+"\n"+h.Text)
		if h.Score < MinCoverage {
			continue
		}
		seen[h.Path] = true
		hits = append(hits, h)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("keyword search: %w", err)
	}
	return hits, read, nil
}

// coverage is the share of the query's weight that text holds: the weights of the query's
// words found in it, over the weights of them all.
func coverage(weights map[string]float64, text string) float64 {
	var found, total float64
	inText := map[string]bool{}
	for _, w := range terms(text) {
		inText[w] = true
	}
	for w, weight := range weights {
		total += weight
		if inText[w] {
			found += weight
		}
	}
	if total == 0 {
		return 0
	}
	return found / total
}

// wordWeights gives each word its inverse document frequency among the sections: BM25's
// ln(1 + (N - n + 0.5) / (n + 0.5)), for N sections of which n hold the word. A word that no
// section holds gets the largest weight. It also returns n for each word, and N.
func (s *Store) wordWeights(ctx context.Context, words []string) (weights, counts map[string]float64, sections float64, err error) {
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM sections`).Scan(&sections); err != nil {
		return nil, nil, 0, err
	}
	counts = make(map[string]float64, len(words))
	args := make([]any, len(words))
	for i, w := range words {
		args[i] = w
	}
	rows, err := s.db.QueryContext(ctx, `SELECT term, doc FROM word_counts WHERE term IN (`+
		strings.TrimSuffix(strings.Repeat("?,", len(words)), ",")+`)`, args...)
	if err != nil {
		return nil, nil, 0, err
	}
	defer rows.Close()
	for rows.Next() {
		var w string
		var n float64
		if err := rows.Scan(&w, &n); err != nil {
			return nil, nil, 0, err
		}
		counts[w] = n
	}
	if err := rows.Err(); err != nil {
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
// counts it.
func (q keywordQuery) match(counts map[string]float64, sections float64) string {
	var any, common []string
	for _, w := range q.words {
		switch n := counts[w]; {
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

// quote writes words as an FTS5 phrase: "a b c" matches the words together, in order. terms
// gives no word with a double quote in it, so none needs escaping.
func quote(words ...string) string {
	return `"` + strings.Join(words, " ") + `"`
}
