package watch

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkPollPass times one full polling pass (walking the vault and stat-ing every note)
// and one quick pass (stat-ing every folder) over 10,000 and 50,000 notes in 100 folders, and
// reports the interval the Watcher chooses and the share of one core that polling then takes.
func BenchmarkPollPass(b *testing.B) {
	sizes := []int{10000, 50000}
	if testing.Short() {
		sizes = sizes[:1]
	}
	for _, notes := range sizes {
		b.Run(fmt.Sprintf("notes=%d", notes), func(b *testing.B) {
			dir := b.TempDir()
			for i := range notes {
				folder := filepath.Join(dir, fmt.Sprintf("Folder %02d", i%100))
				if i < 100 {
					if err := os.Mkdir(folder, 0o755); err != nil {
						b.Fatal(err)
					}
				}
				if err := os.WriteFile(filepath.Join(folder, fmt.Sprintf("Note %d.md", i)), []byte("# A note\n\nSome text."), 0o644); err != nil {
					b.Fatal(err)
				}
			}
			w, err := New(dir, Options{Mode: Poll})
			if err != nil {
				b.Fatal(err)
			}
			defer w.Close()
			var passes time.Duration
			for b.Loop() {
				start := time.Now()
				if _, _, err := w.snapshot(); err != nil {
					b.Fatal(err)
				}
				passes += time.Since(start)
			}
			start := time.Now()
			for range 10 {
				w.foldersChanged()
			}
			quick := time.Since(start) / 10
			pass, every := passes/time.Duration(b.N), w.Noticing().Every
			b.ReportMetric(float64(pass.Microseconds())/1000, "pass-ms")
			b.ReportMetric(float64(quick.Microseconds())/1000, "quick-ms")
			b.ReportMetric(every.Seconds(), "every-s")
			b.ReportMetric(100*(pass.Seconds()/every.Seconds()+quick.Seconds()/quickEvery.Seconds()), "core-%")
		})
	}
}
