package links_test

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"vaultmcp/shared/links"
	"vaultmcp/shared/markdown"
	"vaultmcp/shared/store"
	"vaultmcp/shared/testvaults"
)

// The stored graph answers as the graph in memory does, which the answer keys check, after
// every change of the random sequence TestRandomUpdates uses.
func TestStoredRandomUpdates(t *testing.T) {
	ctx := t.Context()
	notes := map[string]string{}
	stored := newStored(t, notes)
	g := links.New()
	next := randomChanges(rand.New(rand.NewPCG(1, 2)))
	for i := range 500 {
		c := next()
		var err error
		switch c.op {
		case "set":
			set(g, c.path, c.content)
			err = stored.Set(ctx, c.path, c.content, markdown.Parse(c.path, c.content))
		case "remove":
			g.Remove(c.path)
			err = stored.Remove(ctx, c.path)
		case "rename":
			g.Rename(c.path, c.to)
			err = stored.Rename(ctx, c.path, c.to)
		}
		if err != nil {
			t.Fatalf("operation %d, %s: %v", i, c, err)
		}
		c.apply(notes)
		paths := append(allPaths(notes), "Ideas.md", "A/Plan.md")
		if got, want := storedSnapshot(t, stored, paths), snapshotOf(g, paths); !reflect.DeepEqual(got, want) {
			t.Fatalf("after operation %d, %s:\n stored    %+v\n in memory %+v", i, c, got, want)
		}
	}
	onDisk, err := stored.Notes(ctx)
	if slices.Sort(onDisk); err != nil || !slices.Equal(onDisk, allPaths(notes)) {
		t.Errorf("Notes() = %v, %v; want %v", onDisk, err, allPaths(notes))
	}
}

// Within one SetMany, a note's links see the notes set before and after it in the batch, by
// name and by alias, as if each had been set alone.
func TestStoredSetManySeesItsOwnNotes(t *testing.T) {
	notes := map[string]string{
		"A.md":       "[[B]] and [[Levain]]",
		"B.md":       "[[A]]",
		"Starter.md": "---\naliases: [Levain]\n---\n",
	}
	stored := newStored(t, notes)
	var batch []links.Source
	for _, p := range []string{"A.md", "B.md", "Starter.md"} {
		batch = append(batch, links.Source{Path: p, Content: notes[p], Parsed: markdown.Parse(p, notes[p])})
	}
	if err := stored.SetMany(t.Context(), batch); err != nil {
		t.Fatal(err)
	}
	paths := allPaths(notes)
	if got, want := storedSnapshot(t, stored, paths), snapshotOf(build(notes), paths); !reflect.DeepEqual(got, want) {
		t.Errorf("after SetMany:\n stored    %+v\n in memory %+v", got, want)
	}

	// The starter drops its alias, and a note of the same batch looks for it after.
	notes["Starter.md"], notes["C.md"] = "no aliases now", "[[Levain]]"
	batch = nil
	for _, p := range []string{"Starter.md", "C.md"} {
		batch = append(batch, links.Source{Path: p, Content: notes[p], Parsed: markdown.Parse(p, notes[p])})
	}
	if err := stored.SetMany(t.Context(), batch); err != nil {
		t.Fatal(err)
	}
	paths = allPaths(notes)
	if got, want := storedSnapshot(t, stored, paths), snapshotOf(build(notes), paths); !reflect.DeepEqual(got, want) {
		t.Errorf("after the alias is dropped:\n stored    %+v\n in memory %+v", got, want)
	}
}

// The same on real vaults, written by people, with every note set in turn, a few at a time.
func TestStoredMatchesGraph(t *testing.T) {
	vaults := map[string]string{"sample-vault": filepath.Join("..", "..", "sample-vault")}
	if !testing.Short() {
		for _, name := range []string{"data-engineering-wiki", "obsidian-garden", "tasks-test-data"} {
			vaults[name] = testvaults.Dir(t, name)
		}
	}
	for name, dir := range vaults {
		t.Run(name, func(t *testing.T) {
			notes := readVault(t, dir)
			stored := newStored(t, notes)
			paths := allPaths(notes)
			// A few notes a transaction, as a catch-up stores them: what one note of a batch
			// adds must be seen by the next.
			for batch := range slices.Chunk(paths, 5) {
				var sources []links.Source
				for _, p := range batch {
					sources = append(sources, links.Source{Path: p, Content: notes[p], Parsed: markdown.Parse(p, notes[p])})
				}
				if err := stored.SetMany(t.Context(), sources); err != nil {
					t.Fatal(err)
				}
			}
			got, want := storedSnapshot(t, stored, paths), snapshotOf(build(notes), paths)
			for _, p := range paths {
				if !reflect.DeepEqual(got.Outgoing[p], want.Outgoing[p]) || !reflect.DeepEqual(got.Backlinks[p], want.Backlinks[p]) {
					t.Fatalf("%s: stored\n %+v\n %+v\nin memory\n %+v\n %+v", p, got.Outgoing[p], got.Backlinks[p], want.Outgoing[p], want.Backlinks[p])
				}
			}
			if !reflect.DeepEqual(got.Unresolved, want.Unresolved) {
				t.Fatalf("Unresolved: stored\n %+v\nin memory\n %+v", got.Unresolved, want.Unresolved)
			}
			for _, m := range want.Unresolved {
				found, ok, err := stored.Missing(t.Context(), m.Target+".md")
				if err != nil || !ok || !reflect.DeepEqual(found, m) {
					t.Fatalf("Missing(%q) = %+v, %v, %v; want %+v", m.Target+".md", found, ok, err, m)
				}
			}
		})
	}
}

// newStored returns an empty stored graph, which reads the lines of links from notes: the
// test keeps it as the disk would be.
func newStored(t *testing.T, notes map[string]string) *links.Stored {
	t.Helper()
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "index.db"), store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	g, err := links.NewStored(t.Context(), db, readFrom(notes))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func readFrom(notes map[string]string) links.NoteReader {
	return func(path string) (string, error) {
		content, ok := notes[path]
		if !ok {
			return "", fs.ErrNotExist
		}
		return content, nil
	}
}

func storedSnapshot(t *testing.T, g *links.Stored, paths []string) snapshot {
	t.Helper()
	unresolved, err := g.Unresolved(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	s := snapshot{Outgoing: map[string][]links.Ref{}, Backlinks: map[string][]links.Ref{}, Unresolved: unresolved}
	for _, p := range paths {
		if s.Outgoing[p], err = g.Outgoing(t.Context(), p); err != nil {
			t.Fatal(err)
		}
		if s.Backlinks[p], err = g.Backlinks(t.Context(), p); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// TestStoredKeepsTheVersion: the graph keeps the version each note's links were read from,
// written with the note's sections when Setting runs as a store.Entry's Links, and carried
// by a rename; store.LinksDisagree compares it with the sections' version.
func TestStoredKeepsTheVersion(t *testing.T) {
	ctx := t.Context()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "index.db"), store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Reset(ctx, store.Embedder{Name: "test", Model: "test", Dimension: 4}); err != nil {
		t.Fatal(err)
	}
	g, err := links.NewStored(ctx, db, readFrom(map[string]string{}))
	if err != nil {
		t.Fatal(err)
	}
	source := func(path, content, version string) links.Source {
		return links.Source{Path: path, Content: content, Parsed: markdown.Parse(path, content), Version: version}
	}
	entry := func(src links.Source, version string) store.Entry {
		return store.Entry{Note: store.Note{Path: src.Path, Hash: version}, Sections: []store.Section{{Text: src.Content}},
			Vectors: [][]float32{{1, 0, 0, 0}}, Links: g.Setting(src)}
	}
	a, b := source("A.md", "[[B]]", "a1"), source("B.md", "[[A]]", "b1")
	for _, err := range db.PutNotes(ctx, []store.Entry{entry(a, "a1"), entry(b, "b1")}) {
		if err != nil {
			t.Fatal(err)
		}
	}
	disagree := func() []string {
		t.Helper()
		onlyLinked, stale, err := db.LinksDisagree(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return append(onlyLinked, stale...)
	}
	if got := disagree(); len(got) != 0 {
		t.Errorf("notes written with their links disagree: %v", got)
	}
	// Links read from a newer version, stored before its sections are: they disagree.
	if err := g.SetMany(ctx, []links.Source{source("A.md", "[[B]] and [[C]]", "a2")}); err != nil {
		t.Fatal(err)
	}
	if got := disagree(); !slices.Equal(got, []string{"A.md"}) {
		t.Errorf("after A's links moved on alone, LinksDisagree names %v, want A.md", got)
	}
	// A rename moves the links with their version, as the sections move with theirs.
	if err := db.RenameNote(ctx, "B.md", "Moved/B.md"); err != nil {
		t.Fatal(err)
	}
	if err := g.Rename(ctx, "B.md", "Moved/B.md"); err != nil {
		t.Fatal(err)
	}
	if got := disagree(); !slices.Equal(got, []string{"A.md"}) {
		t.Errorf("after B's rename, LinksDisagree names %v, want A.md alone", got)
	}
}

// The index keeps where a link is, not its line: the answers read the line from the note as
// it is on disk. A line that no longer holds the link, after an edit the graph has not seen
// yet, or a note that cannot be read, gives the link as written instead of another line.
func TestStoredReadsLinesFromTheNotes(t *testing.T) {
	ctx := t.Context()
	paragraph := "Sourdough needs a lively [[Starter]], fed the night before; " + strings.Repeat("flour and water, ", 40)
	notes := map[string]string{
		"Bread.md":   "# Bread\n\n" + paragraph + "\n",
		"Pizza.md":   "---\nuses: \"[[Starter]]\"\n---\nsee [[Starter]]\n",
		"Starter.md": "a jar",
	}
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "index.db"), store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	stored, err := links.NewStored(ctx, db, readFrom(notes))
	if err != nil {
		t.Fatal(err)
	}
	var batch []links.Source
	for _, p := range allPaths(notes) {
		batch = append(batch, links.Source{Path: p, Content: notes[p], Parsed: markdown.Parse(p, notes[p])})
	}
	if err := stored.SetMany(ctx, batch); err != nil {
		t.Fatal(err)
	}
	kept, _, err := db.LinksFrom(ctx, "Bread.md")
	if err != nil || len(kept) != 1 {
		t.Fatalf("LinksFrom(Bread.md) = %d links, %v; want 1", len(kept), err)
	}
	if strings.Contains(string(kept[0].Written), "flour") {
		t.Errorf("the index keeps the link's line: %s", kept[0].Written)
	}
	lines := func(refs []links.Ref) map[string][]string {
		out := map[string][]string{}
		for _, r := range refs {
			out[r.From] = append(out[r.From], r.Text)
		}
		return out
	}
	storedLines := func() map[string][]string {
		t.Helper()
		back, err := stored.Backlinks(ctx, "Starter.md")
		if err != nil {
			t.Fatal(err)
		}
		return lines(back)
	}
	want := lines(build(notes).Backlinks("Starter.md")) // the in-memory graph keeps the lines
	if got := storedLines(); !reflect.DeepEqual(got, want) || len(want["Bread.md"][0]) > links.MaxText+2*len("…") {
		t.Fatalf("backlinks' lines = %q, want %q, cut to MaxText", got, want)
	}

	// Edited on disk and not stored again yet: Bread's line 3 is now another line, and
	// Pizza is gone.
	notes["Bread.md"] = "# Bread\n\nA new line here.\n" + paragraph + "\n"
	delete(notes, "Pizza.md")
	want = map[string][]string{
		"Bread.md": {"[[Starter]]"},
		"Pizza.md": {"uses: [[Starter]]", "[[Starter]]"},
	}
	if got := storedLines(); !reflect.DeepEqual(got, want) {
		t.Errorf("after edits the graph has not seen, backlinks' lines = %q, want %q", got, want)
	}
}

// TestStoredFirstReadsOnlyTheLinesShown: BacklinksFirst and MissingFirst give the first n of
// what Backlinks and Missing give, count the rest, and read the notes of those n alone: a hub
// note's backlinks must not cost a read of every note that links to it.
func TestStoredFirstReadsOnlyTheLinesShown(t *testing.T) {
	ctx := t.Context()
	notes := map[string]string{"Hub.md": "the hub"}
	for i := range 30 {
		notes[fmt.Sprintf("Day %02d.md", i)] = "worked on [[Hub]] and on [[Someday]]\n"
	}
	var reads []string
	read := readFrom(notes)
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "index.db"), store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	g, err := links.NewStored(ctx, db, func(path string) (string, error) {
		reads = append(reads, path)
		return read(path)
	})
	if err != nil {
		t.Fatal(err)
	}
	var batch []links.Source
	for _, p := range allPaths(notes) {
		batch = append(batch, links.Source{Path: p, Content: notes[p], Parsed: markdown.Parse(p, notes[p])})
	}
	if err := g.SetMany(ctx, batch); err != nil {
		t.Fatal(err)
	}

	all, err := g.Backlinks(ctx, "Hub.md")
	if err != nil || len(all) != 30 {
		t.Fatalf("Backlinks(Hub.md) = %d refs, %v; want 30", len(all), err)
	}
	reads = nil
	first, left, err := g.BacklinksFirst(ctx, "Hub.md", 5)
	if err != nil || left != 25 || !reflect.DeepEqual(first, all[:5]) {
		t.Errorf("BacklinksFirst(Hub.md, 5) = %v, %d left, %v; want the first 5 of Backlinks and 25 left", first, left, err)
	}
	if len(reads) != 5 {
		t.Errorf("BacklinksFirst(Hub.md, 5) read %d notes %q, want the 5 it shows", len(reads), reads)
	}

	missing, found, err := g.Missing(ctx, "Someday.md")
	if err != nil || !found || len(missing.Refs) != 30 {
		t.Fatalf("Missing(Someday.md) = %d refs, %v, %v; want 30", len(missing.Refs), found, err)
	}
	reads = nil
	cut, left, found, err := g.MissingFirst(ctx, "Someday.md", 5)
	if err != nil || !found || left != 25 || cut.Target != missing.Target || !reflect.DeepEqual(cut.Refs, missing.Refs[:5]) {
		t.Errorf("MissingFirst(Someday.md, 5) = %+v, %d left, %v, %v; want the first 5 of Missing and 25 left", cut, left, found, err)
	}
	if len(reads) != 5 {
		t.Errorf("MissingFirst(Someday.md, 5) read %d notes %q, want the 5 it shows", len(reads), reads)
	}
	if _, left, _, _ := g.MissingFirst(ctx, "Someday.md", 100); left != 0 {
		t.Errorf("MissingFirst(Someday.md, 100) left %d out, want 0", left)
	}
}
