package watch

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"vaultmcp/shared/vault"
)

// BenchmarkPollPass runs full polling passes (walking the vault and stat-ing every note) and
// quick passes (stat-ing every folder) over 10,000 and 50,000 notes in 100 folders, as a
// polling Watcher does, and reports what one of each takes, the intervals the Watcher chose
// after them, and the share of one core that polling takes: each pass's time over the
// interval chosen before it.
func BenchmarkPollPass(b *testing.B) {
	sizes := []int{10000, 50000}
	if testing.Short() {
		sizes = sizes[:1]
	}
	for _, notes := range sizes {
		b.Run(fmt.Sprintf("notes=%d", notes), func(b *testing.B) {
			dir := restingVault(b, notes)
			w, err := New(dir, Options{Mode: Poll})
			if err != nil {
				b.Fatal(err)
			}
			defer w.Close()
			var passes, waits time.Duration
			for b.Loop() {
				waits += w.Noticing().Every
				start := time.Now()
				w.fullPass(start)
				pass := time.Since(start)
				w.pace(pass, 0)
				passes += pass
			}
			var quicks, quickWaits time.Duration
			for range 100 {
				quickWaits += w.Noticing().Quick
				start := time.Now()
				w.changedFolders()
				w.quickPass(start)
				quick := time.Since(start)
				w.pace(0, quick)
				quicks += quick
			}
			n := w.Noticing()
			b.ReportMetric(float64((passes/time.Duration(b.N)).Microseconds())/1000, "pass-ms")
			b.ReportMetric(float64((quicks/100).Microseconds())/1000, "quick-ms")
			b.ReportMetric(n.Every.Seconds(), "every-s")
			b.ReportMetric(n.Quick.Seconds(), "quick-every-s")
			b.ReportMetric(100*(passes.Seconds()/waits.Seconds()+quicks.Seconds()/quickWaits.Seconds()), "core-%")
		})
	}
}

// restingVault writes a vault of the given number of notes in 100 folders, and waits until
// none of them changed within vault.RacyWindow, as in a vault at rest.
func restingVault(b *testing.B, notes int) string {
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
	time.Sleep(vault.RacyWindow)
	return dir
}
