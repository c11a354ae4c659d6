package main

import (
	"fmt"
	"slices"
	"strings"
)

// A change to search is judged against what search did before it. The tables of the run
// before the ranking changes of 2026-12-03 are kept in the repository, as every query's
// results (-json's file, with an "about" that says what was measured): make eval prints their
// summary beside its own, so BENCHMARKS.md keeps the figures that chose the ranking, and
// -compare with the same file lists the tuning queries that moved.

// defaultBefore is the run shown beside this one, relative to the repository root.
const defaultBefore = "scripts/eval/testdata/before-ranking.json.gz"

// beforeSummary is summary for the kept run: the rows of set si over part p, from the records
// of the queries the set still holds, over the vaults that ran in this run, so that both tables
// count the same queries. It returns no rows when the kept run did not measure that set.
func (r *report) beforeSummary(si int, p part) (rows []summaryRow, answered, none int) {
	set := r.Suite.Sets[si]
	asked := map[[2]string]bool{}
	for _, q := range set.Queries {
		if slices.Contains(r.Vaults, q.Vault) {
			asked[[2]string{q.Vault, q.Query}] = true
		}
	}
	type group struct{ embedder, leg string }
	var order []group
	byGroup := map[group][]record{}
	for _, rec := range r.Before.Records {
		if rec.Set != set.Name() || rec.HeldOut != p.HeldOut || !asked[[2]string{rec.Vault, rec.Query}] {
			continue
		}
		g := group{rec.Embedder, rec.Leg}
		if _, ok := byGroup[g]; !ok {
			order = append(order, g)
		}
		byGroup[g] = append(byGroup[g], rec)
	}
	// In this run's order of embedders and legs, then any others the kept run measured.
	rank := func(g group) int {
		e := slices.IndexFunc(r.Embedders, func(e embedder) bool { return e.Name == g.embedder })
		l := slices.IndexFunc(r.Legs, func(l leg) bool { return l.Name == g.leg })
		if e < 0 || l < 0 {
			return 1 << 20
		}
		return e*len(r.Legs) + l
	}
	slices.SortStableFunc(order, func(a, b group) int { return rank(a) - rank(b) })
	for _, g := range order {
		row := summaryRow{Embedder: g.embedder, Leg: g.leg}
		var scores, empties []Score
		hubs := 0
		for _, rec := range byGroup[g] {
			if rec.Category == "none" {
				empties = append(empties, rec.score())
				continue
			}
			scores = append(scores, rec.score())
			if rec.HubTop {
				hubs++
			}
		}
		row.Mean = Mean(scores)
		row.HubTop = ratio(float64(hubs), float64(len(scores)))
		row.EmptyOnNone = Mean(empties).Empty
		rows = append(rows, row)
		answered, none = len(scores), len(empties)
	}
	return rows, answered, none
}

// beforeTitle heads the kept run's summary of a part.
func (r *report) beforeTitle(p part, answered, none int) string {
	return fmt.Sprintf("Before the ranking changes of %s, %s, %d answerable queries and %d that nothing answers",
		r.beforeDate(), p.Name, answered, none)
}

// beforeDate is the day the kept run was measured.
func (r *report) beforeDate() string {
	date, _, _ := strings.Cut(r.Before.Date, "T")
	return date
}

// fullMatch counts, over the answerable queries of one part of a set, those for which the
// keyword leg's first note holds every word of the query (its score is 1, the whole of the
// query's weight), and how often that note, and the vector leg's first note for the same
// queries, is relevant: the measurement behind the rule that keeps such a note first.
type fullMatch struct {
	Answerable, Full int
	KeywordRelevant  int
	VectorRelevant   map[string]int // by embedder
}

// fullMatches measures fullMatch for set si over part p, from the keyword leg of the first
// embedder (the keyword leg ranks alike with every embedder). ok is false when the run has no
// keyword leg, or the step gives no scores.
func (r *report) fullMatches(si int, p part) (fm fullMatch, ok bool) {
	if len(r.Embedders) == 0 || !slices.ContainsFunc(r.Legs, func(l leg) bool { return l.Name == "keyword" }) {
		return fm, false
	}
	first := r.Embedders[0].Name
	fm.VectorRelevant = map[string]int{}
	for _, i := range r.picked(si, p, answerable) {
		fm.Answerable++
		score, has := r.Results.firstScore(first, "keyword", si, i)
		if !has {
			continue
		}
		ok = true
		if score < 1 {
			continue
		}
		fm.Full++
		if r.judge(si, i, first, "keyword").Hit1 == 1 {
			fm.KeywordRelevant++
		}
		for _, e := range r.Embedders {
			if r.judge(si, i, e.Name, "vector").Hit1 == 1 {
				fm.VectorRelevant[e.Name]++
			}
		}
	}
	return fm, ok
}

// fullMatchSentence says what fullMatches measured, in one paragraph.
func (r *report) fullMatchSentence(fm fullMatch, p part) string {
	s := fmt.Sprintf("Full matches, %s: for %d of the %d answerable queries, the keyword leg's first note holds every word of the query (score 1); it is relevant for %d of them (%.2f)",
		p.Name, fm.Full, fm.Answerable, fm.KeywordRelevant, ratio(float64(fm.KeywordRelevant), float64(fm.Full)))
	var vector []string
	for _, e := range r.Embedders {
		if r.Results.ran(e.Name, "vector") {
			vector = append(vector, fmt.Sprintf("%d with %s (%.2f)", fm.VectorRelevant[e.Name], e.Name, ratio(float64(fm.VectorRelevant[e.Name]), float64(fm.Full))))
		}
	}
	if len(vector) > 0 && fm.Full > 0 {
		s += ", and the vector leg's first note for " + strings.Join(vector, ", ")
	}
	return s + "."
}
