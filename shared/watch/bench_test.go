package watch

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

// benchDebounce is short, so that an iteration is quick; the figures subtract it.
const benchDebounce = 20 * time.Millisecond

// startBench watches a fresh vault for the rest of the benchmark.
func startBench(b *testing.B, debounce time.Duration) (dir string, changes chan Change) {
	b.Helper()
	dir = b.TempDir()
	w, err := New(dir, Options{Debounce: debounce})
	if err != nil {
		b.Fatal(err)
	}
	changes = make(chan Change)
	done := make(chan error, 1)
	go func() { done <- w.Run(b.Context(), changes) }()
	b.Cleanup(func() {
		<-done
		w.Close()
	})
	return dir, changes
}

func writeFile(b *testing.B, name, content string) {
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkLatency measures the time from a write to its change, less the debounce window:
// the Watcher's own cost. Its lower bound is fsnotify's: the time from a write to its first
// raw event.
func BenchmarkLatency(b *testing.B) {
	b.Run("fsnotify", func(b *testing.B) {
		dir := b.TempDir()
		fsw, err := fsnotify.NewWatcher()
		if err != nil {
			b.Fatal(err)
		}
		defer fsw.Close()
		if err := fsw.Add(dir); err != nil {
			b.Fatal(err)
		}
		name := filepath.Join(dir, "Note.md")
		var total time.Duration
		for i := 0; b.Loop(); i++ {
			start := time.Now()
			writeFile(b, name, fmt.Sprint(i))
			<-fsw.Events
			total += time.Since(start)
			for drain(fsw.Events) { // the write's other events
			}
		}
		b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "ns/change")
	})
	b.Run("watcher", func(b *testing.B) {
		dir, changes := startBench(b, benchDebounce)
		name := filepath.Join(dir, "Note.md")
		var total time.Duration
		for i := 0; b.Loop(); i++ {
			start := time.Now()
			writeFile(b, name, fmt.Sprint(i))
			<-changes
			total += time.Since(start) - benchDebounce
		}
		b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "ns/change")
	})
}

// drain takes one more event if it comes within a millisecond.
func drain(events chan fsnotify.Event) bool {
	select {
	case <-events:
		return true
	case <-time.After(time.Millisecond):
		return false
	}
}

// BenchmarkBurst writes one note 50 times in a row and counts the changes that come out,
// waiting after the first for twice the window. The ideal is 1 change per burst.
func BenchmarkBurst(b *testing.B) {
	dir, changes := startBench(b, benchDebounce)
	name := filepath.Join(dir, "Note.md")
	n := 0
	for i := 0; b.Loop(); i++ {
		for j := range 50 {
			writeFile(b, name, fmt.Sprint(i, j))
		}
		<-changes
		n++
		for quiet := time.After(2 * benchDebounce); quiet != nil; {
			select {
			case <-changes:
				n++
			case <-quiet:
				quiet = nil
			}
		}
	}
	b.ReportMetric(float64(n)/float64(b.N), "changes/burst")
}

// BenchmarkFolderMovedIn moves a folder of 1,000 notes into the vault and waits for all
// 1,000 changes, less the window. Its lower bound is listing the folder.
func BenchmarkFolderMovedIn(b *testing.B) {
	const notes = 1000
	outside := b.TempDir()
	folder := filepath.Join(outside, "Folder")
	for i := range notes {
		name := filepath.Join(folder, fmt.Sprintf("Sub %d", i%10), fmt.Sprintf("Note %d.md", i))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			b.Fatal(err)
		}
		writeFile(b, name, "# note")
	}

	b.Run("walk", func(b *testing.B) {
		for b.Loop() {
			if err := filepath.WalkDir(folder, func(string, fs.DirEntry, error) error { return nil }); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*notes), "ns/note")
	})
	b.Run("watcher", func(b *testing.B) {
		dir, changes := startBench(b, benchDebounce)
		inside := filepath.Join(dir, "Folder")
		var total time.Duration
		for b.Loop() {
			start := time.Now()
			if err := os.Rename(folder, inside); err != nil {
				b.Fatal(err)
			}
			for range notes {
				<-changes
			}
			total += time.Since(start) - benchDebounce
			if err := os.Rename(inside, folder); err != nil { // and back out, for the next round
				b.Fatal(err)
			}
			for range notes {
				<-changes
			}
		}
		b.ReportMetric(float64(total.Nanoseconds())/float64(b.N*notes), "ns/note")
	})
}
