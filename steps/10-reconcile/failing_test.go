package main

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ncruces/go-sqlite3"

	"vaultmcp/shared/steptest"
)

// TestFailedWritesAreRetried: while every write to the index fails, the user deletes, moves,
// edits and creates notes. index_status says the index is retrying and lists each note, and
// search never returns the deleted one. Once writes succeed again, the index holds exactly the
// notes on disk, and says ready.
func TestFailedWritesAreRetried(t *testing.T) {
	vaultDir := t.TempDir()
	note := func(name, content string) { steptest.Write(t, filepath.Join(vaultDir, name), content) }
	note("Gone.md", "# Gone\n\nThe quince jelly set overnight.\n")
	note("Folder/Moved.md", "# Moved\n\nRhubarb crumble with custard.\n")
	note("Edited.md", "# Edited\n\nParsnip soup.\n")
	note("Links.md", "# Links\n\nSee [[Moved]] and [[Gone]].\n")
	db := filepath.Join(t.TempDir(), "index.db")
	url := startServer(t, vaultDir, "-embedder", "offline", "-db", db)

	heal := failWrites(t, db)
	if err := os.Remove(filepath.Join(vaultDir, "Gone.md")); err != nil {
		t.Fatal(err)
	}
	move(t, filepath.Join(vaultDir, "Folder", "Moved.md"), filepath.Join(vaultDir, "Elsewhere", "Moved.md"))
	note("Edited.md", "# Edited\n\nCeleriac remoulade.\n")
	note("New.md", "# New\n\nMedlar cheese.\n")

	pending := []string{"Edited.md", "Elsewhere/Moved.md", "Folder/Moved.md", "Gone.md", "New.md"}
	steptest.Eventually(t, steptest.Patience, func() string {
		st := status(t, url)
		if st.State != phaseRetrying || !slices.Equal(slices.Sorted(maps.Keys(st.NotIndexed)), pending) {
			return fmt.Sprintf("index_status = %s, %v; want retrying, with %v", st.State, st.NotIndexed, pending)
		}
		if why := st.NotIndexed["Gone.md"]; !strings.Contains(why, "gone from the vault, but the index could not remove it") {
			return fmt.Sprintf("index_status says of Gone.md: %q", why)
		}
		return ""
	})
	got, _ := searchFor(t, url, map[string]any{"query": "quince jelly"})
	if len(got.Results) != 0 || !strings.Contains(got.Incomplete, "could not be indexed as they are now") {
		t.Errorf("search for the deleted note = %+v; want no result, and a word about the notes pending", got)
	}

	heal()
	steptest.Eventually(t, steptest.Patience, func() string {
		if st := status(t, url); st.State != phaseReady || len(st.NotIndexed) != 0 {
			return fmt.Sprintf("index_status = %s, %v; want ready, with nothing pending", st.State, st.NotIndexed)
		}
		return ""
	})
	for _, check := range []func() string{
		finds(t, url, "celeriac remoulade", "Edited.md"),
		finds(t, url, "medlar cheese", "New.md"),
		finds(t, url, "rhubarb crumble", "Elsewhere/Moved.md"),
		findsNone(t, url, "quince jelly", "Gone.md"),
		findsNone(t, url, "rhubarb crumble", "Folder/Moved.md"),
	} {
		if msg := check(); msg != "" {
			t.Error(msg)
		}
	}
	if from := backlinksOf(t, url, "Elsewhere/Moved.md"); !slices.Equal(from, []string{"Links.md"}) {
		t.Errorf("backlinks of Elsewhere/Moved.md = %v, want Links.md", from)
	}

	// The index holds the notes on disk, and nothing else.
	if indexed, want := indexedPaths(t, db), []string{"Edited.md", "Elsewhere/Moved.md", "Links.md", "New.md"}; !slices.Equal(indexed, want) {
		t.Errorf("the index holds %v, want the notes on disk, %v", indexed, want)
	}
}

// TestFailedCatchUpIsRetried: the same, for changes made while the server was off, which the
// catch-up at start applies: a deletion, a rename and an edit.
func TestFailedCatchUpIsRetried(t *testing.T) {
	vaultDir := t.TempDir()
	note := func(name, content string) { steptest.Write(t, filepath.Join(vaultDir, name), content) }
	note("Gone.md", "# Gone\n\nThe quince jelly set overnight.\n")
	note("Folder/Moved.md", "# Moved\n\nRhubarb crumble with custard.\n")
	note("Edited.md", "# Edited\n\nParsnip soup.\n")
	db := filepath.Join(t.TempDir(), "index.db")
	url, stop := launch(t, vaultDir, "-embedder", "offline", "-db", db)
	waitReady(t, url)
	stop()

	if err := os.Remove(filepath.Join(vaultDir, "Gone.md")); err != nil {
		t.Fatal(err)
	}
	move(t, filepath.Join(vaultDir, "Folder", "Moved.md"), filepath.Join(vaultDir, "Elsewhere", "Moved.md"))
	note("Edited.md", "# Edited\n\nCeleriac remoulade.\n")
	heal := failWrites(t, db)
	url = startServing(t, vaultDir, "-embedder", "offline", "-db", db)

	pending := []string{"Edited.md", "Elsewhere/Moved.md", "Folder/Moved.md", "Gone.md"}
	steptest.Eventually(t, steptest.Patience, func() string {
		st := status(t, url)
		if st.State != phaseRetrying || !slices.Equal(slices.Sorted(maps.Keys(st.NotIndexed)), pending) {
			return fmt.Sprintf("index_status = %s, %v; want retrying, with %v", st.State, st.NotIndexed, pending)
		}
		return ""
	})
	if msg := findsNone(t, url, "quince jelly rhubarb crumble", "Gone.md", "Folder/Moved.md")(); msg != "" {
		t.Error(msg)
	}

	heal()
	steptest.Eventually(t, steptest.Patience, func() string {
		if st := status(t, url); st.State != phaseReady || len(st.NotIndexed) != 0 {
			return fmt.Sprintf("index_status = %s, %v; want ready, with nothing pending", st.State, st.NotIndexed)
		}
		return ""
	})
	if msg := finds(t, url, "celeriac remoulade", "Edited.md")(); msg != "" {
		t.Error(msg)
	}
	if indexed, want := indexedPaths(t, db), []string{"Edited.md", "Elsewhere/Moved.md"}; !slices.Equal(indexed, want) {
		t.Errorf("the index holds %v, want the notes on disk, %v", indexed, want)
	}
}

// indexedPaths lists the notes the index at db holds, read through a connection of the test's
// own.
func indexedPaths(t *testing.T, db string) []string {
	t.Helper()
	conn, err := sqlite3.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	stmt, _, err := conn.Prepare(`SELECT path FROM notes ORDER BY path`)
	if err != nil {
		t.Fatal(err)
	}
	defer stmt.Close()
	var paths []string
	for stmt.Step() {
		paths = append(paths, stmt.ColumnText(0))
	}
	if err := stmt.Err(); err != nil {
		t.Fatal(err)
	}
	return paths
}
