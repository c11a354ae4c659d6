package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"vaultmcp/scripts/transcript"
)

// TestJudge checks each figure against values worked out by hand. log2(3) = 1.58496, so a
// grade-2 note at rank 2 gains 2/1.58496 = 1.26186 and a grade-1 note there 0.63093.
func TestJudge(t *testing.T) {
	tests := []struct {
		name    string
		answers map[string]int
		results []string
		want    Score
	}{{
		name:    "perfect",
		answers: map[string]int{"a.md": 2, "b.md": 1},
		results: []string{"a.md", "b.md"},
		want:    Score{NDCG5: 1, NDCG10: 1, RR: 1, Hit1: 1, Recall10: 1},
	}, {
		// DCG 1/1 + 2/1.58496 = 2.26186; ideal 2/1 + 1/1.58496 = 2.63093; nDCG 0.85972.
		// The first relevant note is second: RR 1/2, no hit at 1, all of it recalled.
		name:    "the partly relevant note first",
		answers: map[string]int{"a.md": 2, "b.md": 1},
		results: []string{"b.md", "a.md", "c.md"},
		want:    Score{NDCG5: 0.85972, NDCG10: 0.85972, RR: 0.5, Hit1: 0, Recall10: 1},
	}, {
		// Grades 0 1 2 0 0 0 1. DCG@5 1/1.58496 + 2/2 = 1.63093; ideal (2 1 1)
		// 2 + 0.63093 + 1/2 = 3.13093; nDCG@5 0.52091. DCG@10 adds 1/log2(8) = 0.33333:
		// 1.96426/3.13093 = 0.62737. The relevant note is third: RR 1/3.
		name:    "answers lower down",
		answers: map[string]int{"a.md": 2, "b.md": 1, "c.md": 1},
		results: []string{"x.md", "c.md", "a.md", "y.md", "z.md", "w.md", "b.md"},
		want:    Score{NDCG5: 0.52091, NDCG10: 0.62737, RR: 1.0 / 3, Recall10: 1},
	}, {
		// Only a, at rank 7: nDCG@5 0; nDCG@10 (2/log2(8)) / (2 + 2/1.58496) = 0.66667/3.26186
		// = 0.20438. One of two relevant notes found: recall 0.5.
		name:    "half the relevant notes, at rank 7",
		answers: map[string]int{"a.md": 2, "b.md": 2},
		results: []string{"1.md", "2.md", "3.md", "4.md", "5.md", "6.md", "a.md", "8.md", "9.md", "10.md"},
		want:    Score{NDCG10: 0.20438, RR: 1.0 / 7, Recall10: 0.5},
	}, {
		name:    "past the tenth result nothing counts",
		answers: map[string]int{"a.md": 2},
		results: []string{"1.md", "2.md", "3.md", "4.md", "5.md", "6.md", "7.md", "8.md", "9.md", "10.md", "a.md"},
		want:    Score{},
	}, {
		name:    "a note that comes again counts once",
		answers: map[string]int{"a.md": 2, "b.md": 2},
		results: []string{"a.md", "a.md", "b.md"},
		want:    Score{NDCG5: 1, NDCG10: 1, RR: 1, Hit1: 1, Recall10: 1},
	}, {
		name:    "no results",
		answers: map[string]int{"a.md": 2},
		results: nil,
		want:    Score{Empty: 1},
	}, {
		name:    "nothing relevant, and nothing returned",
		answers: map[string]int{},
		results: nil,
		want:    Score{Empty: 1},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Judge(tt.answers, tt.results); !near(got, tt.want) {
				t.Errorf("Judge = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestMean(t *testing.T) {
	got := Mean([]Score{{NDCG5: 1, RR: 1, Hit1: 1}, {NDCG5: 0.5, RR: 0.25, Empty: 1}})
	want := Score{NDCG5: 0.75, RR: 0.625, Hit1: 0.5, Empty: 0.5}
	if !near(got, want) {
		t.Errorf("Mean = %+v, want %+v", got, want)
	}
	if got := Mean(nil); got != (Score{}) {
		t.Errorf("Mean(nil) = %+v, want zeros", got)
	}
}

func near(a, b Score) bool {
	x := []float64{a.NDCG5, a.NDCG10, a.RR, a.Hit1, a.Recall10, a.Empty}
	y := []float64{b.NDCG5, b.NDCG10, b.RR, b.Hit1, b.Recall10, b.Empty}
	for i := range x {
		if math.Abs(x[i]-y[i]) > 5e-6 {
			return false
		}
	}
	return true
}

// TestQuerySet checks queries.json: well-formed (LoadSet), big enough, every category with
// enough queries and about 30% of each held out, CJK among the non-English queries, and every
// answer a note of its vault. The vaults of ../shared/vaults are checked when present.
func TestQuerySet(t *testing.T) {
	root, err := transcript.Root()
	if err != nil {
		t.Fatal(err)
	}
	set, err := LoadSet(filepath.Join(root, "scripts", "eval", "queries.json"))
	if err != nil {
		t.Fatal(err)
	}
	answerable, cjk := 0, 0
	perCategory := map[string]int{}
	heldOut := map[string]int{}
	for _, q := range set.Queries {
		perCategory[q.Category]++
		if q.HeldOut() {
			heldOut[q.Category]++
		}
		if q.Category != "none" {
			answerable++
		}
		if strings.IndexFunc(q.Query, isCJK) >= 0 {
			cjk++
		}
	}
	if answerable < 90 {
		t.Errorf("%d queries have answers; the set needs at least 90", answerable)
	}
	if cjk < 10 {
		t.Errorf("%d queries are in Chinese or Japanese; want at least 10", cjk)
	}
	for _, c := range Categories {
		least := 10
		if c == "none" {
			least = 5
		}
		if perCategory[c] < least {
			t.Errorf("category %s has %d queries; want at least %d", c, perCategory[c], least)
		}
		if share := float64(heldOut[c]) / float64(perCategory[c]); share < 0.25 || share > 0.35 {
			t.Errorf("category %s holds out %d of %d queries (%.0f%%); want about 30%%", c, heldOut[c], perCategory[c], 100*share)
		}
	}
	// The held-out queries come last, so that whoever tunes can stop reading at the first.
	for i := 1; i < len(set.Queries); i++ {
		if set.Queries[i-1].HeldOut() && !set.Queries[i].HeldOut() {
			t.Errorf("query %d (%q) is in the tuning part but comes after held-out ones", i+1, set.Queries[i].Query)
			break
		}
	}

	for name, v := range set.Vaults {
		t.Run(name, func(t *testing.T) {
			if _, err := set.VaultDir(root, name); err != nil && v.Source != "" {
				t.Skip(err)
			}
			if err := set.CheckAnswers(root, name); err != nil {
				t.Error(err)
			}
		})
	}
}

func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// TestLoadSetRejects shows that each kind of mistake in a query set is caught, and named.
func TestLoadSetRejects(t *testing.T) {
	tests := []struct{ name, query, want string }{
		{"unknown vault", `{"vault": "other", "category": "keyword", "tune": true, "query": "q", "answers": {"a.md": 2}}`, "unknown vault"},
		{"unknown category", `{"vault": "v", "category": "keywords", "tune": true, "query": "q", "answers": {"a.md": 2}}`, `unknown category "keywords"`},
		{"no tune", `{"vault": "v", "category": "keyword", "query": "q", "answers": {"a.md": 2}}`, `no "tune"`},
		{"bad grade", `{"vault": "v", "category": "keyword", "tune": true, "query": "q", "answers": {"a.md": 3}}`, "grade 3"},
		{"no relevant answer", `{"vault": "v", "category": "keyword", "tune": true, "query": "q", "answers": {"a.md": 1}}`, "no answer of grade 2"},
		{"none with answers", `{"vault": "v", "category": "none", "tune": true, "query": "q", "answers": {"a.md": 2}}`, "the empty list"},
		{"empty query", `{"vault": "v", "category": "keyword", "tune": true, "query": " ", "answers": {"a.md": 2}}`, "the query is empty"},
		{"misspelt field", `{"vault": "v", "category": "keyword", "tune": true, "query": "q", "answer": {"a.md": 2}}`, `unknown field "answer"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "queries.json")
			doc := `{"vaults": {"v": {"dir": "v"}}, "queries": [` + tt.query + `]}`
			if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := LoadSet(file)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("LoadSet error = %v, want one saying %q", err, tt.want)
			}
		})
	}

	t.Run("a query twice", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "queries.json")
		q := `{"vault": "v", "category": "keyword", "tune": true, "query": "q", "answers": {"a.md": 2}}`
		os.WriteFile(file, []byte(`{"vaults": {"v": {"dir": "v"}}, "queries": [`+q+`,`+q+`]}`), 0o644)
		if _, err := LoadSet(file); err == nil || !strings.Contains(err.Error(), "twice") {
			t.Errorf("LoadSet error = %v, want one saying the query is there twice", err)
		}
	})
}

// TestReport checks the shape of the report: each leg is one more set of columns, "none" is
// scored by its empty rate alone, and the held-out part is never listed query by query.
func TestReport(t *testing.T) {
	tune, hold := true, false
	set := &Set{
		Vaults: map[string]Vault{"v": {Dir: "v"}},
		Queries: []Query{
			{Vault: "v", Category: "keyword", Tune: &tune, Query: "tuned", Answers: map[string]int{"a.md": 2}},
			{Vault: "v", Category: "keyword", Tune: &hold, Query: "secret", Answers: map[string]int{"a.md": 2}},
			{Vault: "v", Category: "none", Tune: &tune, Query: "xyzzy"},
		},
	}
	res := newResults()
	res.add("offline", "vector", 0, []string{"b.md", "a.md"})
	res.add("offline", "vector", 1, []string{"a.md"})
	res.add("offline", "vector", 2, nil)
	res.add("offline", "keyword", 0, []string{"a.md"})
	res.add("offline", "keyword", 1, nil)
	res.add("offline", "keyword", 2, []string{"c.md"})
	r := report{
		Step: "10-reconcile", Set: set, Results: res, Vaults: []string{"v"},
		Embedders: []embedder{{Name: "offline", About: "the offline embedder"}},
		Legs:      []leg{{Name: "vector"}, {Name: "keyword"}},
	}

	md := r.Markdown()
	for _, want := range []string{
		"| category | n | vector nDCG@5 | vector nDCG@10 | vector MRR | vector Hit@1 | vector R@10 | vector empty | keyword nDCG@5 | keyword nDCG@10 | keyword MRR | keyword Hit@1 | keyword R@10 | keyword empty |",
		// Tuning part: "tuned" finds a.md second with vector (MRR 0.50), first with keyword.
		"| keyword | 1 | 0.63 | 0.63 | 0.50 | 0.00 | 1.00 | 0.00 | 1.00 | 1.00 | 1.00 | 1.00 | 1.00 | 0.00 |",
		// "xyzzy" gets the empty list it deserves from vector, a result from keyword.
		"| none | 1 |  |  |  |  |  | 1.00 |  |  |  |  |  | 0.00 |",
		"The offline embedder, held-out part (1 queries):",
		"| keyword | 1 | 1.00 | 1.00 | 1.00 | 1.00 | 1.00 | 0.00 | 0.00 | 0.00 | 0.00 | 0.00 | 0.00 | 1.00 |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the Markdown report lacks\n%s\nreport:\n%s", want, md)
		}
	}
	if text := r.Text(); !strings.Contains(text, "keyword") || !strings.Contains(text, "vector") {
		t.Errorf("the text report does not name both legs:\n%s", text)
	}
	details := r.Details()
	if !strings.Contains(details, `"tuned"`) || strings.Contains(details, "secret") {
		t.Errorf("the details should list the tuning query and never the held-out one:\n%s", details)
	}
}

// TestRun runs the eval as make eval does, on two queries over the sample vault, with both
// embedders: it builds the last step, serves the vault, asks over MCP and writes the section.
// It checks the shape of what comes out, not the figures, which change whenever search does.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	queries := filepath.Join(dir, "queries.json")
	os.WriteFile(queries, []byte(`{"vaults": {"sample": {"dir": "sample-vault"}}, "queries": [
		{"vault": "sample", "category": "keyword", "tune": true, "query": "hooch", "answers": {"Kitchen/Bread/Sourdough starter.md": 2}},
		{"vault": "sample", "category": "none", "tune": false, "query": "xyzzy plugh", "answers": {}}]}`), 0o644)
	report := filepath.Join(dir, "BENCHMARKS.md")
	os.WriteFile(report, []byte("# Benchmarks\n\n## Every result\n"), 0o644)

	var stdout, stderr strings.Builder
	err := run(t.Context(), []string{"eval", "-queries", queries, "-write", report, "-v"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{
		"the offline embedder, tuning part (1 queries)",
		"the Ollama client and the Ollama stand-in, held-out part (1 queries)",
		"keyword", "none", "vector",
		`"hooch"`, // -v lists the tuning query
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "xyzzy") {
		t.Errorf("-v listed a held-out query:\n%s", out)
	}
	written, _ := os.ReadFile(report)
	if !strings.Contains(string(written), "<!-- begin eval -->\n## Search quality") ||
		!strings.Contains(string(written), "<!-- end eval -->\n\n## Every result") {
		t.Errorf("the section was not written before the list of every result:\n%s", written)
	}
}
