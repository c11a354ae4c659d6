//go:build linux

package bench

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// BenchmarkOversizedCall sends step 10 a create_note call of 3.8 MB whose tags array holds
// 1.9 million numbers (the schema allows 20 strings), once and then 16 at a time (as many as
// the server serves at once), and reports the server's peak resident memory against its memory
// when idle, and the size of the longest answer. A request may cost memory in proportion to its
// size, but not to the number of things wrong with it.
func BenchmarkOversizedCall(b *testing.B) {
	bin := buildLastStep(b)
	var call bytes.Buffer
	call.WriteString(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_note","arguments":{"title":"t","content":"c","tags":[`)
	call.WriteString(strings.Repeat("1,", 1_900_000-1))
	call.WriteString(`1]}}}`)

	for _, at := range []int{1, 16} {
		b.Run(fmt.Sprintf("at-once=%d", at), func(b *testing.B) {
			var idle, peak int64
			var answer int
			for b.Loop() {
				vaultDir := b.TempDir()
				if err := os.WriteFile(filepath.Join(vaultDir, "Note.md"), []byte("# Note\n\nA note.\n"), 0o644); err != nil {
					b.Fatal(err)
				}
				srv := startServer(b, bin, vaultDir, filepath.Join(b.TempDir(), "index.db"), nil, "-embedder", "offline")
				idle = max(idle, residentKiB(srv.cmd.Process.Pid))
				var wg sync.WaitGroup
				var mu sync.Mutex
				for range at {
					wg.Go(func() {
						n := len(post(b, srv.url, call.Bytes()))
						mu.Lock()
						answer = max(answer, n)
						mu.Unlock()
					})
				}
				wg.Wait()
				peak = max(peak, peakKiB(srv.cmd.Process.Pid))
				srv.stop()
			}
			b.ReportMetric(float64(peak)/1024, "peak-MiB")
			b.ReportMetric(float64(idle)/1024, "idle-MiB")
			b.ReportMetric(float64(peak)/float64(idle), "x-idle")
			b.ReportMetric(float64(answer), "answer-bytes")
		})
	}
}

// server is the last step running, once its index is up to date.
type server struct {
	cmd *exec.Cmd
	url string
}

// startServer starts the last step over vaultDir and the index at db, with env added to its
// environment and args to its flags, and returns once its index is up to date.
func startServer(b *testing.B, bin, vaultDir, db string, env []string, args ...string) server {
	b.Helper()
	cmd := exec.Command(bin, append([]string{"-addr", "127.0.0.1:0", "-vault", vaultDir, "-db", db}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	var log strings.Builder
	scanner := bufio.NewScanner(stderr)
	url, ready := "", false
	for !ready && scanner.Scan() {
		log.WriteString(scanner.Text() + "\n")
		if m := listening.FindStringSubmatch(scanner.Text()); m != nil {
			url = m[1]
		}
		ready = url != "" && upToDate.MatchString(log.String())
	}
	go io.Copy(io.Discard, stderr)
	if !ready {
		cmd.Process.Kill()
		cmd.Wait()
		b.Fatalf("the server stopped before it was ready:\n%s", log.String())
	}
	return server{cmd: cmd, url: url}
}

func (s server) stop() {
	s.cmd.Process.Signal(os.Interrupt)
	s.cmd.Wait()
}

// post sends one MCP message and returns the answer.
func post(b *testing.B, url string, body []byte) []byte {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		b.Error(err)
		return nil
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Error(err)
		return nil
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	return answer
}

// residentKiB returns the process's resident memory now (VmRSS), in KiB.
func residentKiB(pid int) int64 {
	return procStatus(pid, "VmRSS:")
}
