package main

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"vaultmcp/shared/embed"
	"vaultmcp/shared/store"
)

// How search ranks notes. Hybrid is what users get; the other two rank by one leg alone, to
// measure each (make eval) and to see what each finds.
const (
	rankHybrid  = "hybrid"  // keywords and vectors, fused
	rankKeyword = "keyword" // the keyword index alone (FTS5, BM25)
	rankVector  = "vector"  // the vectors alone (sqlite-vec, cosine similarity)
)

// rankings lists them, for the -rank flag.
var rankings = []string{rankHybrid, rankKeyword, rankVector}

// legDepth is how many notes each leg ranks for fusion: more than a search returns, so that a
// note second-best in both legs can rise above one that only one leg found.
const legDepth = 20

// fusionK is reciprocal rank fusion's constant: a note ranked r by a leg gets 1/(fusionK + r).
// The larger it is, the less first place counts over second. 60 is the value of the paper
// that introduced the method (Cormack, Clarke and Büttcher, 2009), kept as it is: the labelled
// queries of make eval cannot tell it from values between 5 and 60.
const fusionK = 60

// find returns the opts.K best notes for query, one hit each (its best section), best first,
// ranked as ix.ranking says.
//
// The two legs fail in different ways. Keywords find the exact word, name or syntax, and
// nothing else: "heavy crumb" misses a note about dense bread. Vectors find meaning (with a
// real model), but rank a note that mentions everything above the note that is about one
// thing, and lose a rare word in a long section. Reciprocal rank fusion adds up each note's
// places in the two rankings: a note both legs rank well comes first, and a note only one leg
// found still comes back. It needs no calibration between the legs' scores, which live on
// different scales.
//
// One thing fusion cannot see is how sure a leg is. When one note holds every word of the
// query, the keyword leg has found the note the user named: a title, an identifier, a rare
// word. Measured on make eval's labelled queries, that note is the answer nine times in ten,
// and the vector leg's first choice far less often; equal fusion would let loosely related
// neighbours push it down. So that note comes first, and fusion orders the rest.
func (ix *index) find(ctx context.Context, query string, opts store.Options) ([]store.Hit, error) {
	legOpts := opts
	legOpts.K = max(legDepth, opts.K)
	// The legs read the index at once, each on its own connection: the keyword leg costs
	// about a tenth of the vector leg, and hides behind it.
	var keyword []store.Hit
	var shared int
	var keywordErr error
	var wg sync.WaitGroup
	if ix.ranking != rankVector {
		wg.Go(func() { keyword, shared, keywordErr = ix.db.KeywordNotes(ctx, query, legOpts) })
	}
	vector, err := ix.vectorLeg(ctx, query, legOpts)
	wg.Wait()
	if err = cmp.Or(err, keywordErr); err != nil {
		return nil, err
	}
	switch {
	case ix.ranking == rankKeyword:
		return keyword[:min(len(keyword), opts.K)], nil
	case ix.ranking == rankVector:
		return vector[:min(len(vector), opts.K)], nil
	case shared == 0 && ix.embedder.Model() == embed.OfflineModel:
		// Not one of the query's words is in the vault, and the offline embedder knows only
		// words: what it finds is chance, two words whose hashes collide. A real model may
		// still match by meaning (a question in another language than the notes), and its
		// floor decides.
		return nil, nil
	}
	return fuse(keyword, vector, opts.K), nil
}

// vectorLeg returns the notes nearest to the query that score above the floor, each with its
// score on the scale a model reads (see normalize), unless the ranking is by keywords alone or
// the query quotes words: then only the notes that hold those words can answer.
func (ix *index) vectorLeg(ctx context.Context, query string, opts store.Options) ([]store.Hit, error) {
	if ix.ranking == rankKeyword || strings.Contains(query, `"`) {
		return nil, nil
	}
	floor, err := ix.floor.get(ctx, ix.embedder, ix.db)
	if err != nil {
		return nil, err
	}
	v, err := ix.embedder.EmbedQuery(ctx, query)
	if err != nil {
		return nil, err
	}
	hits, err := ix.db.SearchNotes(ctx, v, opts)
	if err != nil {
		return nil, err
	}
	// Below the floor a "match" is no closer than nonsense. Returning it anyway would hand
	// the model k confident-looking answers to a question the vault cannot answer.
	for i := range hits {
		if hits[i].Score <= floor {
			return hits[:i], nil
		}
		hits[i].Score = normalize(hits[i].Score, floor)
	}
	return hits, nil
}

// fuse ranks the notes of two rankings by reciprocal rank fusion, and returns the best n;
// the keyword leg's first note comes first when it holds every word of the query (its score
// is 1). A note's hit is the vector leg's when it has one: the keyword leg weighs the title,
// which every section of a note shares, so its choice of section is the weaker. Its score is
// the stronger of the legs' scores, which both mean the same whatever the model: the share of
// the query's words the section holds, and how far its meaning stands above chance.
func fuse(keyword, vector []store.Hit, n int) []store.Hit {
	type fused struct {
		hit   store.Hit
		rank  float64 // the sum of 1/(fusionK + place) over the legs that found the note
		score float64
		order int // first seen; breaks ties, keywords first
	}
	notes := map[string]*fused{}
	for _, leg := range [][]store.Hit{keyword, vector} {
		for place, h := range leg {
			f := notes[h.Path]
			if f == nil {
				f = &fused{order: len(notes)}
				notes[h.Path] = f
			}
			f.hit = h
			f.rank += 1 / float64(fusionK+place+1)
			f.score = max(f.score, h.Score)
		}
	}
	decisive := len(keyword) > 0 && keyword[0].Score >= 1
	all := slices.Collect(maps.Values(notes))
	slices.SortFunc(all, func(a, b *fused) int {
		if decisive && (a.order == 0) != (b.order == 0) {
			if a.order == 0 {
				return -1
			}
			return 1
		}
		if a.rank != b.rank {
			return cmp.Compare(b.rank, a.rank)
		}
		return a.order - b.order
	})
	hits := make([]store.Hit, 0, min(n, len(all)))
	for _, f := range all[:min(n, len(all))] {
		f.hit.Score = f.score
		hits = append(hits, f.hit)
	}
	return hits
}

// checkRanking refuses a -rank the server does not know.
func checkRanking(ranking string) error {
	if !slices.Contains(rankings, ranking) {
		return fmt.Errorf("unknown ranking %q: use %s", ranking, strings.Join(rankings, ", "))
	}
	return nil
}
