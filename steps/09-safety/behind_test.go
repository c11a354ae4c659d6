package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ncruces/go-sqlite3"

	"vaultmcp/shared/ollamatest"
	"vaultmcp/shared/steptest"
)

// These tests check what the server says about its index: how far behind the vault it is,
// whether the watcher sees every change, and when the index last matched the disk.

// watching is what index_status says of the watcher and the backlog.
type watching struct {
	Changes    string            `json:"changes"`
	Watcher    string            `json:"watcher"`
	Backlog    int               `json:"backlog"`
	CaughtUpAt string            `json:"caughtUpAt"`
	NotIndexed map[string]string `json:"notIndexed"`
}

func watchingOf(t *testing.T, url string) watching {
	t.Helper()
	text, isError := steptest.CallTool(t, url, "index_status", map[string]any{})
	var st watching
	if err := json.Unmarshal([]byte(text), &st); isError || err != nil {
		t.Fatalf("index_status = %s (isError %v, %v)", text, isError, err)
	}
	return st
}

// isCaughtUp is "" once index_status says the index matches the disk, or what it says instead.
func isCaughtUp(t *testing.T, url string) func() string {
	return func() string {
		if st := watchingOf(t, url); st.Backlog != 0 || st.Watcher != "ok" || st.CaughtUpAt == "" {
			return fmt.Sprintf("index_status says %+v", st)
		}
		return ""
	}
}

// TestBacklogAfterABurst: 150 notes change at once, as after a git pull, and a model takes
// its time over each. index_status counts the changes waiting, and says the index caught up
// only once the last of them is indexed; a search meanwhile says its answer may be stale.
func TestBacklogAfterABurst(t *testing.T) {
	ollama := ollamatest.NewServer(ollamatest.Options{Latency: 20 * time.Millisecond})
	defer ollama.Close()
	t.Setenv("OLLAMA_HOST", ollama.URL)
	dir := t.TempDir()
	const notes = 150
	for i := range notes {
		steptest.Write(t, filepath.Join(dir, fmt.Sprintf("Folder %d", i%10), fmt.Sprintf("Note %d.md", i)), fmt.Sprintf("# Note %d\n\nTurnips, sown in rows.", i))
	}
	url := startServer(t, dir, "-embedder", "ollama", "-min-score", "0.17")
	steptest.Eventually(t, steptest.Patience, isCaughtUp(t, url))
	before := watchingOf(t, url).CaughtUpAt

	for i := range notes {
		steptest.Write(t, filepath.Join(dir, fmt.Sprintf("Folder %d", i%10), fmt.Sprintf("Note %d.md", i)), fmt.Sprintf("# Note %d\n\nTurnips, sown in rows, pulled as zebra%03d.", i, i))
	}
	// The changes the system has queued are not counted until the watcher reads them, which
	// it does within moments.
	steptest.Eventually(t, steptest.Patience, func() string {
		if st := watchingOf(t, url); st.Backlog == 0 {
			return "index_status shows no backlog after 150 notes changed"
		}
		return ""
	})
	if got, _ := searchFor(t, url, map[string]any{"query": "turnips"}); !strings.Contains(got.Incomplete, "the index is behind the vault") {
		t.Errorf("a search while changes wait says %q, want that the index is behind", got.Incomplete)
	}
	pulled := regexp.MustCompile(`zebra(\d{3})`)
	steptest.Eventually(t, steptest.Patience, func() string {
		st := watchingOf(t, url)
		// Read what reached the model after index_status: nothing may be missing then.
		embedded := map[string]bool{}
		for _, input := range ollama.Inputs() {
			if m := pulled.FindStringSubmatch(input); m != nil && strings.HasPrefix(input, "search_document: ") {
				embedded[m[1]] = true
			}
		}
		if st.Backlog == 0 && st.Watcher == "ok" {
			if len(embedded) < notes {
				t.Fatalf("index_status says nothing waits (%+v), yet only %d of the %d changed notes were embedded", st, len(embedded), notes)
			}
			return ""
		}
		return fmt.Sprintf("index_status says %+v; %d of %d embedded", st, len(embedded), notes)
	})
	if after := watchingOf(t, url).CaughtUpAt; after == "" || after < before {
		t.Errorf("caughtUpAt is %q after the burst, %q before it; want it to move on", after, before)
	}
}

// TestVaultFolderMovedAwayAndBack: the vault folder moved away leaves the server answering,
// and saying that it notices nothing (in index_status and in every search); moved back, a
// note written then is searchable within seconds. With file events and when polling.
func TestVaultFolderMovedAwayAndBack(t *testing.T) {
	for _, mode := range []string{"events", "poll"} {
		t.Run(mode, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "vault")
			steptest.Write(t, filepath.Join(dir, "Garden", "Compost.md"), "# Compost\n\nBrown and green layers.")
			url := startServer(t, dir, "-embedder", "offline", "-watch", mode)
			steptest.Eventually(t, steptest.Patience, isCaughtUp(t, url))

			away := dir + " away"
			if err := os.Rename(dir, away); err != nil {
				t.Fatal(err)
			}
			steptest.Eventually(t, steptest.Patience, func() string {
				if st := watchingOf(t, url); st.Changes != "none" || !strings.Contains(st.Watcher, "moved away or removed") {
					return fmt.Sprintf("with the vault folder away, index_status says %+v", st)
				}
				return ""
			})
			if got, _ := searchFor(t, url, map[string]any{"query": "compost"}); !strings.Contains(got.Incomplete, "changes to the vault may go unnoticed") {
				t.Errorf("a search with the vault folder away says %q, want that changes may go unnoticed", got.Incomplete)
			}

			if err := os.Rename(away, dir); err != nil {
				t.Fatal(err)
			}
			steptest.Write(t, filepath.Join(dir, "Garden", "Kohlrabi.md"), "# Kohlrabi\n\nHarvest kohlrabi at tennis-ball size.")
			steptest.Eventually(t, steptest.Patience, finds(t, url, "harvest kohlrabi", "Garden/Kohlrabi.md"))
			steptest.Eventually(t, steptest.Patience, isCaughtUp(t, url))
		})
	}
}

// TestSymlinkedNoteFollowsItsTarget: a note that is a symbolic link to another changes when
// that one is saved, with file events too, though the save names only the other.
func TestSymlinkedNoteFollowsItsTarget(t *testing.T) {
	dir := t.TempDir()
	steptest.Write(t, filepath.Join(dir, "Garden", "Compost.md"), "# Compost\n\nBrown and green layers.")
	if err := os.Symlink(filepath.Join("Garden", "Compost.md"), filepath.Join(dir, "Heap.md")); err != nil {
		t.Skipf("cannot make symbolic links here: %v", err)
	}
	url := startServer(t, dir, "-embedder", "offline", "-watch", "events")
	steptest.Write(t, filepath.Join(dir, "Garden", "Compost.md"), "# Compost\n\nTurn the heap with a fork every fortnight.")
	steptest.Eventually(t, steptest.Patience, func() string {
		got, _ := searchFor(t, url, map[string]any{"query": "turn the heap fortnight", "limit": 5})
		var paths []string
		for _, h := range got.Results {
			if strings.Contains(h.Snippet, "fortnight") {
				paths = append(paths, h.Path)
			}
		}
		if slices.Sort(paths); !slices.Equal(paths, []string{"Garden/Compost.md", "Heap.md"}) {
			return fmt.Sprintf("the new text is found in %v, want both the note and the link to it", paths)
		}
		return ""
	})
}

// TestFailedRemovalIsRetried: a note deleted while the index cannot be written is listed as
// not indexed, and leaves the index once writes succeed again.
func TestFailedRemovalIsRetried(t *testing.T) {
	dir := t.TempDir()
	steptest.Write(t, filepath.Join(dir, "Gone.md"), "# Gone\n\nThe quince jelly set overnight.")
	steptest.Write(t, filepath.Join(dir, "Kept.md"), "# Kept\n\nParsnip soup.")
	db := filepath.Join(t.TempDir(), "index.db")
	url := startServer(t, dir, "-embedder", "offline", "-db", db)
	steptest.Eventually(t, steptest.Patience, isCaughtUp(t, url))

	heal := failWrites(t, db)
	if err := os.Remove(filepath.Join(dir, "Gone.md")); err != nil {
		t.Fatal(err)
	}
	steptest.Eventually(t, steptest.Patience, func() string {
		if st := watchingOf(t, url); st.NotIndexed["Gone.md"] == "" {
			return fmt.Sprintf("index_status does not list Gone.md, whose removal failed: %+v", st)
		}
		return ""
	})
	heal()
	steptest.Eventually(t, steptest.Patience, findsNone(t, url, "quince jelly", "Gone.md"))
	steptest.Eventually(t, steptest.Patience, isCaughtUp(t, url))
}

// failWrites makes every write to the index's notes (and, where the index keeps it, its link
// graph) fail, as on a full disk, until the function it returns is called. Triggers do it from
// outside the server, through a connection of the test's own: the server's code runs
// unchanged.
func failWrites(t *testing.T, db string) (heal func()) {
	t.Helper()
	conn, err := sqlite3.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	if err := conn.BusyTimeout(time.Minute); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, table := range []string{"notes", "link_notes"} {
		for _, op := range []string{"INSERT", "UPDATE", "DELETE"} {
			name := "fail_" + strings.ToLower(op) + "_" + table
			err := conn.Exec(fmt.Sprintf(`CREATE TRIGGER %s BEFORE %s ON %s BEGIN SELECT RAISE(ABORT, 'database or disk is full (a test''s trigger)'); END`, name, op, table))
			if err != nil && strings.Contains(err.Error(), "no such table") {
				continue // an index without the link graph's tables
			}
			if err != nil {
				t.Fatal(err)
			}
			names = append(names, name)
		}
	}
	return func() {
		for _, name := range names {
			if err := conn.Exec("DROP TRIGGER " + name); err != nil {
				t.Fatal(err)
			}
		}
		conn.Close()
	}
}

// TestOneRetryPerNote: a note that fails again while its retry waits (saved again and again
// while Ollama is down) keeps that one retry, on its own backoff; another note has its own.
func TestOneRetryPerNote(t *testing.T) {
	l := &live{retries: make(chan string, 16), attempts: map[string]int{}, retrying: map[string]bool{},
		logger: slog.New(slog.DiscardHandler)}
	failed := errors.New("Ollama is not answering")
	for range 6 {
		l.retryLater(t.Context(), "Draft.md", failed)
	}
	l.retryLater(t.Context(), "Other.md", failed)
	// Both retries are due after firstRetry; a busy machine may run them later. Once both
	// have come, a retry more would come within firstRetry.
	var tried []string
	deadline := time.After(steptest.Patience)
	for waiting := true; waiting; {
		if len(tried) == 2 {
			deadline = time.After(firstRetry)
		}
		select {
		case path := <-l.retries:
			tried = append(tried, path)
		case <-deadline:
			waiting = false
		}
	}
	if slices.Sort(tried); !slices.Equal(tried, []string{"Draft.md", "Other.md"}) {
		t.Errorf("after 6 failures of Draft.md and one of Other.md, the retries were %v; want one each", tried)
	}
	if l.attempts["Draft.md"] != 1 || l.attempts["Other.md"] != 1 {
		t.Errorf("attempts = %v, want one each: the failures while a retry waits are not counted", l.attempts)
	}
}

// TestPollsWhenInotifyIsUsedUp starts the server where the kernel refuses inotify_init, as
// for a user whose other programs hold every inotify instance fs.inotify.max_user_instances
// allows (128 by default). With -watch auto it must start, poll, say why in its log and in
// index_status, and index a new note. It runs in a child process in a user namespace of its
// own, whose limit it may set to 0 without touching any other program on the machine.
func TestPollsWhenInotifyIsUsedUp(t *testing.T) {
	const childEnv = "VAULTMCP_NO_INOTIFY_CHILD"
	if os.Getenv(childEnv) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestPollsWhenInotifyIsUsedUp$", "-test.v")
		cmd.Env = append(os.Environ(), childEnv+"=1")
		cmd.SysProcAttr = userNamespace()
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		switch {
		case cmd.SysProcAttr == nil:
			t.Skip("user namespaces are Linux's")
		case err != nil && !errors.As(err, &exit):
			t.Skipf("cannot start a process in a user namespace of its own here (%v); shared/watch's tests inject the failure instead", err)
		case strings.Contains(string(out), "--- SKIP"):
			t.Skipf("the child skipped:\n%s", out)
		case err != nil || !strings.Contains(string(out), "--- PASS: TestPollsWhenInotifyIsUsedUp"):
			t.Fatalf("the server without inotify instances: %v\n%s", err, out)
		}
		return
	}

	if err := os.WriteFile("/proc/sys/user/max_inotify_instances", []byte("0"), 0); err != nil {
		t.Skipf("cannot lower the namespace's limit of inotify instances: %v", err)
	}
	dir := t.TempDir()
	steptest.Write(t, filepath.Join(dir, "Garden", "Compost.md"), "# Compost\n\nBrown and green layers.")
	var log steptest.Logs
	url := startLogged(t, &log, "-vault", dir, "-db", filepath.Join(t.TempDir(), "index.db"), "-embedder", "offline", "-watch", "auto")
	const why = "the system refused a file watcher"
	if st := watchingOf(t, url); !strings.HasPrefix(st.Changes, "polling every") || !strings.Contains(st.Changes, why) ||
		!strings.Contains(st.Changes, "fs.inotify.max_user_instances") || st.Watcher != "ok" {
		t.Errorf("index_status says %+v; want polling, because %s, and what to raise", st, why)
	}
	if !strings.Contains(log.String(), "not using file events: "+why) {
		t.Errorf("the log does not say why the server polls:\n%s", log.String())
	}
	steptest.Write(t, filepath.Join(dir, "Garden", "Kohlrabi.md"), "# Kohlrabi\n\nHarvest kohlrabi at tennis-ball size.")
	steptest.Eventually(t, steptest.Patience, finds(t, url, "harvest kohlrabi", "Garden/Kohlrabi.md"))
}

// startLogged runs the program with args, its log copied to log, and returns its endpoint.
func startLogged(t *testing.T, log io.Writer, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	logs, logWriter := io.Pipe()
	done := make(chan error, 1)
	go func() {
		args := append([]string{"step", "-addr", "127.0.0.1:0"}, args...)
		done <- run(ctx, args, steptest.Env(), strings.NewReader(""), io.Discard, io.MultiWriter(logWriter, log))
		logWriter.Close()
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run returned %v", err)
		}
	})
	select {
	case url := <-steptest.URLFrom(logs):
		return url
	case <-time.After(time.Minute):
		t.Fatal("the server did not log its url")
		return ""
	}
}
