//go:build linux

package bench

import (
	"fmt"
	"testing"
	"time"

	"vaultmcp/shared/ollamatest"
)

// BenchmarkMemory indexes a generated vault of 1,000, 10,000 and 50,000 notes (only 1,000 with
// -short) into an empty database, with the Ollama stand-in answering at once, and reports the
// server's peak resident memory up to the moment its index is up to date (see peakKiB). A
// first index reads, parses and embeds every note, and holds the link graph of the
// whole vault in memory.
func BenchmarkMemory(b *testing.B) {
	sizes := []int{1_000, 10_000, 50_000}
	if testing.Short() {
		sizes = sizes[:1]
	}
	bin := buildLastStep(b)
	ollama := ollamatest.NewServer(ollamatest.Options{})
	defer ollama.Close()
	// A machine's first start also compiles SQLite's WebAssembly. A start over an empty vault
	// does that into a cache of the benchmark's, so that every measured start is an ordinary
	// one, whatever the machine's own cache holds.
	env := []string{"OLLAMA_HOST=" + ollama.URL, "XDG_CACHE_HOME=" + b.TempDir()}
	indexFresh(b, bin, b.TempDir(), env...)

	for _, notes := range sizes {
		b.Run(fmt.Sprintf("notes=%d", notes), func(b *testing.B) {
			vaultDir := generateVault(b, notes)
			var peakKiB int64
			var took time.Duration
			sections := 0
			for b.Loop() {
				run := indexFresh(b, bin, vaultDir, env...)
				b.StopTimer()
				ollama.Reset() // the stand-in keeps every input it was sent
				b.StartTimer()
				peakKiB = max(peakKiB, run.peakKiB)
				took += run.took
				sections = run.sections
			}
			b.ReportMetric(float64(peakKiB)/1024, "peak-MiB")
			b.ReportMetric(took.Seconds()/float64(b.N), "index-s")
			b.ReportMetric(float64(sections), "sections")
		})
	}
}
