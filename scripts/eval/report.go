package main

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// results holds what search returned for each query, by embedder and leg.
type results struct {
	paths map[resultKey][]string
}

type resultKey struct {
	embedder, leg string
	query         int // index in Set.Queries
}

func newResults() *results { return &results{paths: map[resultKey][]string{}} }

func (r *results) add(embedder, leg string, query int, paths []string) {
	r.paths[resultKey{embedder, leg, query}] = paths
}

// count is how many queries were asked of each embedder and leg.
func (r *results) count() int {
	queries := map[int]bool{}
	for k := range r.paths {
		queries[k.query] = true
	}
	return len(queries)
}

// report is everything the tables are made of.
type report struct {
	Step      string
	Embedders []embedder
	Legs      []leg
	Set       *Set
	Results   *results
	Vaults    []string // the vaults that ran
	Took      time.Duration
	Date      string
}

// part is one half of the set: the queries search may be tuned on, or those kept aside.
type part struct {
	Name    string
	HeldOut bool
}

var parts = []part{{"tuning part", false}, {"held-out part", true}}

// metricNames head each leg's columns.
var metricNames = []string{"nDCG@5", "nDCG@10", "MRR", "Hit@1", "R@10", "empty"}

// table is one embedder's figures over one part, as rows of cells: a category, the number
// of its queries, then each leg's metrics in turn.
type table struct {
	Title string
	Rows  [][]string
}

// figures computes the table for embedder e over part p. "all" averages every answerable query
// (not "none"); "none" has only its empty rate, the one figure that means something for it.
func (r *report) figures(e embedder, p part) table {
	var rows [][]string
	addRow := func(label string, keep func(Query) bool) int {
		var idx []int
		for i, q := range r.Set.Queries {
			if q.HeldOut() == p.HeldOut && slices.Contains(r.Vaults, q.Vault) && keep(q) {
				idx = append(idx, i)
			}
		}
		if len(idx) == 0 {
			return 0
		}
		row := []string{label, fmt.Sprint(len(idx))}
		for _, l := range r.Legs {
			var scores []Score
			for _, i := range idx {
				scores = append(scores, Judge(r.Set.Queries[i].Answers, r.Results.paths[resultKey{e.Name, l.Name, i}]))
			}
			m := Mean(scores)
			cells := []float64{m.NDCG5, m.NDCG10, m.RR, m.Hit1, m.Recall10, m.Empty}
			for j, v := range cells {
				if label == "none" && j < len(cells)-1 {
					row = append(row, "")
				} else {
					row = append(row, fmt.Sprintf("%.2f", v))
				}
			}
		}
		rows = append(rows, row)
		return len(idx)
	}
	for _, c := range Categories {
		if c != "none" {
			addRow(c, func(q Query) bool { return q.Category == c })
		}
	}
	total := addRow("all", func(q Query) bool { return q.Category != "none" })
	total += addRow("none", func(q Query) bool { return q.Category == "none" })
	return table{Title: fmt.Sprintf("%s, %s (%d queries)", e.About, p.Name, total), Rows: rows}
}

// Text is the tables for a terminal.
func (r *report) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Search quality of steps/%s: search_vault, limit %d, over %s\n", r.Step, Depth, strings.Join(r.Vaults, ", "))
	for _, e := range r.Embedders {
		for _, p := range parts {
			t := r.figures(e, p)
			fmt.Fprintf(&b, "\n%s\n", t.Title)
			w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
			legRow := []string{"", ""}
			header := []string{"category", "n"}
			for _, l := range r.Legs {
				legRow = append(legRow, l.Name)
				legRow = append(legRow, make([]string, len(metricNames)-1)...)
				header = append(header, metricNames...)
			}
			for _, row := range append([][]string{legRow, header}, t.Rows...) {
				// AlignRight puts the category on the right too; pad it to the left instead.
				fmt.Fprintf(w, "%-12s\t%s\t\n", row[0], strings.Join(row[1:], "\t"))
			}
			w.Flush()
		}
	}
	b.WriteString("\nempty: the share of queries answered with an empty list; right for \"none\" (nothing relevant), wrong for the rest.\n")
	return b.String()
}

// Markdown is the tables in Markdown, headed by the embedder and part.
func (r *report) Markdown() string {
	var b strings.Builder
	for _, e := range r.Embedders {
		for _, p := range parts {
			t := r.figures(e, p)
			fmt.Fprintf(&b, "%s:\n\n", capitalize(t.Title))
			header := []string{"category", "n"}
			for _, l := range r.Legs {
				for _, m := range metricNames {
					header = append(header, l.Name+" "+m)
				}
			}
			b.WriteString("| " + strings.Join(header, " | ") + " |\n")
			b.WriteString("|---|" + strings.Repeat("---:|", len(header)-1) + "\n")
			for _, row := range t.Rows {
				b.WriteString("| " + strings.Join(row, " | ") + " |\n")
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// Section is the search-quality section of BENCHMARKS.md. Its paragraphs are one line each:
// Markdown joins them, and the figures in them change length from run to run.
func (r *report) Section() string {
	var b strings.Builder
	b.WriteString("## Search quality\n\n")
	b.WriteString("Written by `make eval` (`go run ./scripts/eval -write BENCHMARKS.md`); do not edit by hand. `make bench` leaves this section as it is.\n\n")
	var vaults []string
	for _, name := range r.Vaults {
		vaults = append(vaults, fmt.Sprintf("`%s` (%d)", r.Set.Vaults[name].Dir, countQueries(r.Set, name)))
	}
	fmt.Fprintf(&b, "%d labelled queries ([scripts/eval/queries.json](scripts/eval/queries.json)), written from the notes before any tuning, over %s, each sent to the `search_vault` of steps/%s (limit %d) over MCP, as a client sends it. ",
		r.Results.count(), strings.Join(vaults, ", "), r.Step, Depth)
	b.WriteString("Each query's answers are graded: 2 relevant, 1 partly relevant. About 30% of each category is held out from tuning: once search has been tuned on the rest, the held-out tables are the ones to trust.\n\n")
	b.WriteString("- nDCG@5, nDCG@10: the graded answers among the first 5 or 10 results, weighed by rank, against the best possible order (1 is perfect). MRR: the mean of 1/rank of the first relevant note. Hit@1: the share of queries whose first result is relevant. R@10: the share of the relevant notes found in the first 10.\n")
	b.WriteString("- empty: the share of queries answered with an empty list. Right for the \"none\" row (nonsense words, or a topic absent from the vault), wrong for every other.\n")
	b.WriteString("- Legs (the server's `-rank`): `keyword` is the FTS5 index alone (BM25 with field weights, and a share of the query's weight each note must hold); `vector` the vectors alone (sqlite-vec, a score floor); `hybrid`, what users get, fuses the two rankings by reciprocal rank. Each returns the best section of each note.\n")
	b.WriteString("- The Ollama tables use the real Ollama client against the stand-in, whose vectors hash words as the offline embedder does, under the score floor meant for nomic-embed-text: they show that code path at work and where that floor cuts such scores, not how a model ranks.\n\n")
	fmt.Fprintf(&b, "Measured on %s, %s with %d cores; the whole run took %v.\n\n", r.Date, runtime.GOOS+"/"+runtime.GOARCH, runtime.NumCPU(), r.Took)
	b.WriteString(r.Markdown())
	b.WriteString("Reproduce (vaults missing from ../shared/vaults are skipped, with a message saying how to fetch them):\n\n")
	b.WriteString("```sh\nmake eval\n```\n")
	return b.String()
}

// Details lists each query of the tuning part with the rank of its first relevant note and
// the first results, marked with their grades. The held-out part is never listed: whoever
// tunes search must not see it.
func (r *report) Details() string {
	var b strings.Builder
	for _, e := range r.Embedders {
		for _, l := range r.Legs {
			fmt.Fprintf(&b, "\n%s, leg %s, tuning part:\n", e.About, l.Name)
			for i, q := range r.Set.Queries {
				paths, ran := r.Results.paths[resultKey{e.Name, l.Name, i}]
				if q.HeldOut() || !ran {
					continue
				}
				s := Judge(q.Answers, paths)
				first := "-"
				if s.RR > 0 {
					first = fmt.Sprint(int(1/s.RR + 0.5))
				}
				fmt.Fprintf(&b, "%-2s %-11s %-21s %q\n", first, q.Category, q.Vault, q.Query)
				for _, p := range paths[:min(len(paths), 5)] {
					grade := "."
					if g := q.Answers[p]; g > 0 {
						grade = fmt.Sprint(g)
					}
					fmt.Fprintf(&b, "     %s %s\n", grade, p)
				}
			}
		}
	}
	return b.String()
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
