package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"vaultmcp/scripts/transcript"
	"vaultmcp/scripts/vaultgen"
	"vaultmcp/shared/markdown"
	"vaultmcp/shared/vault"
)

// buildLastStep compiles the last step into a folder of the benchmark's. Each benchmark builds
// its own: go build caches the compiled packages, so a build after the first takes about a
// second, and a binary shared by the whole process would need a TestMain to delete it.
func buildLastStep(b *testing.B) string {
	b.Helper()
	root, err := transcript.Root()
	if err != nil {
		b.Fatal(err)
	}
	steps, err := transcript.Steps(root)
	if err != nil {
		b.Fatal(err)
	}
	bin, err := transcript.Build(context.Background(), root, steps[len(steps)-1], b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	return bin
}

// generateVault writes a vault of that many notes into a folder of the benchmark's and returns
// its path. Seed 1, so every run and every benchmark measures the same vault.
func generateVault(b *testing.B, notes int) string {
	dir, _ := generateVaultStats(b, notes)
	return dir
}

// generateVaultStats is generateVault that also returns what the generator wrote.
func generateVaultStats(b *testing.B, notes int) (string, vaultgen.Stats) {
	b.Helper()
	dir := filepath.Join(b.TempDir(), "vault")
	stats, err := vaultgen.Generate(dir, vaultgen.Options{Notes: notes, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	return dir, stats
}

// readVaultNotes returns the notes the server indexes, as vault.Notes lists them
// ('/'-separated, relative to dir), and their contents.
func readVaultNotes(b *testing.B, dir string) (paths, contents []string) {
	b.Helper()
	v, err := vault.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer v.Close()
	paths, err = v.Notes()
	if err != nil {
		b.Fatal(err)
	}
	for _, p := range paths {
		_, content, err := v.ReadNote(p)
		if err != nil {
			b.Fatal(err)
		}
		contents = append(contents, string(content))
	}
	return paths, contents
}

// vaultChunks returns every text the server embeds for the vault in dir: each chunk of each
// section of each note, as markdown.Parse cuts them.
func vaultChunks(b *testing.B, dir string) []string {
	b.Helper()
	paths, contents := readVaultNotes(b, dir)
	var texts []string
	for i, p := range paths {
		for _, s := range markdown.Parse(p, contents[i]).Sections {
			texts = append(texts, s.Chunks...)
		}
	}
	return texts
}

// upToDate is the line the server logs once its index has caught up with the vault; for a
// fresh database, once every note is indexed.
var upToDate = regexp.MustCompile(`msg="index up to date".* sections=(\d+) .*failed=(\d+) .*took=(\S+)`)

// indexRun is what one start of the server reports about its catch-up.
type indexRun struct {
	took     time.Duration // by the server's clock: without process start or opening the database
	sections int           // chunks embedded and stored
	peakKiB  int64         // peak resident memory, up to the moment the index was up to date
	db       string        // the index's path, in a folder of the benchmark's
	dbBytes  int64         // the index's files once the server stopped
	// The index's files while the server runs, once they stopped changing after the index
	// was up to date: the database, its write-ahead log and the log's shared-memory index.
	servingBytes int64
}

// indexFresh starts the server over the vault with a new, empty database, waits until its
// index is up to date, and stops it as Ctrl-C would. env is added to the server's environment
// (OLLAMA_HOST, for one).
func indexFresh(b *testing.B, bin, vaultDir string, env ...string) indexRun {
	b.Helper()
	db := filepath.Join(b.TempDir(), "index.db")
	cmd := exec.Command(bin, "-addr", "127.0.0.1:0", "-vault", vaultDir, "-db", db, "-embedder", "ollama")
	cmd.Env = append(os.Environ(), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	var log strings.Builder
	var m []string
	scanner := bufio.NewScanner(stderr)
	for m == nil && scanner.Scan() {
		log.WriteString(scanner.Text() + "\n")
		m = upToDate.FindStringSubmatch(scanner.Text())
	}
	peak := peakKiB(cmd.Process.Pid)
	serving := settledSize(db, db+"-wal", db+"-shm")
	cmd.Process.Signal(os.Interrupt)
	// Read the rest of the log, which ends when the server exits; only then may Wait close
	// the pipe.
	io.Copy(io.Discard, stderr)
	cmd.Wait()
	if m == nil {
		b.Fatalf("the server stopped before its index was up to date:\n%s", log.String())
	}
	var run indexRun
	run.sections, _ = strconv.Atoi(m[1])
	if m[2] != "0" {
		// A failed note has no vectors: the run did less work than the bound it is compared to.
		b.Fatalf("%s notes failed to index:\n%s", m[2], log.String())
	}
	if run.took, err = time.ParseDuration(m[3]); err != nil {
		b.Fatalf("cannot read the time %q in the log", m[3])
	}
	run.peakKiB, run.db, run.servingBytes = peak, db, serving
	for _, file := range []string{db, db + "-wal"} {
		if info, err := os.Stat(file); err == nil {
			run.dbBytes += info.Size()
		}
	}
	return run
}

// settledSize returns the total size of files, once it is the same three times in a row a
// tenth of a second apart, or after five seconds.
func settledSize(files ...string) int64 {
	last := int64(-1)
	for range 50 {
		var size int64
		for _, file := range files {
			if info, err := os.Stat(file); err == nil {
				size += info.Size()
			}
		}
		if size == last {
			return size
		}
		last = size
		time.Sleep(100 * time.Millisecond)
	}
	return last
}

// peakKiB returns the peak resident memory of a running process, from Linux's
// /proc/PID/status (VmHWM), or 0 where there is none. Not rusage's ru_maxrss, read after the
// process exits: Linux carries the parent's peak into a child across fork and exec, so a
// server started from a benchmark process that has grown to 500 MiB would report 500 MiB.
func peakKiB(pid int) int64 {
	return procStatus(pid, "VmHWM:")
}

// procStatus returns a field of /proc/PID/status given in kB, such as "VmHWM:", or 0.
func procStatus(pid int, field string) int64 {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(status)) {
		if v, ok := strings.CutPrefix(line, field); ok {
			kib, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kib
		}
	}
	return 0
}
