package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"vaultmcp/shared/embed"
	"vaultmcp/shared/markdown"
	"vaultmcp/shared/ollamatest"
)

// reconcileNotes is the size of the generated vault the catch-up is measured on.
const reconcileNotes = 10_000

// Simulated Ollama for the changed-notes case: the round trip and queue of a request, and the
// model's work per input. The same figures as the indexing benchmark of step 6.
const (
	perRequest = 5 * time.Millisecond
	perInput   = time.Millisecond
)

// BenchmarkReconcile restarts the last step over a generated vault of 10,000 notes that it has
// indexed before, and reads from its log how long the catch-up took ("index up to date …
// took=…"): process start and the opening of the database are not counted.
//
//   - unchanged: nothing changed while the server was off. The catch-up ends when search and
//     backlinks answer from a complete index. The bound is what any catch-up must do: walk the
//     vault and stat every note.
//   - 1%-changed: 100 notes were edited. The bound is embedding those notes' sections alone,
//     through the same Ollama client and stand-in, with simulated latency.
func BenchmarkReconcile(b *testing.B) {
	bin := buildLastStep(b)
	vaultDir := generateVault(b, reconcileNotes)
	dir := b.TempDir()
	ollama := ollamatest.NewServer(ollamatest.Options{})
	defer ollama.Close()
	server := catchUpServer{bin: bin, vault: vaultDir, db: filepath.Join(dir, "index.db"), ollama: ollama.URL}
	server.catchUp(b) // the first start indexes everything

	b.Run("unchanged", func(b *testing.B) {
		bound := statBound(b, vaultDir)
		var runs []time.Duration
		for b.Loop() {
			runs = append(runs, server.catchUp(b))
		}
		took := median(runs)
		b.ReportMetric(float64(took.Microseconds())/1000, "catch-up-ms")
		b.ReportMetric(float64(bound.Microseconds())/1000, "stat-bound-ms")
		b.ReportMetric(took.Seconds()/bound.Seconds(), "x-bound")
	})

	b.Run("1%-changed", func(b *testing.B) {
		notes := changeable(b, vaultDir, reconcileNotes/100)
		ollama.SetLatency(perRequest, perInput)
		defer ollama.SetLatency(0, 0)
		var runs, bounds []time.Duration
		round := 0
		for b.Loop() {
			b.StopTimer()
			round++
			texts := edit(b, vaultDir, notes, round)
			bounds = append(bounds, embedBound(b, ollama, texts))
			b.StartTimer()
			runs = append(runs, server.catchUp(b))
		}
		took, bound := median(runs), median(bounds)
		b.ReportMetric(float64(took.Microseconds())/1000, "catch-up-ms")
		b.ReportMetric(float64(bound.Microseconds())/1000, "embed-bound-ms")
		b.ReportMetric(took.Seconds()/bound.Seconds(), "x-bound")
	})
}

// median is the middle of a few runs: one slow start (a busy machine) does not move it.
func median(runs []time.Duration) time.Duration {
	sorted := slices.Clone(runs)
	slices.Sort(sorted)
	return sorted[len(sorted)/2]
}

// catchUpServer starts the server over one vault and database, again and again.
type catchUpServer struct {
	bin, vault, db, ollama string
}

// caughtUp is the line the server logs once its index, links included, is up to date.
var caughtUp = regexp.MustCompile(`msg="index up to date".* took=(\S+)`)

// catchUp starts the server, waits until it logs that its index is up to date, stops it, and
// returns how long the comparison and update of the index took, by the server's own clock.
func (s catchUpServer) catchUp(b *testing.B) time.Duration {
	b.Helper()
	cmd := exec.Command(s.bin, "-addr", "127.0.0.1:0", "-vault", s.vault, "-db", s.db, "-embedder", "ollama")
	cmd.Env = append(os.Environ(), "OLLAMA_HOST="+s.ollama)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	}()
	var log strings.Builder
	scanner := bufio.NewScanner(stderr)
	for scanner.Scan() {
		log.WriteString(scanner.Text() + "\n")
		if m := caughtUp.FindStringSubmatch(scanner.Text()); m != nil {
			go io.Copy(io.Discard, stderr)
			took, err := time.ParseDuration(m[1])
			if err != nil {
				b.Fatalf("cannot read the time %q in the log", m[1])
			}
			return took
		}
	}
	b.Fatalf("the server stopped before its index was up to date:\n%s", log.String())
	return 0
}

// statBound is the least any catch-up must do: walk the vault and stat every note. The best
// of five runs, so the file system's caches are as warm as they are for the server.
func statBound(b *testing.B, dir string) time.Duration {
	best := time.Duration(1<<63 - 1)
	for range 5 {
		start := time.Now()
		notes := 0
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
				return err
			}
			if _, err := d.Info(); err == nil {
				notes++
			}
			return nil
		})
		if err != nil || notes < reconcileNotes {
			b.Fatalf("walked %d notes: %v", notes, err)
		}
		best = min(best, time.Since(start))
	}
	return best
}

// changeable picks n notes to edit, spread over the vault, the same on every run.
func changeable(b *testing.B, dir string, n int) []string {
	var all []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") && !strings.Contains(p, "/.") {
			all = append(all, p)
		}
		return nil
	})
	slices.Sort(all)
	if len(all) < n {
		b.Fatalf("the vault has %d notes, fewer than %d", len(all), n)
	}
	picked := make([]string, 0, n)
	for i := range n {
		picked = append(picked, all[i*len(all)/n])
	}
	return picked
}

// edit appends a line to each note and returns the texts the server will embed for them: every
// chunk of each note, as the Ollama client sends them.
func edit(b *testing.B, dir string, notes []string, round int) []string {
	var texts []string
	for _, p := range notes {
		f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			b.Fatal(err)
		}
		fmt.Fprintf(f, "\nEdited in round %d.\n", round)
		f.Close()
		content, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		rel, _ := filepath.Rel(dir, p)
		for _, s := range markdown.Parse(filepath.ToSlash(rel), string(content)).Sections {
			texts = append(texts, s.Chunks...)
		}
	}
	return texts
}

// embedBound embeds texts through the Ollama client, as the server does, and returns the time.
func embedBound(b *testing.B, ollama *ollamatest.Server, texts []string) time.Duration {
	client := embed.NewOllama(ollama.Client(), embed.DefaultModel)
	start := time.Now()
	if _, err := client.EmbedDocuments(context.Background(), texts); err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}
