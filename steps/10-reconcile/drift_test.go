package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"vaultmcp/shared/ollamatest"
	"vaultmcp/shared/steptest"
	"vaultmcp/shared/vault"
)

// These tests make the index drift from the disk in the ways a restart can hide, and require
// the next start to leave search and backlinks equal to the disk, and the one after too.

// TestLinksFollowTheirNote: a link added while the server is off is stored by the next start
// before the note's embedding, and that start is stopped before the embedding is done; the
// note is then put back as it was. The graph's links are then of another version than the
// note's sections, and the next start must see it and store them again.
func TestLinksFollowTheirNote(t *testing.T) {
	ollama := ollamatest.NewServer(ollamatest.Options{})
	defer ollama.Close()
	t.Setenv("OLLAMA_HOST", ollama.URL)
	vaultDir := t.TempDir()
	source := filepath.Join(vaultDir, "Source.md")
	before := "# Source\n\nLeeks, earthed up in October.\n"
	steptest.Write(t, filepath.Join(vaultDir, "Target.md"), "# Target\n\nWhere the links lead.\n")
	steptest.Write(t, source, before)
	args := []string{"-embedder", "ollama", "-db", filepath.Join(t.TempDir(), "index.db"), "-min-score", "0.17"}
	url, stop := launch(t, vaultDir, args...)
	waitReady(t, url)
	stop()

	steptest.Write(t, source, "# Source\n\nLeeks, earthed up in October, as [[Target]] says.\n")
	ollama.SetLatency(time.Hour, 0) // the embedding never ends: the start is stopped during it
	url, stop = launch(t, vaultDir, args...)
	steptest.Eventually(t, steptest.Patience, func() string {
		if got := backlinksOf(t, url, "Target.md"); !slices.Equal(got, []string{"Source.md"}) {
			return fmt.Sprintf("Target's backlinks = %v, want the new link, stored before the embedding", got)
		}
		if st := status(t, url); st.State != phaseIndexing {
			return fmt.Sprintf("index_status says %s, want indexing", st.State)
		}
		return ""
	})
	stop()

	steptest.Write(t, source, before)
	ollama.SetLatency(0, 0)
	for range 2 { // and once more: what was repaired stays so
		url, stop = launch(t, vaultDir, args...)
		waitReady(t, url)
		if got := backlinksOf(t, url, "Target.md"); len(got) != 0 {
			t.Errorf("after the note was put back, Target's backlinks = %v, want none: the file has no link", got)
		}
		stop()
	}
}

// TestTimesPutBack: a note rewritten while the server is off, at the same size, with its old
// time put back (touch -r, or a sync tool): its change time differs, so the next start reads
// it, and search finds the new text.
func TestTimesPutBack(t *testing.T) {
	vaultDir := t.TempDir()
	note := filepath.Join(vaultDir, "Orchard.md")
	old := time.Date(2025, 9, 1, 8, 0, 0, 0, time.UTC)
	writeAt(t, note, "# Orchard\n\nApples ripen in autumn.\n", old)
	afterRacyWindow()
	args := []string{"-embedder", "offline", "-db", filepath.Join(t.TempDir(), "index.db")}
	url, stop := launch(t, vaultDir, args...)
	waitReady(t, url)
	stop()

	writeAt(t, note, "# Orchard\n\nPlums ripen in mid-July\n", old) // the same size
	for range 2 {
		url, stop = launch(t, vaultDir, args...)
		waitReady(t, url)
		if got, _ := searchFor(t, url, map[string]any{"query": "plums ripen in mid-july", "limit": 1}); len(got.Results) != 1 || !strings.Contains(got.Results[0].Snippet, "Plums") {
			t.Errorf("search finds %+v, want the new text", got.Results)
		}
		stop()
	}
}

// TestSwappedNames: two notes of the same size and time swap names while the server is off.
// Each file is another now, so the next start reads both, and serves each under its new name.
func TestSwappedNames(t *testing.T) {
	vaultDir := t.TempDir()
	a, b := filepath.Join(vaultDir, "A.md"), filepath.Join(vaultDir, "B.md")
	old := time.Date(2025, 9, 1, 8, 0, 0, 0, time.UTC)
	apricots, damsons := "# Jam\n\nApricots, boiled fast.\n", "# Jam\n\nDamsons, boiled slowly\n"
	if len(apricots) != len(damsons) {
		t.Fatal("the two notes must be of the same size")
	}
	writeAt(t, a, apricots, old)
	writeAt(t, b, damsons, old)
	afterRacyWindow()
	args := []string{"-embedder", "offline", "-db", filepath.Join(t.TempDir(), "index.db")}
	url, stop := launch(t, vaultDir, args...)
	waitReady(t, url)
	stop()

	tmp := filepath.Join(vaultDir, "swap")
	for _, mv := range [][2]string{{a, tmp}, {b, a}, {tmp, b}} {
		if err := os.Rename(mv[0], mv[1]); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{a, b} {
		if err := os.Chtimes(name, old, old); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		url, stop = launch(t, vaultDir, args...)
		waitReady(t, url)
		for query, want := range map[string]string{"apricots boiled fast": "B.md", "damsons boiled slowly": "A.md"} {
			if problem := finds(t, url, query, want)(); problem != "" {
				t.Error(problem)
			}
		}
		stop()
	}
}

// afterRacyWindow waits until the notes just written are safely older than the moment the next
// start records them (see vault.Stamp.Racy). Recorded sooner, a note is read again whatever its
// Stamp says, and a test of what the Stamp alone sees would pass without it.
func afterRacyWindow() {
	time.Sleep(vault.RacyWindow + 100*time.Millisecond)
}

// writeAt writes a file and sets its modification time. A file there already keeps its size:
// the tests that rewrite a note need the size unchanged, so that only the change time, the
// file's identity or the content can tell.
func writeAt(t *testing.T, name, content string, at time.Time) {
	t.Helper()
	if info, err := os.Stat(name); err == nil && info.Size() != int64(len(content)) {
		t.Fatalf("%s: %d bytes rewritten as %d; keep the size", name, info.Size(), len(content))
	}
	steptest.Write(t, name, content)
	if err := os.Chtimes(name, at, at); err != nil {
		t.Fatal(err)
	}
}

// TestNotIndexedFollowsTheDisk: a note whose name no tool call can carry is listed under
// notIndexed, with what to rename, as soon as it appears while the server runs, and no longer
// once it is gone.
func TestNotIndexedFollowsTheDisk(t *testing.T) {
	vaultDir := t.TempDir()
	steptest.Write(t, filepath.Join(vaultDir, "Plain.md"), "# Plain\n\nA note.\n")
	url := startServer(t, vaultDir, "-embedder", "offline")
	odd := filepath.Join(vaultDir, "Meeting 10:30.md")
	steptest.Write(t, odd, "# Meeting\n\nAgenda.\n")
	steptest.Eventually(t, steptest.Patience, func() string {
		if why := status(t, url).NotIndexed["Meeting 10:30.md"]; !strings.Contains(why, "rename the note") {
			return fmt.Sprintf("index_status says of Meeting 10:30.md: %q", why)
		}
		return ""
	})
	if err := os.Remove(odd); err != nil {
		t.Fatal(err)
	}
	steptest.Eventually(t, steptest.Patience, func() string {
		if st := status(t, url); len(st.NotIndexed) != 0 || st.State != phaseReady {
			return fmt.Sprintf("after the note was deleted, index_status says %s, %v", st.State, st.NotIndexed)
		}
		return ""
	})
}
