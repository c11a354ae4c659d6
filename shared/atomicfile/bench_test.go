package atomicfile

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkRemoveLeftovers times the clean-up a server runs at every start, over 10,000 notes
// in 100 folders with no leftover among them (the usual case), against the least that any
// look at every name costs: filepath.WalkDir over the same folders.
func BenchmarkRemoveLeftovers(b *testing.B) {
	dir := b.TempDir()
	for i := range 10_000 {
		name := filepath.Join(dir, fmt.Sprintf("Folder %02d", i%100), fmt.Sprintf("Note %d.md", i))
		if i < 100 {
			if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
				b.Fatal(err)
			}
		}
		if err := os.WriteFile(name, []byte("# Note\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer root.Close()

	start := time.Now()
	const walks = 5
	for range walks {
		filepath.WalkDir(dir, func(string, fs.DirEntry, error) error { return nil })
	}
	bound := time.Since(start) / walks

	for b.Loop() {
		if _, err := RemoveLeftovers(b.Context(), root, time.Now()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(bound.Microseconds())/1000, "walk-ms")
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
}
