package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vaultmcp/shared/watch"
)

// BenchmarkSaveToSearchable saves a note and polls search until it finds the new words. It
// reports that time less the watcher's debounce window, which is a deliberate wait, and with
// the offline embedder, whose work takes microseconds: what remains is what watching,
// queueing, parsing and writing the index cost between a save and an answer.
func BenchmarkSaveToSearchable(b *testing.B) {
	dir := b.TempDir()
	write(b, filepath.Join(dir, "Other.md"), "# Other\n\nSomething else entirely.")
	url := startServer(b, dir, "-embedder", "offline")
	note := filepath.Join(dir, "Fresh.md")

	var total time.Duration
	for i := 0; b.Loop(); i++ {
		word := fmt.Sprintf("zucchini%d", i)
		start := time.Now()
		if err := os.WriteFile(note, []byte("# Fresh\n\nA note about "+word+" and marrows."), 0o644); err != nil {
			b.Fatal(err)
		}
		for {
			got, _ := searchFor(b, url, map[string]any{"query": word + " marrows", "limit": 1})
			if len(got.Results) == 1 && strings.Contains(got.Results[0].Snippet, word) {
				break
			}
			time.Sleep(time.Millisecond)
		}
		total += time.Since(start)
	}
	b.ReportMetric(float64((total/time.Duration(b.N)-watch.DefaultDebounce).Microseconds())/1000, "ms-beyond-debounce")
}

// BenchmarkSaveToSearchablePolling is BenchmarkSaveToSearchable with -watch poll, as on a
// network drive: a save is seen at the next pass, so the time is the debounce window and, on
// average, half the interval (2 s for a small vault) besides the work.
func BenchmarkSaveToSearchablePolling(b *testing.B) {
	dir := b.TempDir()
	write(b, filepath.Join(dir, "Other.md"), "# Other\n\nSomething else entirely.")
	url := startServer(b, dir, "-embedder", "offline", "-watch", "poll")
	note := filepath.Join(dir, "Fresh.md")

	var total time.Duration
	for i := 0; b.Loop(); i++ {
		word := fmt.Sprintf("courgette%d", i)
		start := time.Now()
		if err := os.WriteFile(note, []byte("# Fresh\n\nA note about "+word+" and marrows."), 0o644); err != nil {
			b.Fatal(err)
		}
		for {
			got, _ := searchFor(b, url, map[string]any{"query": word + " marrows", "limit": 1})
			if len(got.Results) == 1 && strings.Contains(got.Results[0].Snippet, word) {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		total += time.Since(start)
	}
	b.ReportMetric(float64((total / time.Duration(b.N)).Milliseconds()), "save-to-searchable-ms")
}
