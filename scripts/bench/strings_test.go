//go:build linux

package bench

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkOversizedString sends step 10 a message with one string of 3.9 MB where a short
// one belongs (a resource URI, the id, the method), once and then 16 at a time (as many as it
// serves at once), and reports how long the slowest refusal took, the server's peak resident
// memory against its memory when idle, the longest answer, and how many of the ordinary
// requests sent from one second into the flood on were refused as busy. mcp-go matches a URI
// against the template's regular expression before any check (3 to 5 s of CPU for this one),
// and echoes the id and the method whole; the strings are now refused before mcp-go sees them.
func BenchmarkOversizedString(b *testing.B) {
	bin := buildLastStep(b)
	big := strings.Repeat("a", 3_900_000)
	messages := map[string]string{
		"uri":    `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"note:///` + big + `"}}`,
		"id":     `{"jsonrpc":"2.0","id":"` + big + `","method":"tools/list"}`,
		"method": `{"jsonrpc":"2.0","id":1,"method":"` + big + `"}`,
	}
	for _, what := range []string{"uri", "id", "method"} {
		for _, at := range []int{1, 16} {
			b.Run(fmt.Sprintf("string=%s/at-once=%d", what, at), func(b *testing.B) {
				var idle, peak int64
				var slowest time.Duration
				var answer, busyLate int
				for b.Loop() {
					vaultDir := b.TempDir()
					if err := os.WriteFile(filepath.Join(vaultDir, "Note.md"), []byte("# Note\n\nA note.\n"), 0o644); err != nil {
						b.Fatal(err)
					}
					srv := startServer(b, bin, vaultDir, filepath.Join(b.TempDir(), "index.db"), nil, "-embedder", "offline")
					idle = max(idle, residentKiB(srv.cmd.Process.Pid))
					var wg sync.WaitGroup
					var mu sync.Mutex
					start := time.Now()
					for range at {
						wg.Go(func() {
							sent := time.Now()
							n := len(post(b, srv.url, []byte(messages[what])))
							mu.Lock()
							answer, slowest = max(answer, n), max(slowest, time.Since(sent))
							mu.Unlock()
						})
					}
					// Ordinary requests, every 50 ms while the flood lasts; those sent a second
					// or more after it began must not be refused as busy.
					var flooding atomic.Bool
					flooding.Store(true)
					others := make(chan int, 1)
					go func() {
						late := 0
						for flooding.Load() {
							status := statusOf(b, srv.url, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
							if status == http.StatusServiceUnavailable && time.Since(start) >= time.Second {
								late++
							}
							time.Sleep(50 * time.Millisecond)
						}
						others <- late
					}()
					wg.Wait()
					flooding.Store(false)
					busyLate = max(busyLate, <-others)
					peak = max(peak, peakKiB(srv.cmd.Process.Pid))
					srv.stop()
				}
				b.ReportMetric(float64(peak)/1024, "peak-MiB")
				b.ReportMetric(float64(idle)/1024, "idle-MiB")
				b.ReportMetric(float64(peak-idle)/1024, "growth-MiB")
				b.ReportMetric(slowest.Seconds(), "slowest-s")
				b.ReportMetric(float64(answer), "answer-bytes")
				b.ReportMetric(float64(busyLate), "busy-after-1s")
			})
		}
	}
}

// statusOf sends one MCP message and returns the HTTP status of the answer.
func statusOf(b *testing.B, url, body string) int {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader([]byte(body)))
	if err != nil {
		b.Error(err)
		return 0
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Error(err)
		return 0
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}
