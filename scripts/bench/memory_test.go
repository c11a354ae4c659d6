//go:build linux

package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"vaultmcp/shared/ollamatest"
)

// BenchmarkMemory indexes a generated vault of 1,000, 10,000 and 50,000 notes (only 1,000 with
// -short) into an empty database, with the Ollama stand-in answering at once, and reports the
// server's peak resident memory up to the moment its index is up to date (see peakKiB). A
// first index reads, parses and embeds every note. It then restarts the server over that
// index and reports its peak while it serves: forty searches and forty backlink lookups.
// Per section and per link, the peaks and the index file's size; the index's size per byte
// of the notes' Markdown too.
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
			vaultDir, stats := generateVaultStats(b, notes)
			paths, _ := readVaultNotes(b, vaultDir)
			var peakKiB, servingKiB int64
			var took time.Duration
			var run indexRun
			for b.Loop() {
				run = indexFresh(b, bin, vaultDir, env...)
				b.StopTimer()
				ollama.Reset() // the stand-in keeps every input it was sent
				servingKiB = max(servingKiB, serve(b, bin, vaultDir, run.db, env, paths))
				b.StartTimer()
				peakKiB = max(peakKiB, run.peakKiB)
				took += run.took
			}
			sections := float64(run.sections)
			b.ReportMetric(float64(peakKiB)/1024, "peak-MiB")
			b.ReportMetric(float64(servingKiB)/1024, "serving-MiB")
			b.ReportMetric(took.Seconds()/float64(b.N), "index-s")
			b.ReportMetric(sections, "sections")
			b.ReportMetric(float64(stats.Links), "links")
			b.ReportMetric(float64(peakKiB)*1024/sections, "peak-B/section")
			b.ReportMetric(float64(peakKiB)*1024/float64(stats.Links), "peak-B/link")
			b.ReportMetric(float64(run.dbBytes)/sections, "index-B/section")
			b.ReportMetric(float64(run.dbBytes)/float64(stats.Bytes), "index-B/markdown-B")
		})
	}
}

// serve restarts the server over an index it built, asks it forty searches and the backlinks
// of forty notes, and returns its peak resident memory.
func serve(b *testing.B, bin, vaultDir, db string, env []string, paths []string) int64 {
	srv := startServer(b, bin, vaultDir, db, env, "-embedder", "ollama")
	defer srv.stop()
	queries := []string{"how to plant tomatoes", "meeting notes from last week", "sourdough starter", "project plan and deadlines"}
	for i := range 40 {
		search, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
			"params": map[string]any{"name": "search_vault", "arguments": map[string]any{"query": queries[i%len(queries)]}}})
		backlinks, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call",
			"params": map[string]any{"name": "get_backlinks", "arguments": map[string]any{"path": paths[i*len(paths)/40]}}})
		for _, call := range [][]byte{search, backlinks} {
			if answer := post(b, srv.url, call); !bytes.Contains(answer, []byte(`"structuredContent"`)) {
				b.Fatalf("asked %s\nthe server answered %s", call, answer)
			}
		}
	}
	return peakKiB(srv.cmd.Process.Pid)
}
