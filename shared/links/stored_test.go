package links_test

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
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
	stored := newStored(t)
	g := links.New()
	next := randomChanges(rand.New(rand.NewPCG(1, 2)))
	notes := map[string]string{}
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

// The same on real vaults, written by people, with every note set in turn.
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
			stored := newStored(t)
			for _, p := range allPaths(notes) {
				if err := stored.Set(t.Context(), p, notes[p], markdown.Parse(p, notes[p])); err != nil {
					t.Fatal(err)
				}
			}
			paths := allPaths(notes)
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

func newStored(t *testing.T) *links.Stored {
	t.Helper()
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "index.db"), store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return links.NewStored(db)
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
