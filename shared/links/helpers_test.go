package links_test

import (
	"maps"
	"reflect"
	"slices"
	"testing"

	"vaultmcp/shared/links"
	"vaultmcp/shared/markdown"
	"vaultmcp/shared/vault"
)

// build returns the graph of notes, a map from path to content.
func build(notes map[string]string) *links.Graph {
	g := links.New()
	for _, p := range slices.Sorted(maps.Keys(notes)) {
		set(g, p, notes[p])
	}
	return g
}

func set(g *links.Graph, path, content string) {
	g.Set(path, content, markdown.Parse(path, content))
}

// readVault reads every note of the vault in dir, as the server lists them.
func readVault(tb testing.TB, dir string) map[string]string {
	tb.Helper()
	v, err := vault.Open(dir)
	if err != nil {
		tb.Fatal(err)
	}
	defer v.Close()
	paths, err := v.Notes()
	if err != nil {
		tb.Fatal(err)
	}
	notes := map[string]string{}
	for _, p := range paths {
		_, content, err := v.ReadNote(p)
		if err != nil {
			tb.Fatal(err)
		}
		notes[p] = string(content)
	}
	return notes
}

// snapshot is everything a graph answers about a set of notes, to compare two graphs.
type snapshot struct {
	Outgoing   map[string][]links.Ref
	Backlinks  map[string][]links.Ref
	Unresolved []links.Missing
}

func snapshotOf(g *links.Graph, paths []string) snapshot {
	s := snapshot{Outgoing: map[string][]links.Ref{}, Backlinks: map[string][]links.Ref{}, Unresolved: g.Unresolved()}
	for _, p := range paths {
		s.Outgoing[p] = g.Outgoing(p)
		s.Backlinks[p] = g.Backlinks(p)
	}
	return s
}

// sameGraph fails the test when got and want answer differently about paths.
func sameGraph(t *testing.T, got, want *links.Graph, paths []string) {
	t.Helper()
	g, w := snapshotOf(got, paths), snapshotOf(want, paths)
	for _, p := range paths {
		if !reflect.DeepEqual(g.Outgoing[p], w.Outgoing[p]) {
			t.Fatalf("Outgoing(%q):\n got  %+v\n want %+v", p, g.Outgoing[p], w.Outgoing[p])
		}
		if !reflect.DeepEqual(g.Backlinks[p], w.Backlinks[p]) {
			t.Fatalf("Backlinks(%q):\n got  %+v\n want %+v", p, g.Backlinks[p], w.Backlinks[p])
		}
	}
	if !reflect.DeepEqual(g.Unresolved, w.Unresolved) {
		t.Fatalf("Unresolved():\n got  %+v\n want %+v", g.Unresolved, w.Unresolved)
	}
}
