//go:build linux

package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vaultmcp/shared/ollamatest"
	"vaultmcp/shared/vault"
)

// noteShapes are notes that once cost the index far more than their size: a heading half a
// note long (stored with every chunk of its section: quadratic), a note of six-byte sections
// (a vector each), and, for comparison, one line without a break and plain paragraphs.
var noteShapes = []struct {
	name string
	make func(size int) string
}{
	{"long-heading", func(size int) string {
		heading := "# " + words(size/2-3) + "\n\n"
		return heading + paragraphs(size-len(heading))
	}},
	{"tiny-sections", func(size int) string { return strings.Repeat("# a\nb\n", size/6) + strings.Repeat("b", size%6) }},
	{"long-line", words},
	{"plain", paragraphs},
}

// words returns size bytes of words on one line.
func words(size int) string {
	return strings.Repeat("lorem ipsum dolor sit amet ", size/27+1)[:size]
}

// paragraphs returns size bytes of paragraphs of about 540 bytes, between blank lines.
func paragraphs(size int) string {
	return strings.Repeat(words(538)+"\n\n", size/540+1)[:size]
}

// BenchmarkNoteShapes indexes one note of each shape at sizes up to the note cap (8 MiB), each
// into an empty index through the Ollama stand-in, and reports the server's peak resident
// memory and the index file's size beyond those of an empty vault, per byte of note. Both
// must grow linearly: at the largest size, x-smallest-memory and x-smallest-index are the
// cost per byte against that at the smallest, near 1 when the cost is linear (a quadratic
// cost would make them 8). -short indexes 64 KiB only.
func BenchmarkNoteShapes(b *testing.B) {
	sizes := []int{1 << 20, 2 << 20, 4 << 20, vault.MaxNoteSize}
	if testing.Short() {
		sizes = []int{64 << 10}
	}
	bin := buildLastStep(b)
	ollama := ollamatest.NewServer(ollamatest.Options{})
	defer ollama.Close()
	env := []string{"OLLAMA_HOST=" + ollama.URL, "XDG_CACHE_HOME=" + b.TempDir()}
	// The cost of no note at all: the server, SQLite and an empty index, measured on the
	// second start, as the first also compiles SQLite's WebAssembly into the cache.
	empty := b.TempDir()
	write := func(dir, content string) {
		if err := os.WriteFile(filepath.Join(dir, "Note.md"), []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	write(empty, "")
	indexFresh(b, bin, empty, env...)
	base := indexFresh(b, bin, empty, env...)

	for _, shape := range noteShapes {
		var smallestMemory, smallestIndex float64
		for i, size := range sizes {
			b.Run(fmt.Sprintf("%s/size=%dKiB", shape.name, size>>10), func(b *testing.B) {
				dir := b.TempDir()
				write(dir, shape.make(size))
				var run indexRun
				for b.Loop() {
					run = indexFresh(b, bin, dir, env...)
					b.StopTimer()
					ollama.Reset()
					b.StartTimer()
				}
				memory := float64(max(run.peakKiB-base.peakKiB, 0)*1024) / float64(size)
				index := float64(max(run.dbBytes-base.dbBytes, 0)) / float64(size)
				b.ReportMetric(float64(run.peakKiB)/1024, "peak-MiB")
				b.ReportMetric(float64(run.dbBytes)/(1<<20), "index-MiB")
				b.ReportMetric(memory, "memory-B/B")
				b.ReportMetric(index, "index-B/B")
				b.ReportMetric(float64(run.sections), "sections")
				if i == 0 {
					smallestMemory, smallestIndex = memory, index
				}
				if i == len(sizes)-1 && smallestMemory > 0 && smallestIndex > 0 {
					b.ReportMetric(memory/smallestMemory, "x-smallest-memory")
					b.ReportMetric(index/smallestIndex, "x-smallest-index")
				}
			})
		}
	}
}
