package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"vaultmcp/shared/ollamatest"
	"vaultmcp/shared/steptest"
)

// finds returns "" when a search for query returns path first, or says what it found.
func finds(t *testing.T, url, query, path string) func() string {
	return func() string {
		got, errText := searchFor(t, url, map[string]any{"query": query, "limit": 1})
		if errText == "" && len(got.Results) == 1 && got.Results[0].Path == path {
			return ""
		}
		return fmt.Sprintf("search %q found %+v %s, want %s", query, got.Results, errText, path)
	}
}

// findsNone returns "" when no result of a search for query lies in paths.
func findsNone(t *testing.T, url, query string, paths ...string) func() string {
	return func() string {
		got, _ := searchFor(t, url, map[string]any{"query": query, "limit": 20})
		for _, h := range got.Results {
			if slices.Contains(paths, h.Path) {
				return fmt.Sprintf("search %q still finds %s", query, h.Path)
			}
		}
		return ""
	}
}

func backlinksOf(t *testing.T, url, path string) []string {
	text, isError := callTool(t, url, "get_backlinks", path)
	if isError {
		return nil
	}
	var from []string
	for _, line := range strings.Split(text, "\n") {
		if f, _, ok := strings.Cut(strings.TrimSpace(line), ": "); ok && strings.HasSuffix(f, ".md") {
			from = append(from, f)
		}
	}
	return from
}

// TestEditsReachSearchAndBacklinks makes the edits a user makes in Obsidian while the server
// runs, and checks that search and backlinks follow each one.
// TestEditsReachSearchAndBacklinks: creates, edits, renames, folder moves and deletes reach
// search and the link graph, noticed by file events and, as where the system cannot give
// them, by polling.
func TestEditsReachSearchAndBacklinks(t *testing.T) {
	for _, mode := range []string{"events", "poll"} {
		t.Run(mode, func(t *testing.T) { editsReachSearchAndBacklinks(t, mode) })
	}
}

func editsReachSearchAndBacklinks(t *testing.T, mode string) {
	dir := t.TempDir()
	steptest.Write(t, filepath.Join(dir, "Garden", "Compost.md"), "# Compost\n\nBrown and green layers.")
	url := startServer(t, dir, "-embedder", "offline", "-watch", mode)
	text, _ := steptest.CallTool(t, url, "index_status", map[string]any{})
	var status struct{ Changes string }
	if json.Unmarshal([]byte(text), &status) != nil || mode == "events" && status.Changes != "file events" ||
		mode == "poll" && !strings.HasPrefix(status.Changes, "polling every 2s (folders and recent edits every 2s): polling was asked for") {
		t.Errorf("with -watch %s, index_status says the changes are noticed by %q", mode, status.Changes)
	}

	// A new note, in a new folder, linking to an old one.
	steptest.Write(t, filepath.Join(dir, "Garden", "Beds", "Kohlrabi.md"), "# Kohlrabi\n\nHarvest kohlrabi at tennis-ball size; mulch with [[Compost]].")
	steptest.Eventually(t, steptest.Patience, finds(t, url, "harvest kohlrabi", "Garden/Beds/Kohlrabi.md"))
	steptest.Eventually(t, steptest.Patience, func() string {
		if got := backlinksOf(t, url, "Garden/Compost.md"); !slices.Equal(got, []string{"Garden/Beds/Kohlrabi.md"}) {
			return fmt.Sprintf("Compost's backlinks = %v", got)
		}
		return ""
	})

	// An edit: new words are found.
	steptest.Write(t, filepath.Join(dir, "Garden", "Beds", "Kohlrabi.md"), "# Kohlrabi\n\nPurple kohlrabi resists flea beetles; mulch with [[Compost]].")
	steptest.Eventually(t, steptest.Patience, finds(t, url, "flea beetles", "Garden/Beds/Kohlrabi.md"))

	// A rename within a folder, then a move of the whole folder.
	os.Rename(filepath.Join(dir, "Garden", "Beds", "Kohlrabi.md"), filepath.Join(dir, "Garden", "Beds", "Kohlrabi (purple).md"))
	steptest.Eventually(t, steptest.Patience, finds(t, url, "flea beetles", "Garden/Beds/Kohlrabi (purple).md"))
	if err := os.Rename(filepath.Join(dir, "Garden", "Beds"), filepath.Join(dir, "Beds")); err != nil {
		t.Fatal(err)
	}
	steptest.Eventually(t, steptest.Patience, finds(t, url, "flea beetles", "Beds/Kohlrabi (purple).md"))
	steptest.Eventually(t, steptest.Patience, findsNone(t, url, "flea beetles", "Garden/Beds/Kohlrabi (purple).md"))

	// Deleting the folder removes its notes from search and from the link graph.
	os.RemoveAll(filepath.Join(dir, "Beds"))
	steptest.Eventually(t, steptest.Patience, findsNone(t, url, "flea beetles", "Beds/Kohlrabi (purple).md"))
	steptest.Eventually(t, steptest.Patience, func() string {
		if got := backlinksOf(t, url, "Garden/Compost.md"); len(got) != 0 {
			return fmt.Sprintf("Compost's backlinks = %v after the folder was deleted", got)
		}
		return ""
	})
}

// TestBurstReindexesOnce saves one note 50 times within a second, as an autosaving editor
// might: the note is embedded once, counted at the Ollama stand-in.
func TestBurstReindexesOnce(t *testing.T) {
	ollama := ollamatest.NewServer(ollamatest.Options{})
	defer ollama.Close()
	t.Setenv("OLLAMA_HOST", ollama.URL)
	dir := t.TempDir()
	steptest.Write(t, filepath.Join(dir, "Other.md"), "# Other\n\nSomething else entirely.")
	url := startServer(t, dir, "-embedder", "ollama", "-min-score", "0.17")

	note := filepath.Join(dir, "Draft.md")
	for i := range 50 {
		steptest.Write(t, note, fmt.Sprintf("# Draft\n\nA draft about parsnips, version %d.", i))
		time.Sleep(15 * time.Millisecond)
	}
	steptest.Eventually(t, steptest.Patience, func() string {
		got, _ := searchFor(t, url, map[string]any{"query": "parsnips draft", "limit": 1})
		if len(got.Results) == 1 && strings.Contains(got.Results[0].Snippet, "version 49") {
			return ""
		}
		return fmt.Sprintf("search found %+v, want version 49 of the draft", got.Results)
	})
	// Give a second reindex every chance to happen (two debounce windows), then count.
	time.Sleep(time.Second)
	embedded := 0
	for _, input := range ollama.Inputs() {
		// Documents only: every search above embedded its query too.
		if strings.HasPrefix(input, "search_document: ") && strings.Contains(input, "parsnips") {
			embedded++
		}
	}
	if embedded != 1 {
		t.Errorf("the draft was embedded %d times for a burst of 50 saves, want 1", embedded)
	}
}

// TestFailedEmbeddingIsRetried: a note saved while Ollama is down is not dropped. It shows as
// not indexed, and is indexed once Ollama is back.
func TestFailedEmbeddingIsRetried(t *testing.T) {
	ollama := ollamatest.NewServer(ollamatest.Options{})
	defer ollama.Close()
	t.Setenv("OLLAMA_HOST", ollama.URL)
	dir := t.TempDir()
	steptest.Write(t, filepath.Join(dir, "Other.md"), "# Other\n\nSomething else entirely.")
	url := startServer(t, dir, "-embedder", "ollama", "-min-score", "0.17")

	ollama.SetFailure(ollamatest.ServerError, 0)
	steptest.Write(t, filepath.Join(dir, "Late.md"), "# Late\n\nNotes on celeriac.")
	steptest.Eventually(t, steptest.Patience, func() string {
		if text, _ := steptest.CallTool(t, url, "index_status", map[string]any{}); !strings.Contains(text, `"Late.md"`) {
			return "index_status does not list Late.md as not indexed: " + text
		}
		return ""
	})
	ollama.SetFailure(ollamatest.None, 0)
	steptest.Eventually(t, steptest.Patience, finds(t, url, "celeriac", "Late.md"))
	if text, _ := steptest.CallTool(t, url, "index_status", map[string]any{}); strings.Contains(text, `"Late.md"`) {
		t.Errorf("index_status still lists Late.md after it was indexed: %s", text)
	}
}

// TestSearchesDuringReindexing searches without pause while notes change (run with -race).
func TestSearchesDuringReindexing(t *testing.T) {
	dir := t.TempDir()
	for i := range 20 {
		steptest.Write(t, filepath.Join(dir, fmt.Sprintf("Note %d.md", i)), fmt.Sprintf("# Note %d\n\nTurnips and swedes %d.", i, i))
	}
	url := startServer(t, dir, "-embedder", "offline")

	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 3 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, errText := searchFor(t, url, map[string]any{"query": "turnips and swedes"}); errText != "" {
					t.Errorf("search during reindexing: %s", errText)
					return
				}
			}
		})
	}
	for i := range 20 {
		steptest.Write(t, filepath.Join(dir, fmt.Sprintf("Note %d.md", i)), fmt.Sprintf("# Note %d\n\nBeetroot and chard %d.", i, i))
	}
	steptest.Eventually(t, steptest.Patience, func() string {
		got, _ := searchFor(t, url, map[string]any{"query": "beetroot chard 19", "limit": 1})
		if len(got.Results) == 1 && strings.Contains(got.Results[0].Snippet, "Beetroot and chard 19") {
			return ""
		}
		return fmt.Sprintf("search found %+v, want the new text of Note 19", got.Results)
	})
	close(stop)
	wg.Wait()
}

// TestRetryDelay: the wait doubles from a second up to a minute, and stays a minute however
// long a note goes on failing.
func TestRetryDelay(t *testing.T) {
	for n, want := range map[int]time.Duration{1: time.Second, 2: 2 * time.Second, 6: 32 * time.Second, 7: time.Minute, 40: time.Minute, 1000: time.Minute} {
		if got := retryDelay(n); got != want {
			t.Errorf("retryDelay(%d) = %v; want %v", n, got, want)
		}
	}
}
