package inbox_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	"vaultmcp/shared/atomicfile"
	"vaultmcp/shared/inbox"
	"vaultmcp/shared/vault"
)

// body is the content of note i: large enough that a note caught half written would show it.
func body(i int) string {
	return strings.Repeat(fmt.Sprintf("Line of note %d, long enough to take several writes.\n", i), 2000)
}

const header = "---\ncreated_by: vaultmcp\n---\n"

// TestWatcherNeverSeesAPartialNote watches the inbox with fsnotify, as the server's watcher,
// Obsidian and sync tools do, and reads each note the moment an event names it, while notes
// are created. Every read must find the whole note: a note created empty and then written
// would be seen empty at its creation.
func TestWatcherNeverSeesAPartialNote(t *testing.T) {
	v, _ := newVault(t)
	in := openInbox(t, v, "Inbox")
	folder := filepath.Join(v.Dir(), "Inbox")
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		t.Skipf("no file events here: %v", err)
	}
	defer w.Close()
	if err := w.Add(folder); err != nil {
		t.Fatal(err)
	}

	const notes = 30
	var (
		mu    sync.Mutex
		reads = map[string]int{}
		bad   []string
		done  = make(chan struct{})
	)
	go func() {
		defer close(done)
		for {
			select {
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				name := filepath.Base(ev.Name)
				if !strings.HasSuffix(name, ".md") || !ev.Has(fsnotify.Create|fsnotify.Write) {
					continue
				}
				data, err := os.ReadFile(ev.Name)
				if errors.Is(err, os.ErrNotExist) {
					continue
				}
				i, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(name, "Note "), ".md"))
				mu.Lock()
				reads[name]++
				if string(data) != header+body(i) {
					bad = append(bad, fmt.Sprintf("%s on %v: %d bytes of %d", name, ev.Op, len(data), len(header+body(i))))
				}
				mu.Unlock()
			case <-w.Errors:
			}
		}
	}()

	for i := range notes {
		if _, err := in.Create(fmt.Sprintf("Note %d", i), body(i), nil); err != nil {
			t.Fatal(err)
		}
	}
	// Wait for the event of the last note before stopping the watcher.
	deadline := time.Now().Add(time.Minute) // far longer than it takes, even on a busy machine
	for {
		mu.Lock()
		seen := len(reads)
		mu.Unlock()
		if seen == notes || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	w.Close()
	<-done

	if len(reads) != notes {
		t.Errorf("events named %d of the %d notes created", len(reads), notes)
	}
	for _, b := range bad {
		t.Errorf("a reader saw a partial note: %s", b)
	}
}

// The kill test runs this test binary again as a child that creates notes until it is
// killed, as kill -9 would stop a server, at a random moment.
const killDir = "INBOX_KILL_VAULT"

func TestCreateUntilKilled(t *testing.T) {
	dir := os.Getenv(killDir)
	if dir == "" {
		t.Skip("run by TestKilledWhileCreating")
	}
	v, err := vault.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	in, err := inbox.Open(v, "Inbox")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		if _, err := in.Create(fmt.Sprintf("Note %d", i), body(i), nil); err != nil {
			t.Fatal(err)
		}
	}
}

// TestKilledWhileCreating kills a process that creates notes, at random moments. Each note
// it leaves is whole; what a temporary file it leaves is removed by the clean-up every start
// of the server runs (atomicfile.RemoveLeftovers), after which none is left.
func TestKilledWhileCreating(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process per kill; `make check` runs it")
	}
	leftovers := 0
	for round := range 10 {
		dir := t.TempDir()
		cmd := exec.Command(os.Args[0], "-test.run=^TestCreateUntilKilled$")
		cmd.Env = append(os.Environ(), killDir+"="+dir)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Wait for the first note, then a random moment more.
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			if _, err := os.Stat(filepath.Join(dir, "Inbox", "Note 0.md")); err == nil {
				break
			}
		}
		time.Sleep(time.Duration(rand.IntN(20_000)) * time.Microsecond)
		cmd.Process.Kill()
		cmd.Wait()

		entries, err := os.ReadDir(filepath.Join(dir, "Inbox"))
		if err != nil {
			t.Fatal(err)
		}
		notes := 0
		for _, e := range entries {
			name := e.Name()
			if atomicfile.IsTemp(name) {
				leftovers++
				continue
			}
			i, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(name, "Note "), ".md"))
			if err != nil {
				t.Fatalf("round %d: an unexpected file %q", round, name)
			}
			data, err := os.ReadFile(filepath.Join(dir, "Inbox", name))
			if err != nil {
				t.Fatal(err)
			}
			if string(data) != header+body(i) {
				t.Errorf("round %d: %s holds %d bytes, not the whole note's %d", round, name, len(data), len(header+body(i)))
			}
			notes++
		}
		if notes == 0 {
			t.Fatalf("round %d: the child created no note before it was killed", round)
		}

		root, err := os.OpenRoot(dir)
		if err != nil {
			t.Fatal(err)
		}
		_, err = atomicfile.RemoveLeftovers(t.Context(), root, time.Now().Add(time.Second))
		root.Close()
		if err != nil {
			t.Fatal(err)
		}
		entries, _ = os.ReadDir(filepath.Join(dir, "Inbox"))
		for _, e := range entries {
			if atomicfile.IsTemp(e.Name()) {
				t.Errorf("round %d: a temporary file is left after the clean-up: %s", round, e.Name())
			}
		}
	}
	t.Logf("10 kills left %d temporary files, all removed", leftovers)
}
