package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vaultmcp/shared/steptest"
	"vaultmcp/shared/watch"
)

// BenchmarkSaveToSearchable saves a note and polls search until it finds the new words. It
// reports that time less the watcher's debounce window, which is a deliberate wait, and with
// the offline embedder, whose work takes microseconds: what remains is what watching,
// queueing, parsing and writing the index cost between a save and an answer.
func BenchmarkSaveToSearchable(b *testing.B) {
	took := saveToSearchable(b, time.Millisecond)
	b.ReportMetric(float64((took-watch.DefaultDebounce).Microseconds())/1000, "ms-beyond-debounce")
}

// BenchmarkSaveToSearchablePolling is BenchmarkSaveToSearchable with -watch poll, as on a
// network drive: a save is seen at the next pass, so the time is the debounce window and, on
// average, half the interval (2 s for a small vault) besides the work.
func BenchmarkSaveToSearchablePolling(b *testing.B) {
	took := saveToSearchable(b, 10*time.Millisecond, "-watch", "poll")
	b.ReportMetric(float64(took.Milliseconds()), "save-to-searchable-ms")
}

// saveToSearchable runs the server with args, saves one note again and again with new words,
// asks search every `every` until it finds them, and returns the mean time from a save to
// the answer.
func saveToSearchable(b *testing.B, every time.Duration, args ...string) time.Duration {
	dir := b.TempDir()
	steptest.Write(b, filepath.Join(dir, "Other.md"), "# Other\n\nSomething else entirely.")
	url := startServer(b, dir, append([]string{"-embedder", "offline"}, args...)...)
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
			time.Sleep(every)
		}
		total += time.Since(start)
	}
	return total / time.Duration(b.N)
}
