package store

import (
	"database/sql"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestTerms(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"Crème fraîche, at home.", []string{"creme", "fraich", "at", "home"}},
		{"Kettenverschleiß prüfen", []string{"kettenverschleiß", "prufen"}},
		{"普洱茶冲泡", []string{"普洱", "洱茶", "茶冲", "冲泡"}},
		{"花", []string{"花"}},
		{"map 并发写入", []string{"map", "并发", "发写", "写入"}},
		{"味噌を入れるタイミング", []string{"味噌", "噌を", "を入", "入れ", "れる", "るタ", "タイ", "イミ", "ミン", "ング"}},
		{"ラーメン", []string{"ラー", "ーメ", "メン"}},
		{"%% comment %%", []string{"%%", "comment", "%%"}},
		{"see ![[Cold frame]] and [[x|y]]", []string{"see", "![[", "cold", "frame", "]]", "and", "[[", "x", "|", "y", "]]"}},
		{"obsidian://open?vault=a", []string{"obsidian", "://", "open", "vault", "=", "a"}},
		{"context.WithCancel(ctx)", []string{"context", "withcancel", "ctx"}},
		{"^feeding-ratio #soil-log", []string{"^", "feed", "ratio", "#", "soil", "log"}},
		{"--background-primary", []string{"--", "background", "primari"}},
		{`"quoted" it's`, []string{"quot", "it", "s"}},
		{"snake_case 42", []string{"snake", "case", "42"}},
		{"Slugs keeps tomatoes boxes berries glass lies planting planted", []string{"slug", "keep", "tomato", "box", "berri", "glass", "lie", "plant", "plant"}},
	} {
		if got := terms(tc.text); !slices.Equal(got, tc.want) {
			t.Errorf("terms(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

// putText stores a note whose sections hold the texts given, as the parser writes them: a
// line with the title and the heading, a blank line, the body.
func putText(t *testing.T, s *Store, n Note, bodies ...string) {
	t.Helper()
	var sections []Section
	var vectors [][]float32
	for i, body := range bodies {
		heading := fmt.Sprintf("Part %d", i+1)
		sections = append(sections, Section{Heading: heading, Line: i + 1, Text: n.Title + " > " + heading + "\n\n" + body})
		vectors = append(vectors, []float32{1, float32(i), 0, 0})
	}
	if err := s.PutNote(t.Context(), n, sections, vectors); err != nil {
		t.Fatal(err)
	}
}

func keywordSearch(t *testing.T, s *Store, query string, opts Options) []Hit {
	t.Helper()
	if opts.K == 0 {
		opts.K = 10
	}
	hits, _, err := s.KeywordNotes(t.Context(), query, opts)
	if err != nil {
		t.Fatal(err)
	}
	return hits
}

func TestKeywordNotes(t *testing.T) {
	s := newIndex(t)
	putText(t, s, Note{Path: "Garden/Birds.md", Title: "Birds", Tags: []string{"garden"}},
		"Robins and blackbirds visit the feeder every morning.",
		strings.Repeat("The pond attracts many birds in spring. ", 20)+"Once a flamingo escaped from the zoo and stood in it.")
	putText(t, s, Note{Path: "Garden/Pond.md", Title: "Pond", Aliases: []string{"Water garden"}},
		"How to keep the pond clean: plants, a pump, and no fish food left over.")
	putText(t, s, Note{Path: "Kitchen/Bread.md", Title: "Bread", Tags: []string{"kitchen"}},
		"A cold frame is not an oven. Dense bread comes from a weak starter; see ![[Starter]].")
	putText(t, s, Note{Path: "茶/普洱茶冲泡.md", Title: "普洱茶冲泡"},
		"洗茶一次，水温一百度。第一泡十秒。")
	putText(t, s, Note{Path: "Notes/Frames.md", Title: "Frames"},
		"A frame for the cold months: glass on a wooden box.")

	for _, tc := range []struct {
		query string
		opts  Options
		want  []string
	}{
		// A word in one long section of one note finds that note.
		{"flamingo", Options{}, []string{"Garden/Birds.md"}},
		// The title outweighs the body.
		{"pond", Options{}, []string{"Garden/Pond.md", "Garden/Birds.md"}},
		// An alias is a name of the note.
		{"water garden", Options{}, []string{"Garden/Pond.md"}},
		// Words no note holds: nothing, not the notes that share "how" and "the".
		{"xyzzy plugh", Options{}, nil},
		{"how to renew a passport before a trip", Options{}, nil},
		// A phrase must occur as written; unquoted, both notes with the words match, the one
		// with a word in its title first.
		{`"cold frame"`, Options{}, []string{"Kitchen/Bread.md"}},
		{"cold frame", Options{}, []string{"Notes/Frames.md", "Kitchen/Bread.md"}},
		// Syntax and CJK text.
		{"![[Starter]]", Options{}, []string{"Kitchen/Bread.md"}},
		{"洗茶", Options{}, []string{"茶/普洱茶冲泡.md"}},
		{"普洱茶的水温", Options{}, []string{"茶/普洱茶冲泡.md"}},
		// Filters.
		{"pond", Options{Tag: "garden"}, []string{"Garden/Birds.md"}},
		{"pond", Options{Folder: "Kitchen"}, nil},
		{"pond", Options{K: 1}, []string{"Garden/Pond.md"}},
	} {
		if got := paths(keywordSearch(t, s, tc.query, tc.opts)); !slices.Equal(got, tc.want) {
			t.Errorf("KeywordNotes(%q, %+v) = %q, want %q", tc.query, tc.opts, got, tc.want)
		}
	}

	// The index follows renames and deletions.
	if err := s.RenameNote(t.Context(), "Garden/Pond.md", "Garden/Lake.md"); err != nil {
		t.Fatal(err)
	}
	if got := paths(keywordSearch(t, s, "lake", Options{})); !slices.Equal(got, []string{"Garden/Lake.md"}) {
		t.Errorf("after renaming Pond to Lake, lake finds %q", got)
	}
	if err := s.DeleteNote(t.Context(), "Garden/Birds.md"); err != nil {
		t.Fatal(err)
	}
	if got := paths(keywordSearch(t, s, "flamingo", Options{})); len(got) != 0 {
		t.Errorf("after deleting Birds, flamingo finds %q", got)
	}
	if err := s.Reset(t.Context(), testEmbedder); err != nil {
		t.Fatal(err)
	}
	if got := count(t, s, "word_counts"); got != 0 {
		t.Errorf("after Reset, the keyword index holds %d words", got)
	}
	checkIntegrity(t, s)
}

// One long note whose every section says the word more often than the short notes do fills
// the first hundred sections FTS5 ranks; the search must still return every note that holds
// the word, up to the limit, not just that one.
func TestKeywordNotesOneLongNoteCannotFlood(t *testing.T) {
	s := newIndex(t)
	long := make([]string, 150)
	for i := range long {
		long[i] = "zebra zebra zebra"
	}
	putText(t, s, Note{Path: "Long.md", Title: "Long"}, long...)
	for i := range 12 {
		putText(t, s, Note{Path: fmt.Sprintf("Short %02d.md", i), Title: fmt.Sprintf("Short %02d", i)},
			"A note that says zebra once, among other words about the weather and the garden.")
	}
	hits := keywordSearch(t, s, "zebra", Options{K: 10})
	if len(hits) != 10 {
		t.Fatalf("zebra with limit 10 finds %d notes, want 10: %q", len(hits), paths(hits))
	}
	if hits[0].Path != "Long.md" {
		t.Errorf("the note that says zebra most comes %q first, want Long.md", hits[0].Path)
	}
	if all := keywordSearch(t, s, `"zebra"`, Options{K: 20}); len(all) != 13 {
		t.Errorf(`"zebra" with limit 20 finds %d notes, want all 13`, len(all))
	}
}

// TestKeywordNotesStopWordsAlone: a query of English stop words that most sections hold tells
// no note from the rest, so it matches nothing, where it would otherwise match every note,
// each holding every word of the query. A stop word few sections hold still finds them, and
// a word of the vault's subject that every section holds is TestKeywordNotesOneLongNoteCannotFlood's.
func TestKeywordNotesStopWordsAlone(t *testing.T) {
	s := newIndex(t)
	for i := range 6 {
		putText(t, s, Note{Path: fmt.Sprintf("Zebra %d.md", i), Title: fmt.Sprintf("Zebra %d", i)},
			"The zebra of the plains and the herd it runs with.")
	}
	putText(t, s, Note{Path: "Rare.md", Title: "Rare"}, "Stripes, in a note of its own.")
	for _, query := range []string{"the", "the and of", "The OF"} {
		if hits := keywordSearch(t, s, query, Options{K: 10}); len(hits) != 0 {
			t.Errorf("%q, stop words six of seven sections hold, finds %q, want nothing", query, paths(hits))
		}
	}
	if hits := keywordSearch(t, s, "the zebra", Options{K: 10}); len(hits) != 6 {
		t.Errorf(`"the zebra" finds %q, want the six zebra notes`, paths(hits))
	}
	if hits := keywordSearch(t, s, `"the plains"`, Options{K: 10}); len(hits) != 6 {
		t.Errorf(`the phrase "the plains" finds %q, want the six zebra notes`, paths(hits))
	}
	if hits := keywordSearch(t, s, "in", Options{K: 10}); len(hits) != 1 || hits[0].Path != "Rare.md" {
		t.Errorf(`"in", a stop word one section holds, finds %q, want Rare.md`, paths(hits))
	}
}

// TestKeywordNotesAsDefined compares KeywordNotes, which reads only the sections that can pass
// (see keywordQuery.enough) and each once, with its definition: every section in the order FTS5
// ranks it, judged one by one, until K notes pass. On Zipf-distributed text, with queries of a
// common, a middling and a rare word as well as single words, phrases and filters, both must
// return the same notes, with the same sections and scores.
func TestKeywordNotesAsDefined(t *testing.T) {
	s := newIndex(t)
	r := rand.New(rand.NewPCG(7, 8))
	data := randomCorpus(r, 600, 4, testEmbedder.Dimension)
	for i := range data.notes {
		for j := range data.notes[i].vectors {
			data.notes[i].vectors[j] = []float32{1, 0, 0, 0}
		}
	}
	data.put(t, s)
	var queries []string
	for range 60 {
		queries = append(queries,
			fmt.Sprintf("%s %s %s", wordName(r.Uint64N(10)), wordName(100+r.Uint64N(900)), wordName(5000+r.Uint64N(vocabulary-5000))),
			fmt.Sprintf("%s %s", wordName(10+r.Uint64N(90)), wordName(10+r.Uint64N(90))),
			wordName(r.Uint64N(2000)),
			fmt.Sprintf("%s %s %s %s unheardof", wordName(r.Uint64N(50)), wordName(r.Uint64N(500)), wordName(r.Uint64N(500)), wordName(r.Uint64N(5000))),
			fmt.Sprintf(`"%s %s" %s`, wordName(r.Uint64N(5)), wordName(r.Uint64N(5)), wordName(r.Uint64N(300))),
		)
	}
	matched := 0
	for i, query := range queries {
		opts := Options{K: 1 + i%20}
		if i%3 == 0 {
			opts.Folder = fmt.Sprintf("F%d", i%folders)
		}
		got, gotShared, err := s.KeywordNotes(t.Context(), query, opts)
		if err != nil {
			t.Fatal(err)
		}
		want, wantShared := keywordNotesAsDefined(t, s, query, opts)
		if gotShared != wantShared || len(got) != len(want) {
			t.Fatalf("%q %+v: %d notes (%d words shared), want %d (%d)\n got %v\nwant %v", query, opts, len(got), gotShared, len(want), wantShared, paths(got), paths(want))
		}
		for j := range want {
			if got[j].Path != want[j].Path || got[j].Heading != want[j].Heading || math.Abs(got[j].Score-want[j].Score) > 1e-12 {
				t.Fatalf("%q %+v: #%d is %s %q (%.4f), want %s %q (%.4f)", query, opts, j,
					got[j].Path, got[j].Heading, got[j].Score, want[j].Path, want[j].Heading, want[j].Score)
			}
		}
		if len(want) > 0 {
			matched++
		}
	}
	if matched < len(queries)/3 {
		t.Errorf("only %d of %d queries found anything: the test says little", matched, len(queries))
	}
}

// keywordNotesAsDefined is KeywordNotes read off its definition, without its shortcuts.
func keywordNotesAsDefined(t *testing.T, s *Store, query string, opts Options) (hits []Hit, shared int) {
	q := parseQuery(query)
	weights, counts, sections, err := s.wordWeights(t.Context(), q.words)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range counts {
		if n > 0 {
			shared++
		}
	}
	match := q.match(counts, sections)
	if match == "" {
		return nil, shared
	}
	filter := ""
	if opts.Folder != "" {
		filter = " AND " + inFolder
	}
	rows, err := s.db.QueryContext(t.Context(), `
		SELECT n.path, n.title, n.aliases, s.heading, s.line, s.text
		FROM words JOIN sections s ON s.id = words.rowid JOIN notes n ON n.id = s.note_id
		WHERE words MATCH :match`+filter+`
		ORDER BY bm25(words, 10, 10, 3, 1), words.rowid LIMIT :limit`,
		sql.Named("match", match), sql.Named("limit", maxKeywordCandidates), sql.Named("folder", opts.Folder))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	c := newCoverage(q.words, weights)
	seen := map[string]bool{}
	for rows.Next() && len(hits) < opts.K {
		var h Hit
		var aliases string
		if err := rows.Scan(&h.Path, &h.Title, &aliases, &h.Heading, &h.Line, (*deflated)(&h.Text)); err != nil {
			t.Fatal(err)
		}
		if h.Score = c.share(h.Title + "\n" + aliases + "\n" + h.Text); seen[h.Path] || h.Score < MinCoverage {
			continue
		}
		seen[h.Path] = true
		hits = append(hits, h)
	}
	return hits, shared
}
