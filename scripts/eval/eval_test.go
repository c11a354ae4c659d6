package main

import (
	"bytes"
	"compress/gzip"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"vaultmcp/scripts/transcript"
	usestandin "vaultmcp/scripts/use-standin"
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
		// Only partly relevant answers: nDCG credits them; the figures that count relevant
		// notes have none to count.
		name:    "a query answered only in part",
		answers: map[string]int{"a.md": 1},
		results: []string{"a.md", "b.md"},
		want:    Score{NDCG5: 1, NDCG10: 1},
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
		{"no answers", `{"vault": "v", "category": "keyword", "tune": true, "query": "q", "answers": {}}`, `belongs to category "none"`},
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

	t.Run("answered only in part", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "queries.json")
		q := `{"vault": "v", "category": "keyword", "tune": true, "query": "q", "answers": {"a.md": 1}}`
		os.WriteFile(file, []byte(`{"vaults": {"v": {"dir": "v"}}, "queries": [`+q+`]}`), 0o644)
		if _, err := LoadSet(file); err != nil {
			t.Errorf("a query with only partly relevant answers was refused: %v", err)
		}
	})

	t.Run("a query twice", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "queries.json")
		q := `{"vault": "v", "category": "keyword", "tune": true, "query": "q", "answers": {"a.md": 2}}`
		os.WriteFile(file, []byte(`{"vaults": {"v": {"dir": "v"}}, "queries": [`+q+`,`+q+`]}`), 0o644)
		if _, err := LoadSet(file); err == nil || !strings.Contains(err.Error(), "twice") {
			t.Errorf("LoadSet error = %v, want one saying the query is there twice", err)
		}
	})
}

// TestQuerySets checks every set make eval reads that is in the repository: well-formed, its
// answers notes of their vaults (those of ../shared/vaults when present), about 30% held out,
// and the held-out queries last.
func TestQuerySets(t *testing.T) {
	root, err := transcript.Root()
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range defaultSets {
		t.Run(filepath.Base(file), func(t *testing.T) {
			set, err := LoadSet(filepath.Join(root, file))
			if os.IsNotExist(err) {
				t.Skipf("%s is not in the repository yet", file)
			}
			if err != nil {
				t.Fatal(err)
			}
			heldOut := 0
			for i, q := range set.Queries {
				if q.HeldOut() {
					heldOut++
				} else if heldOut > 0 {
					t.Errorf("query %d (%q) is in the tuning part but comes after held-out ones", i+1, q.Query)
				}
			}
			if share := float64(heldOut) / float64(len(set.Queries)); share < 0.25 || share > 0.35 {
				t.Errorf("%d of %d queries are held out (%.0f%%); want about 30%%", heldOut, len(set.Queries), 100*share)
			}
			for _, name := range set.VaultNames() {
				if _, err := set.VaultDir(root, name); err != nil && set.Vaults[name].Source != "" {
					t.Logf("vault %s not checked: %v", name, err)
					continue
				}
				if err := set.CheckAnswers(root, name); err != nil {
					t.Error(err)
				}
			}
		})
	}
}

// TestSetCategories checks that a set may add categories of its own, declared, and that an
// undeclared one is still refused.
func TestSetCategories(t *testing.T) {
	load := func(doc string) error {
		file := filepath.Join(t.TempDir(), "set.json")
		if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadSet(file)
		return err
	}
	q := `{"vault": "v", "category": "conceptual", "tune": true, "query": "q", "answers": {"a.md": 2}}`
	if err := load(`{"categories": ["conceptual"], "vaults": {"v": {"dir": "v"}}, "queries": [` + q + `]}`); err != nil {
		t.Errorf("a declared category: %v", err)
	}
	if err := load(`{"vaults": {"v": {"dir": "v"}}, "queries": [` + q + `]}`); err == nil || !strings.Contains(err.Error(), `name it in the set's "categories"`) {
		t.Errorf("an undeclared category: %v, want an error saying how to declare it", err)
	}
	if err := load(`{"categories": ["keyword"], "vaults": {"v": {"dir": "v"}}, "queries": []}`); err == nil {
		t.Error(`declaring "keyword", a category every set has, was accepted`)
	}

	set, err := LoadSet(filepath.Join("testdata", "tiny-set.json"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(set.CategoryOrder(), " "), "keyword paraphrase title identifier question non-english conceptual none"; got != want {
		t.Errorf("CategoryOrder = %s, want %s", got, want)
	}
}

// TestHubs checks the hub definition on notes made for it, and on the tiny test vault, whose
// index is its one hub.
func TestHubs(t *testing.T) {
	for _, tt := range []struct {
		shape noteShape
		hub   bool
	}{
		{noteShape{Links: 12, Words: 5000}, true},  // many links, whatever the length
		{noteShape{Links: 11, Words: 5000}, false}, // fewer, in a long note
		{noteShape{Links: 8, Words: 200}, true},    // 40 per 1,000 words
		{noteShape{Links: 8, Words: 201}, false},
		{noteShape{Links: 7, Words: 10}, false}, // too few, however short
		{noteShape{Links: 8, Words: 0}, true},   // nothing but links
	} {
		if got := tt.shape.Hub(); got != tt.hub {
			t.Errorf("%+v: Hub() = %v, want %v", tt.shape, got, tt.hub)
		}
	}

	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("Cube.js.md", "a note whose name has a dot")
	write("a/Target.md", "x")
	// Counted: Target (three ways, once), Cube.js (a note), Missing (no file yet), related
	// (frontmatter). Not counted: the picture, the PDF, this note by name or heading, the web.
	write("Links.md", "---\nrelated: \"[[Related]]\"\n---\n[[Target]] [[a/Target|again]] [t](a/Target.md) [[Cube.js]] [[Missing]]\n"+
		"![[photo.png]] [doc](file.pdf) [[#Heading]] [[Links#Heading]] [web](https://example.com)\n")
	shapes, err := readShapes(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := shapes["Links.md"]; got.Links != 4 || got.Words == 0 || got.Sections == 0 {
		t.Errorf("Links.md: %+v, want 4 links (Target, Cube.js, Missing, Related), words and sections", got)
	}

	tiny, err := readShapes(filepath.Join("testdata", "tiny-vault"))
	if err != nil {
		t.Fatal(err)
	}
	for path, shape := range tiny {
		if shape.Hub() != (path == "Index.md") {
			t.Errorf("%s: %+v, hub %v; want only Index.md to be a hub", path, shape, shape.Hub())
		}
	}
}

// TestIndexFile checks the cache of indexes: kept for the same build of the step, emptied for
// another, never kept without a cache.
func TestIndexFile(t *testing.T) {
	cache, work := t.TempDir(), t.TempDir()
	db, fresh, err := indexFile(cache, work, "10-reconcile", "use-lite", "sample", "build-1")
	if err != nil || !fresh {
		t.Fatalf("first use: %s, fresh %v, %v; want a fresh index", db, fresh, err)
	}
	for _, f := range []string{db, db + "-wal", db + ".lock"} {
		os.WriteFile(f, []byte("x"), 0o644) // as the server and SQLite leave them
	}
	if again, fresh, err := indexFile(cache, work, "10-reconcile", "use-lite", "sample", "build-1"); err != nil || fresh || again != db {
		t.Errorf("the same build: %s, fresh %v, %v; want %s kept", again, fresh, err, db)
	}
	if _, fresh, err := indexFile(cache, work, "10-reconcile", "use-lite", "sample", "build-2"); err != nil || !fresh {
		t.Errorf("another build: fresh %v, %v; want a fresh index", fresh, err)
	}
	for _, f := range []string{db, db + "-wal", db + ".lock"} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("%s is still there after another build", f)
		}
	}
	if other, _, _ := indexFile(cache, work, "10-reconcile", "offline", "sample", "build-2"); other == db {
		t.Error("two embedders share an index file")
	}
	if db, fresh, err := indexFile("", work, "10-reconcile", "use-lite", "sample", "build-1"); err != nil || !fresh || !strings.HasPrefix(db, work) {
		t.Errorf("without a cache: %s, fresh %v, %v; want a fresh index in the work folder", db, fresh, err)
	}
}

// testReport is a report over two small sets, as run would make it: one offline embedder, two
// legs, a hub note.
func testReport() *report {
	tune, hold := true, false
	first := &Set{
		File:   "/repo/scripts/eval/first.json",
		Vaults: map[string]Vault{"v": {Dir: "v"}},
		Queries: []Query{
			{Vault: "v", Category: "keyword", Tune: &tune, Query: "tuned", Answers: map[string]int{"a.md": 2}},
			{Vault: "v", Category: "keyword", Tune: &hold, Query: "secret", Answers: map[string]int{"a.md": 2}},
			{Vault: "v", Category: "none", Tune: &tune, Query: "xyzzy"},
		},
	}
	second := &Set{
		File:       "/repo/scripts/eval/second.json",
		Categories: []string{"conceptual"},
		Vaults:     map[string]Vault{"v": {Dir: "v"}},
		Queries: []Query{
			{Vault: "v", Category: "conceptual", Tune: &tune, Query: "an idea", Answers: map[string]int{"b.md": 2, "hub.md": 1}},
		},
	}
	res := newResults()
	res.add("offline", "vector", 0, 0, []string{"b.md", "a.md"})
	res.add("offline", "vector", 0, 1, []string{"a.md"})
	res.add("offline", "vector", 0, 2, nil)
	res.add("offline", "keyword", 0, 0, []string{"a.md"})
	res.add("offline", "keyword", 0, 1, nil)
	res.add("offline", "keyword", 0, 2, []string{"c.md"})
	res.add("offline", "vector", 1, 0, []string{"b.md"})
	res.add("offline", "keyword", 1, 0, []string{"hub.md", "b.md"}) // a hub graded 1 first
	return &report{
		Step: "10-reconcile", Results: res, Vaults: []string{"v"},
		Suite:     &suite{Sets: []*Set{first, second}, Vaults: first.Vaults},
		Embedders: []embedder{{Name: "offline", About: "the offline embedder"}},
		Legs:      []leg{{Name: "vector"}, {Name: "keyword"}},
		Shapes:    map[string]map[string]noteShape{"v": {"a.md": {}, "b.md": {}, "hub.md": {Links: 20}}},
	}
}

// TestReport checks the shape of the report: each set has its summary by part and leg and its
// tables by category; each leg is one more set of columns; "none" is scored by its empty rate
// alone; a hub first counts; and the held-out part is never listed query by query.
func TestReport(t *testing.T) {
	r := testReport()
	md := r.Markdown()
	for _, want := range []string{
		"### first.json\n\n3 queries ([first.json](scripts/eval/first.json)).",
		"Tuning part, 1 answerable queries and 1 that nothing answers:",
		"| embedder | leg | nDCG@5 | Hit@1 | MRR | R@10 | empty on none | hub@1 |",
		// "tuned" finds a.md second with vector, first with keyword; "xyzzy" gets the empty
		// list it deserves from vector, a result from keyword.
		"| offline | vector | 0.631 | 0.00 | 0.500 | 1.00 | 1.00 | 0.00 |",
		"| offline | keyword | 1.000 | 1.00 | 1.000 | 1.00 | 0.00 | 0.00 |",
		"Held-out part, 1 answerable queries and 0 that nothing answers:",
		"| offline | keyword | 0.000 | 0.00 | 0.000 | 0.00 | - | 0.00 |",
		"<details><summary>first.json by category of query",
		"| category | n | vector nDCG@5 | vector nDCG@10 | vector MRR | vector Hit@1 | vector R@10 | vector empty | keyword nDCG@5 | keyword nDCG@10 | keyword MRR | keyword Hit@1 | keyword R@10 | keyword empty |",
		"| keyword | 1 | 0.63 | 0.63 | 0.50 | 0.00 | 1.00 | 0.00 | 1.00 | 1.00 | 1.00 | 1.00 | 1.00 | 0.00 |",
		"| none | 1 |  |  |  |  |  | 1.00 |  |  |  |  |  | 0.00 |",
		"first.json, the offline embedder, held-out part (1 queries):",
		"| keyword | 1 | 1.00 | 1.00 | 1.00 | 1.00 | 1.00 | 0.00 | 0.00 | 0.00 | 0.00 | 0.00 | 0.00 | 1.00 |",
		// The second set, apart, with its own category; the hub graded 1 first counts.
		"### second.json",
		"| offline | keyword | 0.860 | 0.00 | 0.500 | 1.00 | - | 1.00 |",
		"| conceptual | 1 |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the Markdown report lacks\n%s\nreport:\n%s", want, md)
		}
	}
	if got := thousands(1187) + " " + thousands(123) + " " + thousands(1234567); got != "1,187 123 1,234,567" {
		t.Errorf("thousands: %s", got)
	}
	if strings.Contains(md, "USE-lite") {
		t.Errorf("the note on USE-lite is there without USE-lite:\n%s", md)
	}
	r.Embedders = append(r.Embedders, embedder{Name: "use-lite", About: "USE-lite"})
	if md := r.Markdown(); strings.Count(md, useLiteNote) != 2 {
		t.Errorf("the note on USE-lite should follow each set's summary:\n%s", md)
	}
	r.Embedders = r.Embedders[:1]

	text := r.Text()
	for _, want := range []string{"=== first.json ===", "=== second.json ===", "hub@1", "keyword", "vector"} {
		if !strings.Contains(text, want) {
			t.Errorf("the text report lacks %q:\n%s", want, text)
		}
	}
	details := r.Details()
	if !strings.Contains(details, `"tuned"`) || strings.Contains(details, "secret") {
		t.Errorf("the details should list the tuning query and never the held-out one:\n%s", details)
	}
	if !strings.Contains(details, "1H hub.md") || !strings.Contains(details, "hub.md (20 links, 0 words)") {
		t.Errorf("the details should mark and list the hub:\n%s", details)
	}
}

// TestCompare checks -compare on two runs of the test report: a tuning query that got worse
// is listed with its results, a held-out one only counted.
func TestCompare(t *testing.T) {
	before := testReport().Records()
	r := testReport()
	r.Results.add("offline", "keyword", 0, 0, []string{"hub.md", "a.md"}) // "tuned" loses its first place to the hub
	r.Results.add("offline", "keyword", 0, 1, []string{"a.md"})           // "secret", held out, is found now
	r.Results.add("offline", "vector", 0, 2, []string{"a.md"})            // "xyzzy" is no longer empty
	out := compare(&before, r.Records(), "before.json")
	for _, want := range []string{
		"first.json, offline, keyword: tuning nDCG@5 1.000 → 0.631 (-0.369)",
		"held-out nDCG@5 0.000 → 1.000 (+1.000)",
		"worse (1):\n    -0.37 nDCG@5 1.00 → 0.63, first relevant at 1 → 2  \"tuned\" (v, keyword)\n        top was [2] a.md, now [.H] hub.md",
		"held-out: 1 better, 0 worse",
		"first.json, offline, vector:",
		"worse (1):\n    \"xyzzy\" (v, none), which nothing answers: 0 results → 1, top now [.] a.md",
		"second.json, offline, vector: tuning nDCG@5 0.760 → 0.760 (+0.000), Hit@1 1.00 → 1.00\n  no tuning query changed",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the comparison lacks\n%s\ncomparison:\n%s", want, out)
		}
	}
	if strings.Contains(out, "secret") {
		t.Errorf("the comparison names a held-out query:\n%s", out)
	}

	file := filepath.Join(t.TempDir(), "run.json")
	if err := writeRunFile(file, before); err != nil {
		t.Fatal(err)
	}
	read, err := readRunFile(file)
	if err != nil || len(read.Records) != len(before.Records) {
		t.Fatalf("readRunFile: %d records, %v; want %d", len(read.Records), err, len(before.Records))
	}
	if again := compare(read, before, "run.json"); listed.MatchString(again) {
		t.Errorf("a run compared with itself has changes:\n%s", again)
	}
}

// TestBefore checks the kept run's tables beside a set's own: computed from its records, over
// the vaults that ran only, dated, and said in the section; read from a gzip file as from a
// plain one. It also checks the count of full matches, from the keyword leg's scores.
func TestBefore(t *testing.T) {
	kept := testReport().Records()
	kept.Date, kept.About = "2026-12-03T08:30:21Z", "the ranking of the day before."
	// A query the set no longer holds is left out of the kept run's tables, and so is a vault
	// that did not run this time.
	for _, vault := range []string{"v", "elsewhere"} {
		kept.Records = append(kept.Records, record{Set: "first.json", Vault: vault, Query: "gone", Category: "keyword",
			Embedder: "offline", Leg: "keyword", Results: []string{"x.md"}, Grades: []int{2}, NDCG5: 1, RR: 1, Hit1: true})
	}
	dir := t.TempDir()
	plain, zipped := filepath.Join(dir, "kept.json"), filepath.Join(dir, "kept.json.gz")
	if err := writeRunFile(plain, kept); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(plain)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(data)
	zw.Close()
	os.WriteFile(zipped, gz.Bytes(), 0o644)
	read, err := readRunFile(zipped)
	if err != nil || read.About != kept.About || len(read.Records) != len(kept.Records) {
		t.Fatalf("readRunFile(%s): %+v, %v", zipped, read, err)
	}

	r := testReport()
	r.Before, r.BeforeFile = read, "testdata/kept.json.gz"
	r.Results.add("offline", "keyword", 0, 0, []string{"a.md"}, 1) // "tuned": every word in a.md, the answer
	md := r.Markdown()
	for _, want := range []string{
		"Before the ranking changes of 2026-12-03, tuning part, 1 answerable queries and 1 that nothing answers:\n\n| embedder | leg |",
		"Before the ranking changes of 2026-12-03, held-out part, 1 answerable queries and 0 that nothing answers:",
		"Full matches, tuning part: for 1 of the 1 answerable queries, the keyword leg's first note holds every word of the query (score 1); it is relevant for 1 of them (1.00), and the vector leg's first note for 0 with offline (0.00).",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the Markdown report lacks\n%s\nreport:\n%s", want, md)
		}
	}
	// The same results as this run's: each row twice, now and before.
	if n := strings.Count(md, "| offline | keyword | 1.000 | 1.00 | 1.000 | 1.00 | 0.00 | 0.00 |"); n != 2 {
		t.Errorf("the keyword row of first.json's tuning part appears %d times, want 2 (the query gone must not count):\n%s", n, md)
	}
	if strings.Contains(md, "Full matches, held-out part: for 1") {
		t.Errorf("a held-out query without scores counted as a full match:\n%s", md)
	}
	if text := r.Text(); !strings.Contains(text, "Before the ranking changes of 2026-12-03, tuning part, 1 answerable queries and 1 that nothing answers (testdata/kept.json.gz)") {
		t.Errorf("the text report lacks the kept run:\n%s", text)
	}
	r.Date = "2026-12-04"
	if section := r.Section(); !strings.Contains(section, "are the same queries as search answered them then: the ranking of the day before.") ||
		!strings.Contains(section, "go run ./scripts/eval -compare testdata/kept.json.gz") {
		t.Errorf("the section does not say what the kept run measured:\n%s", section)
	}
	r.Before = nil
	if md := r.Markdown(); strings.Contains(md, "Before the ranking changes") {
		t.Errorf("a kept run is shown without one:\n%s", md)
	}
}

// listed matches the head of a list of queries that got better or worse, in a comparison.
var listed = regexp.MustCompile(`(better|worse) \(\d+\):`)

// TestRun runs the eval as make eval does, with two sets and one that is absent, over the
// sample vault and the tiny test vault, with the offline embedder and the lexical Ollama
// stand-in: it builds the last step, serves the vaults, asks over MCP, writes every query's
// results and the section, then runs again against the saved results. It checks the shape of
// what comes out, not the figures, which change whenever search does.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	queries := filepath.Join(dir, "queries.json")
	os.WriteFile(queries, []byte(`{"vaults": {"sample": {"dir": "sample-vault"}}, "queries": [
		{"vault": "sample", "category": "keyword", "tune": true, "query": "hooch", "answers": {"Kitchen/Bread/Sourdough starter.md": 2}},
		{"vault": "sample", "category": "none", "tune": false, "query": "xyzzy plugh", "answers": {}}]}`), 0o644)
	tiny, err := filepath.Abs(filepath.Join("testdata", "tiny-set.json"))
	if err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "blind.json")
	report := filepath.Join(dir, "BENCHMARKS.md")
	os.WriteFile(report, []byte("# Benchmarks\n\n## Every result\n"), 0o644)
	saved := filepath.Join(dir, "run.json")

	var stdout, stderr strings.Builder
	err = run(t.Context(), []string{"eval", "-set", queries + "," + tiny + "," + missing, "-embedder", "offline,ollama",
		"-cache", filepath.Join(dir, "cache"), "-json", saved, "-write", report, "-v"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{
		"=== queries.json ===", "=== tiny-set.json ===",
		"queries.json, the offline embedder, tuning part (1 queries)",
		"tiny-set.json, the Ollama client and the lexical Ollama stand-in, held-out part (2 queries)",
		"conceptual", "keyword", "none", "vector", "hub@1",
		`"hooch"`, `"windowpane test"`, // -v lists the tuning queries
		"tiny: 1 of 4 notes\n  Index.md",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "xyzzy") || strings.Contains(out, "paperwork") {
		t.Errorf("-v listed a held-out query:\n%s", out)
	}
	if !strings.Contains(stderr.String(), "skipping the query set "+missing+": there is no such file") {
		t.Errorf("the absent set was not reported as skipped:\n%s", stderr.String())
	}
	// -write needs use-lite, which this run left out.
	if !strings.Contains(stderr.String(), "not updated: embedder use-lite did not run") {
		t.Errorf("the section was written without use-lite:\n%s", stderr.String())
	}
	// The indexes are kept for the next run of the same build.
	for _, e := range []string{"offline", "ollama"} {
		for _, v := range []string{"sample", "tiny"} {
			if _, err := os.Stat(filepath.Join(dir, "cache", "eval-index", "10-reconcile", e, v+".db")); err != nil {
				t.Errorf("no cached index for %s, %s: %v", e, v, err)
			}
		}
	}

	stdout.Reset()
	stderr.Reset()
	err = run(t.Context(), []string{"eval", "-set", queries + "," + tiny, "-embedder", "offline",
		"-cache", filepath.Join(dir, "cache"), "-compare", saved}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("second run: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "Compared with "+saved) || !strings.Contains(stdout.String(), "tiny-set.json, offline, hybrid:") {
		t.Errorf("the second run did not compare with the first:\n%s", stdout.String())
	}
	if listed.MatchString(stdout.String()) {
		t.Errorf("the same step on the same notes ranked differently:\n%s", stdout.String())
	}
}

// TestRunUseLite runs the eval with USE-lite over the tiny vault twice on one cache, and
// writes the section: the first run embeds the notes with the model, the second embeds
// nothing. Without node or the model's packages it skips, naming the command that installs
// them; in CI, which installs them, it fails instead.
func TestRunUseLite(t *testing.T) {
	needUseLite(t)
	dir := t.TempDir()
	tiny, err := filepath.Abs(filepath.Join("testdata", "tiny-set.json"))
	if err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(dir, "BENCHMARKS.md")
	os.WriteFile(report, []byte("# Benchmarks\n\n## Every result\n"), 0o644)
	embedded := regexp.MustCompile(`the USE-lite stand-in embedded (\d+) texts with the model and took (\d+) from its cache`)
	for i, want := range []string{"first", "second"} {
		var stdout, stderr strings.Builder
		err := run(t.Context(), []string{"eval", "-set", tiny, "-cache", filepath.Join(dir, "cache"), "-write", report}, &stdout, &stderr)
		if err != nil {
			t.Fatalf("%s run: %v\n%s", want, err, stderr.String())
		}
		m := embedded.FindStringSubmatch(stderr.String())
		switch {
		case m == nil:
			t.Fatalf("%s run: the stand-in's counts are not in the log:\n%s", want, stderr.String())
		case i == 0 && m[1] == "0":
			t.Errorf("the first run embedded nothing:\n%s", stderr.String())
		case i == 1 && m[1] != "0":
			t.Errorf("the second run embedded %s texts again; want none:\n%s", m[1], stderr.String())
		}
		if !strings.Contains(stdout.String(), "tiny-set.json, USE-lite, a real model, through the Ollama client, tuning part") {
			t.Errorf("%s run: no USE-lite table:\n%s", want, stdout.String())
		}
	}
	written, _ := os.ReadFile(report)
	for _, want := range []string{"<!-- begin eval -->\n## Search quality", "<!-- end eval -->\n\n## Every result", "| use-lite | hybrid |", useLiteNote,
		"in which USE-lite embedded 0 texts"} {
		if !strings.Contains(string(written), want) {
			t.Errorf("the section lacks %q:\n%s", want, written)
		}
	}
}

// needUseLite returns the repository's root, and skips the test when node or USE-lite's
// packages are missing, naming the command that installs them; in CI, which installs them, it
// fails instead.
func needUseLite(t *testing.T) (root string) {
	t.Helper()
	root, err := transcript.Root()
	if err != nil {
		t.Fatal(err)
	}
	if err := usestandin.Installed(root); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%v (CI must run this check)", err)
		}
		t.Skip(err)
	}
	return root
}
