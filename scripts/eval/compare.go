package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"
)

// runFile is what -json writes: every query's results and scores, so that a later run can be
// compared with it query by query (-compare).
type runFile struct {
	Step string `json:"step"`
	Date string `json:"date"` // RFC 3339
	// About says what was measured, for a run kept in the repository (see before.go); -json
	// leaves it out.
	About   string   `json:"about,omitempty"`
	Records []record `json:"records"`
}

// record is one query asked of one embedder and leg.
type record struct {
	Set      string    `json:"set"` // the set's file name
	Vault    string    `json:"vault"`
	Query    string    `json:"query"`
	Category string    `json:"category"`
	HeldOut  bool      `json:"heldOut"`
	Embedder string    `json:"embedder"`
	Leg      string    `json:"leg"`
	Results  []string  `json:"results"`          // paths, best first
	Grades   []int     `json:"grades"`           // each result's grade: 2, 1, or 0 for not an answer
	Scores   []float64 `json:"scores,omitempty"` // each result's score, from step 6 on
	NDCG5    float64   `json:"ndcg5"`
	NDCG10   float64   `json:"ndcg10"`
	RR       float64   `json:"rr"`
	Hit1     bool      `json:"hit1"`
	Recall10 float64   `json:"recall10"`
	Empty    bool      `json:"empty"`
	HubTop   bool      `json:"hubTop"`
}

func (r record) key() string {
	return strings.Join([]string{r.Set, r.Embedder, r.Leg, r.Vault, r.Query}, "\x00")
}

// Records is every query's results, as -json writes them.
func (r *report) Records() runFile {
	out := runFile{Step: r.Step, Date: time.Now().UTC().Format(time.RFC3339)}
	for si, set := range r.Suite.Sets {
		for _, e := range r.Embedders {
			for _, l := range r.Legs {
				for qi, q := range set.Queries {
					j := r.judge(si, qi, e.Name, l.Name)
					if !j.Ran {
						continue
					}
					paths, _ := r.Results.get(e.Name, l.Name, si, qi)
					scores := r.Results.scores[resultKey{e.Name, l.Name, si, qi}]
					grades := make([]int, len(paths))
					for i, p := range paths {
						grades[i] = q.Answers[p]
					}
					out.Records = append(out.Records, record{
						Set: set.Name(), Vault: q.Vault, Query: q.Query, Category: q.Category, HeldOut: q.HeldOut(),
						Embedder: e.Name, Leg: l.Name, Results: append([]string{}, paths...), Grades: grades, Scores: scores,
						NDCG5: j.NDCG5, NDCG10: j.NDCG10, RR: j.RR, Hit1: j.Hit1 == 1, Recall10: j.Recall10,
						Empty: j.Empty == 1, HubTop: j.HubTop,
					})
				}
			}
		}
	}
	return out
}

func writeRunFile(file string, run runFile) error {
	data, err := json.MarshalIndent(run, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(file, append(data, '\n'), 0o644)
}

// readRunFile reads a file written by -json, gzip-compressed if its name ends in .gz, as the
// run kept in the repository is.
func readRunFile(file string) (*runFile, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	if strings.HasSuffix(file, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		if data, err = io.ReadAll(zr); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
	}
	var run runFile
	if err := json.Unmarshal(data, &run); err != nil {
		return nil, fmt.Errorf("%s is not a file written by -json: %w", file, err)
	}
	return &run, nil
}

// change is how a query's results moved between two runs: above 0 better, below worse. The
// order decides: nDCG@5 first, then the rank of the first relevant note, then, for a query
// nothing answers, whether the list is empty.
func change(before, after record) float64 {
	const eps = 1e-9
	if d := after.NDCG5 - before.NDCG5; d > eps || d < -eps {
		return d
	}
	if d := after.RR - before.RR; d > eps || d < -eps {
		return d
	}
	if before.Category == "none" && before.Empty != after.Empty {
		if after.Empty {
			return 1
		}
		return -1
	}
	return 0
}

// compare lists, for each set, embedder and leg that both runs measured, what moved: the means
// of the answerable queries and, for the tuning part, each query that got better or worse with
// its first results before and after. The held-out part is only counted: whoever tunes search
// must not see which of its queries moved.
func compare(before *runFile, after runFile, name string) string {
	old := map[string]record{}
	for _, r := range before.Records {
		old[r.key()] = r
	}
	type group struct{ set, embedder, leg string }
	var order []group
	byGroup := map[group][]record{}
	for _, r := range after.Records {
		g := group{r.Set, r.Embedder, r.Leg}
		if _, ok := byGroup[g]; !ok {
			order = append(order, g)
		}
		byGroup[g] = append(byGroup[g], r)
	}

	var b strings.Builder
	fmt.Fprintf(&b, "\nCompared with %s (steps/%s, %s): a change is in nDCG@5, else in the rank of the first relevant note, else (for queries nothing answers) in returning nothing.\n", name, before.Step, before.Date)
	for _, g := range order {
		var pairs [][2]record
		unmatched := 0
		for _, r := range byGroup[g] {
			if o, ok := old[r.key()]; ok {
				pairs = append(pairs, [2]record{o, r})
			} else {
				unmatched++
			}
		}
		fmt.Fprintf(&b, "\n%s, %s, %s:", g.set, g.embedder, g.leg)
		if len(pairs) == 0 {
			fmt.Fprintf(&b, " not in %s\n", name)
			continue
		}
		var means []string
		for _, heldOut := range []bool{false, true} {
			var was, now []Score
			for _, p := range pairs {
				if p[1].HeldOut == heldOut && p[1].Category != "none" {
					was, now = append(was, p[0].score()), append(now, p[1].score())
				}
			}
			if len(was) == 0 {
				continue
			}
			partName := "tuning"
			if heldOut {
				partName = "held-out"
			}
			w, n := Mean(was), Mean(now)
			means = append(means, fmt.Sprintf("%s nDCG@5 %.3f → %.3f (%+.3f), Hit@1 %.2f → %.2f", partName, w.NDCG5, n.NDCG5, n.NDCG5-w.NDCG5, w.Hit1, n.Hit1))
		}
		fmt.Fprintf(&b, " %s\n", strings.Join(means, "; "))
		var better, worse []string
		heldBetter, heldWorse, same := 0, 0, 0
		slices.SortStableFunc(pairs, func(a, b [2]record) int {
			da, db := change(a[0], a[1]), change(b[0], b[1])
			switch {
			case da > db:
				return -1
			case da < db:
				return 1
			}
			return 0
		})
		for _, p := range pairs {
			d := change(p[0], p[1])
			switch {
			case d == 0:
				same++
			case p[1].HeldOut && d > 0:
				heldBetter++
			case p[1].HeldOut:
				heldWorse++
			case d > 0:
				better = append(better, describe(p[0], p[1]))
			default:
				worse = append([]string{describe(p[0], p[1])}, worse...) // the worst first
			}
		}
		if len(better)+len(worse) == 0 {
			b.WriteString("  no tuning query changed\n")
		}
		if len(better) > 0 {
			fmt.Fprintf(&b, "  better (%d):\n%s", len(better), strings.Join(better, ""))
		}
		if len(worse) > 0 {
			fmt.Fprintf(&b, "  worse (%d):\n%s", len(worse), strings.Join(worse, ""))
		}
		fmt.Fprintf(&b, "  held-out: %d better, %d worse (not listed: the held-out part checks tuning, it does not guide it); %d queries unchanged", heldBetter, heldWorse, same)
		if unmatched > 0 {
			fmt.Fprintf(&b, "; %d not in %s", unmatched, name)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func (r record) score() Score {
	s := Score{NDCG5: r.NDCG5, NDCG10: r.NDCG10, RR: r.RR, Recall10: r.Recall10}
	if r.Hit1 {
		s.Hit1 = 1
	}
	if r.Empty {
		s.Empty = 1
	}
	return s
}

// describe is one tuning query that moved: its scores and first results before and after.
func describe(before, after record) string {
	rank := func(r record) string {
		if r.RR == 0 {
			return "-"
		}
		return fmt.Sprint(int(1/r.RR + 0.5))
	}
	top := func(r record) string {
		if len(r.Results) == 0 {
			return "(nothing)"
		}
		mark := fmt.Sprint(r.Grades[0])
		if r.Grades[0] == 0 {
			mark = "."
		}
		if r.HubTop {
			mark += "H"
		}
		return fmt.Sprintf("[%s] %s", mark, r.Results[0])
	}
	if after.Category == "none" {
		return fmt.Sprintf("    %q (%s, none), which nothing answers: %d results → %d, top now %s\n",
			after.Query, after.Vault, len(before.Results), len(after.Results), top(after))
	}
	return fmt.Sprintf("    %+.2f nDCG@5 %.2f → %.2f, first relevant at %s → %s  %q (%s, %s)\n        top was %s, now %s\n",
		after.NDCG5-before.NDCG5, before.NDCG5, after.NDCG5, rank(before), rank(after), after.Query, after.Vault, after.Category,
		top(before), top(after))
}
