//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"vaultmcp/shared/steptest"
)

// TestLargeVaultOnFewDescriptors runs the server as a Mac with a large vault runs it: 20,000
// notes, a limit of 1,024 open files, and watches counted as kqueue takes them, a descriptor
// for every file (a build with -tags simulate_kqueue; see shared/watch). The server must start,
// serve, say that it polls and why, and index every kind of change by polling.
func TestLargeVaultOnFewDescriptors(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the server and indexes 20,000 notes; `make check` runs it")
	}
	var limit syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &limit); err != nil || limit.Max < 1024 {
		t.Skipf("the hard limit on open files is below 1,024 here (%v), so it cannot be set to 1,024", err)
	}
	bin := buildServer(t, "simulate_kqueue")
	dir := t.TempDir()
	for i := range 20000 {
		steptest.Write(t, filepath.Join(dir, fmt.Sprintf("Folder %02d", i%100), fmt.Sprintf("Note %d.md", i)), fmt.Sprintf("# Note %d\n\nA short note, number %d.", i, i))
	}

	// The shell sets the soft and the hard limit, so that Go's runtime, which raises the soft
	// limit to the hard one at start, cannot lift it.
	url, log := startBuilt(t, exec.Command("sh", "-c", `ulimit -n 1024 && exec "$@"`, "sh", bin, "-vault", dir,
		"-addr", "127.0.0.1:0", "-embedder", "offline", "-db", filepath.Join(t.TempDir(), "index.db")))
	var status statusJSON
	steptest.Eventually(t, 3*time.Minute, func() string {
		text, _ := steptest.CallTool(t, url, "index_status", map[string]any{})
		if json.Unmarshal([]byte(text), &status) == nil && status.State == phaseReady && status.Notes == 20000 {
			return ""
		}
		return "the index is not ready: " + text
	})
	const why = "the vault needs more watches than half the 1024 file descriptors this process may open"
	if !strings.Contains(log(), "not using file events: "+why) {
		t.Errorf("the log does not say why the server polls:\n%s", log())
	}
	if !strings.HasPrefix(status.Changes, "polling every") || !strings.Contains(status.Changes, why) {
		t.Errorf("index_status says changes are noticed by %q, want polling because %s", status.Changes, why)
	}

	// A new note linking to an old one, an edit, a rename, a folder move and a delete: each
	// changes a folder's time, so a quick pass sees it within seconds.
	steptest.Write(t, filepath.Join(dir, "Folder 01", "Kohlrabi.md"), "# Kohlrabi\n\nHarvest kohlrabi at tennis-ball size, after [[Note 1]].")
	steptest.Eventually(t, steptest.Patience, finds(t, url, "harvest kohlrabi", "Folder 01/Kohlrabi.md"))
	linksTo := func(path string, want ...string) func() string {
		return func() string {
			if got := backlinksOf(t, url, path); !slices.Equal(got, want) {
				return fmt.Sprintf("backlinks of %s = %v, want %v", path, got, want)
			}
			return ""
		}
	}
	steptest.Eventually(t, steptest.Patience, linksTo("Folder 01/Note 1.md", "Folder 01/Kohlrabi.md"))
	steptest.Write(t, filepath.Join(dir, "Folder 01", "Kohlrabi.md"), "# Kohlrabi\n\nPurple kohlrabi resists flea beetles, after [[Note 1]].")
	steptest.Eventually(t, steptest.Patience, finds(t, url, "flea beetles", "Folder 01/Kohlrabi.md"))
	rename(t, filepath.Join(dir, "Folder 01", "Kohlrabi.md"), filepath.Join(dir, "Folder 01", "Kohlrabi (purple).md"))
	steptest.Eventually(t, steptest.Patience, finds(t, url, "flea beetles", "Folder 01/Kohlrabi (purple).md"))
	rename(t, filepath.Join(dir, "Folder 01"), filepath.Join(dir, "Archive"))
	steptest.Eventually(t, steptest.Patience, finds(t, url, "flea beetles", "Archive/Kohlrabi (purple).md"))
	steptest.Eventually(t, steptest.Patience, findsNone(t, url, "flea beetles", "Folder 01/Kohlrabi (purple).md"))
	steptest.Eventually(t, steptest.Patience, linksTo("Archive/Note 1.md", "Archive/Kohlrabi (purple).md"))
	if err := os.Remove(filepath.Join(dir, "Archive", "Kohlrabi (purple).md")); err != nil {
		t.Fatal(err)
	}
	steptest.Eventually(t, steptest.Patience, findsNone(t, url, "flea beetles", "Archive/Kohlrabi (purple).md"))
	steptest.Eventually(t, steptest.Patience, linksTo("Archive/Note 1.md"))

	// An edit in place to a note nobody touched lately leaves every folder's time as it was:
	// the next full pass finds it, within the interval index_status names (and a margin).
	steptest.Write(t, filepath.Join(dir, "Folder 07", "Note 7.md"), "# Note 7\n\nRhubarb forced under terracotta pots.")
	steptest.Eventually(t, 2*fullPassEvery(t, url)+time.Minute, finds(t, url, "rhubarb terracotta", "Folder 07/Note 7.md"))
	if text, _ := steptest.CallTool(t, url, "index_status", map[string]any{}); json.Unmarshal([]byte(text), &status) != nil || status.State != phaseReady || status.Notes != 20000 {
		t.Errorf("after the changes, index_status = %s; want ready, with 20,000 notes", text)
	}
}

func rename(t *testing.T, from, to string) {
	t.Helper()
	if err := os.Rename(from, to); err != nil {
		t.Fatal(err)
	}
}

// fullPassEvery reads from index_status the interval between two full polling passes, which
// the server sets from the time a pass takes: longer on a busy machine.
func fullPassEvery(t *testing.T, url string) time.Duration {
	t.Helper()
	text, _ := steptest.CallTool(t, url, "index_status", map[string]any{})
	var status statusJSON
	if err := json.Unmarshal([]byte(text), &status); err != nil {
		t.Fatal(err)
	}
	rest, ok := strings.CutPrefix(status.Changes, "polling every ")
	interval, _, _ := strings.Cut(rest, " ")
	every, err := time.ParseDuration(interval)
	if !ok || err != nil {
		t.Fatalf("index_status says changes are noticed by %q, want polling every ...: %v", status.Changes, err)
	}
	return every
}
