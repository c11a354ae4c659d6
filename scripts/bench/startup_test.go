//go:build linux

package bench

import (
	"bufio"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"vaultmcp/scripts/transcript"
)

// BenchmarkStartup starts the last step on the sample vault until it answers a ping. Cold is
// a machine that has never run it: an empty cache, so SQLite's WebAssembly is compiled at
// start. Warm reuses the cache, as every start after the first does. Both start with an empty
// index and the offline embedder; the server answers while it indexes the 22 notes.
func BenchmarkStartup(b *testing.B) {
	root, err := transcript.Root()
	if err != nil {
		b.Fatal(err)
	}
	bin := buildLastStep(b)
	vault := filepath.Join(root, "sample-vault")

	b.Run("cold", func(b *testing.B) {
		var peak int64
		for b.Loop() {
			b.StopTimer()
			cache := b.TempDir() // nothing compiled yet
			b.StartTimer()
			peak = max(peak, startOnce(b, bin, vault, cache))
		}
		b.ReportMetric(float64(peak)/1024, "peak-MiB")
	})
	b.Run("warm", func(b *testing.B) {
		cache := b.TempDir()
		startOnce(b, bin, vault, cache) // fills the cache
		var peak int64
		for b.Loop() {
			peak = max(peak, startOnce(b, bin, vault, cache))
		}
		b.ReportMetric(float64(peak)/1024, "peak-MiB")
	})
}

var listening = regexp.MustCompile(`url=(http://\S+)`)

// startOnce runs the server until it answers a ping, stops it, and returns its peak resident
// memory in KiB.
func startOnce(b *testing.B, bin, vault, cache string) int64 {
	cmd := exec.Command(bin, "-addr", "127.0.0.1:0")
	cmd.Env = append(os.Environ(),
		"VAULT_PATH="+vault,
		"VAULTMCP_EMBEDDER=offline",
		"VAULTMCP_DB="+filepath.Join(b.TempDir(), "index.db"),
		"XDG_CACHE_HOME="+cache, // where os.UserCacheDir, and so the compile cache, points on Linux
	)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	scanner := bufio.NewScanner(stderr)
	url := ""
	for url == "" && scanner.Scan() {
		if m := listening.FindStringSubmatch(scanner.Text()); m != nil {
			url = m[1]
		}
	}
	go func() {
		for scanner.Scan() {
		}
	}()
	if url == "" {
		cmd.Process.Kill()
		b.Fatalf("%s exited without listening", bin)
	}
	ping(b, url)

	peak := peakKiB(cmd.Process.Pid)
	cmd.Process.Signal(os.Interrupt)
	cmd.Wait()
	return peak
}

func ping(b *testing.B, url string) {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(time.Millisecond)
	}
	b.Fatalf("%s never answered a ping", url)
}
