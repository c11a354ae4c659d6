//go:build unix

package watch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// BenchmarkPollSaves runs a polling Watcher over 10,000 and 50,000 notes in 100 folders while
// a note is saved every second through a temporary file renamed over it, as editors and sync
// tools save: each save changes its folder's time. Each second it is a note in another folder,
// left alone until then, which costs polling the most. It reports the share of one core the
// process took meanwhile (user and system time, from getrusage: the saves, a few
// microseconds each, included), over a window that holds at least two full passes.
func BenchmarkPollSaves(b *testing.B) {
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
			ctx, cancel := context.WithCancel(context.Background())
			changes := make(chan Change)
			done := make(chan error, 1)
			go func() { done <- w.Run(ctx, changes) }()
			go func() {
				for {
					select {
					case <-changes:
					case <-ctx.Done():
						return
					}
				}
			}()
			defer func() {
				cancel()
				<-done
			}()
			window := max(2*w.Noticing().Every+time.Second, 30*time.Second)
			if testing.Short() {
				window = 3 * time.Second
			}

			var cpu, wall time.Duration
			saves := 0
			for b.Loop() {
				start, before := time.Now(), cpuTime(b)
				tick := time.NewTicker(time.Second)
				for time.Since(start) < window {
					<-tick.C
					i := (saves * 101) % notes // another folder each time
					note := filepath.Join(dir, fmt.Sprintf("Folder %02d", i%100), fmt.Sprintf("Note %d.md", i))
					if err := os.WriteFile(note+".tmp", []byte(fmt.Sprintf("# A note\n\nSaved %d times.", saves)), 0o644); err != nil {
						b.Fatal(err)
					}
					if err := os.Rename(note+".tmp", note); err != nil {
						b.Fatal(err)
					}
					saves++
				}
				tick.Stop()
				cpu += cpuTime(b) - before
				wall += time.Since(start)
			}
			b.ReportMetric(100*cpu.Seconds()/wall.Seconds(), "core-%")
			b.ReportMetric(float64(saves)/wall.Seconds(), "saves/s")
			b.ReportMetric(w.Noticing().Every.Seconds(), "every-s")
		})
	}
}

// cpuTime is the user and system time this process has taken so far.
func cpuTime(b *testing.B) time.Duration {
	var usage syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &usage); err != nil {
		b.Fatal(err)
	}
	return time.Duration(usage.Utime.Nano() + usage.Stime.Nano())
}
