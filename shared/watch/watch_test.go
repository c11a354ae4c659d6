package watch

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	"vaultmcp/shared/permtest"
)

// These tests watch real folders with the real fsnotify. They never sleep to wait for an
// outcome: they wait for the change they expect, up to patience, and then check that
// nothing else comes within twice the window, which is the one wait that must be fixed.

// testDebounce keeps the tests quick, yet is far longer than the events of one write take
// (open, truncate, write), even on a busy machine.
const testDebounce = 200 * time.Millisecond

// patience bounds the wait for a change. A change that comes at all comes far sooner, even on
// a busy machine; the bound only turns a missing change into a failure instead of a hung test.
const patience = time.Minute

func updated(p string) Change { return Change{Op: Updated, Path: p} }
func removed(p string) Change { return Change{Op: Removed, Path: p} }

// A testVault is a fresh vault folder with a running Watcher.
type testVault struct {
	t        *testing.T
	dir      string
	w        *Watcher
	debounce time.Duration
	opts     Options // besides the debounce and the logger
	changes  chan Change
}

// watchVault writes the given notes into a fresh vault and watches it until the test ends;
// the test fails if Run then ends with an error.
func watchVault(t *testing.T, debounce time.Duration, notes ...string) *testVault {
	t.Helper()
	v := newTestVault(t, debounce, notes...)
	v.watch()
	return v
}

// newTestVault writes the given notes into a fresh vault, which watch then watches.
func newTestVault(t *testing.T, debounce time.Duration, notes ...string) *testVault {
	t.Helper()
	v := &testVault{t: t, dir: t.TempDir(), debounce: debounce, changes: make(chan Change)}
	for _, n := range notes {
		v.write(n, "# "+n)
	}
	return v
}

// watch watches the vault until the test ends; the test fails if Run then ends with an error.
func (v *testVault) watch() {
	t := v.t
	t.Helper()
	opts := v.opts
	opts.Debounce, opts.Logger = v.debounce, testLogger(t)
	w, err := New(v.dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	v.w = w
	done := make(chan error, 1)
	go func() { done <- w.Run(t.Context(), v.changes) }()
	t.Cleanup(func() {
		if err := <-done; err != nil { // t.Context is cancelled before cleanups run
			t.Errorf("Run: %v", err)
		}
		if err := w.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
}

// testLogger shows the watcher's log with the output of a failed test.
func testLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func (v *testVault) path(p string) string { return filepath.Join(v.dir, filepath.FromSlash(p)) }

func (v *testVault) write(p, content string) {
	v.t.Helper()
	v.mkdirAll(filepath.Dir(p))
	if err := os.WriteFile(v.path(p), []byte(content), 0o644); err != nil {
		v.t.Fatal(err)
	}
}

func (v *testVault) mkdirAll(p string) {
	v.t.Helper()
	if err := os.MkdirAll(v.path(p), 0o755); err != nil {
		v.t.Fatal(err)
	}
}

func (v *testVault) rename(from, to string) {
	v.t.Helper()
	if err := os.Rename(v.path(from), v.path(to)); err != nil {
		v.t.Fatal(err)
	}
}

func (v *testVault) removeAll(p string) {
	v.t.Helper()
	if err := os.RemoveAll(v.path(p)); err != nil {
		v.t.Fatal(err)
	}
}

// expect waits for exactly the wanted changes, in any order, and then for quiet.
func (v *testVault) expect(want ...Change) {
	v.t.Helper()
	missing := slices.Clone(want)
	deadline := time.After(patience)
	for len(missing) > 0 {
		select {
		case c := <-v.changes:
			i := slices.Index(missing, c)
			if i < 0 {
				v.t.Fatalf("unexpected change %v; still waiting for %v", c, missing)
			}
			missing = slices.Delete(missing, i, i+1)
		case <-deadline:
			v.t.Fatalf("no %v within %v", missing, patience)
		}
	}
	v.quiet()
}

// quiet fails if any change comes within twice the window.
func (v *testVault) quiet() {
	v.t.Helper()
	select {
	case c := <-v.changes:
		v.t.Fatalf("unexpected change %v", c)
	case <-time.After(2 * v.debounce):
	}
}

func TestBurstOfWritesIsOneChange(t *testing.T) {
	t.Parallel()
	v := watchVault(t, DefaultDebounce, "Note.md")
	for i := range 50 { // 50 writes within a second, as an autosaving editor might
		v.write("Note.md", fmt.Sprintf("draft %d", i))
		time.Sleep(20 * time.Millisecond)
	}
	v.expect(updated("Note.md"))
}

func TestPathsDoNotDelayEachOther(t *testing.T) {
	t.Parallel()
	v := watchVault(t, DefaultDebounce, "Busy.md", "Calm.md")
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() { // Busy.md never falls quiet while this runs
		defer close(stopped)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			if err := os.WriteFile(v.path("Busy.md"), []byte(fmt.Sprint(i)), 0o644); err != nil {
				t.Error(err)
				return
			}
		}
	}()

	v.write("Calm.md", "# calm")
	select {
	case c := <-v.changes:
		if c != updated("Calm.md") {
			t.Errorf("first change %v, want %v", c, updated("Calm.md"))
		}
	case <-time.After(patience):
		t.Errorf("no change within %v", patience)
	}
	close(stop)
	<-stopped
	v.expect(updated("Busy.md"))
}

func TestNoteCreateModifyDelete(t *testing.T) {
	t.Parallel()
	v := watchVault(t, testDebounce, "Old.md")
	v.quiet() // notes there at the start are the consumer's to index, not changes

	v.write("New.md", "# New")
	v.expect(updated("New.md"))
	v.write("New.md", "# New, edited")
	v.expect(updated("New.md"))
	v.removeAll("New.md")
	v.expect(removed("New.md"))
	v.write("Folder/Deep.MD", "# Deep") // any case of .md is a note
	v.expect(updated("Folder/Deep.MD"))
}

func TestNoteRename(t *testing.T) {
	t.Parallel()
	v := watchVault(t, testDebounce, "Draft.md")
	v.rename("Draft.md", "Final.md")
	v.expect(removed("Draft.md"), updated("Final.md"))
}

func TestNoteMoveBetweenFolders(t *testing.T) {
	t.Parallel()
	v := watchVault(t, testDebounce, "Inbox/Idea.md", "Projects/Plan.md")
	v.rename("Inbox/Idea.md", "Projects/Idea.md")
	v.expect(removed("Inbox/Idea.md"), updated("Projects/Idea.md"))
}

func TestSaveThroughTempFile(t *testing.T) {
	t.Parallel()
	v := watchVault(t, testDebounce, "Note.md")

	// An atomic save: write a temp file beside the note, rename it over the note.
	v.write("Note.md.tmp", "# Saved atomically")
	v.rename("Note.md.tmp", "Note.md")
	v.expect(updated("Note.md"))

	// vim's save: probe the folder, move the note to a backup, write it anew, drop the backup.
	v.write("4913", "")
	v.removeAll("4913")
	v.rename("Note.md", "Note.md~")
	v.write("Note.md", "# Saved by vim")
	v.removeAll("Note.md~")
	v.expect(updated("Note.md"))
}

func TestFolderDelete(t *testing.T) {
	t.Parallel()
	v := watchVault(t, testDebounce, "Keep.md", "Old/a.md", "Old/Sub/b.md", "Old/Sub/c.txt")
	v.removeAll("Old")
	v.expect(removed("Old/a.md"), removed("Old/Sub/b.md"))
}

func TestFolderRename(t *testing.T) {
	t.Parallel()
	v := watchVault(t, testDebounce, "Old/a.md", "Old/Sub/b.md")
	v.rename("Old", "New")
	v.expect(removed("Old/a.md"), removed("Old/Sub/b.md"), updated("New/a.md"), updated("New/Sub/b.md"))

	// The folders below the renamed one are watched under their new paths.
	v.write("New/Sub/b.md", "# b, edited")
	v.write("New/Sub/c.md", "# c")
	v.expect(updated("New/Sub/b.md"), updated("New/Sub/c.md"))
}

func TestFolderMoveIntoFolder(t *testing.T) {
	t.Parallel()
	v := watchVault(t, testDebounce, "Projects/Alpha/a.md", "Projects/Alpha/Notes/b.md", "Archive/x.md")
	v.rename("Projects/Alpha", "Archive/Alpha")
	v.expect(removed("Projects/Alpha/a.md"), removed("Projects/Alpha/Notes/b.md"),
		updated("Archive/Alpha/a.md"), updated("Archive/Alpha/Notes/b.md"))

	v.write("Archive/Alpha/Notes/b.md", "# b, edited")
	v.expect(updated("Archive/Alpha/Notes/b.md"))
}

func TestFolderMovedInAndOut(t *testing.T) {
	t.Parallel()
	v := watchVault(t, testDebounce)
	outside := t.TempDir()
	for _, p := range []string{"Trip/Plan.md", "Trip/Days/Monday.md", "Trip/Days/photo.jpg"} {
		name := filepath.Join(outside, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// A folder moved in makes one event; its notes are found by listing it.
	if err := os.Rename(filepath.Join(outside, "Trip"), v.path("Trip")); err != nil {
		t.Fatal(err)
	}
	v.expect(updated("Trip/Plan.md"), updated("Trip/Days/Monday.md"))
	v.write("Trip/Days/Tuesday.md", "# Tuesday")
	v.expect(updated("Trip/Days/Tuesday.md"))

	// A folder moved out makes one event too; the Watcher knows which notes it held.
	if err := os.Rename(v.path("Trip"), filepath.Join(outside, "Trip again")); err != nil {
		t.Fatal(err)
	}
	v.expect(removed("Trip/Plan.md"), removed("Trip/Days/Monday.md"), removed("Trip/Days/Tuesday.md"))
}

func TestNewFolderWithNotes(t *testing.T) {
	t.Parallel()
	v := watchVault(t, testDebounce)
	// Folders made and filled at once: the notes may exist before their folder is watched.
	v.mkdirAll("A/B/C")
	v.write("A/B/C/deep.md", "# deep")
	v.write("A/top.md", "# top")
	v.expect(updated("A/B/C/deep.md"), updated("A/top.md"))

	v.write("A/B/C/later.md", "# later")
	v.expect(updated("A/B/C/later.md"))
}

// TestUnreadableFolder: a folder this process may not read, such as lost+found or another
// user's folder, is left out (vault.Notes leaves it out too), and the rest of the vault is
// watched. As root, whom permissions do not bind, it runs as the user nobody.
func TestUnreadableFolder(t *testing.T) {
	if permtest.Unprivileged(t) {
		return
	}
	t.Parallel()
	v := newTestVault(t, testDebounce, "Private/Diary.md", "Private/Deeper/Plan.md", "Open/Home.md")
	permtest.Chmod(t, v.path("Private"), 0)
	v.watch()
	v.write("Open/New.md", "# new")
	v.expect(updated("Open/New.md"))
}

func TestIgnoredPaths(t *testing.T) {
	t.Parallel()
	v := watchVault(t, testDebounce, ".obsidian/app.json")
	for _, p := range []string{
		".obsidian/app.json", ".obsidian/plugins/dataview/data.json", ".obsidian/workspace.md",
		".trash/a.md", ".git/HEAD", ".git/objects/ab/cdef", "Folder/.git/x.md",
		".hidden.md", "Folder/.DS_Store", "notes.txt", "image.png",
		"x.md.swp", ".x.md.swp", "x.md~", "4913", "#x.md#", ".#x.md", "x.md.tmp",
		".~lock.x.md#", "x.md.crdownload", "x.md___jb_tmp___",
	} {
		v.write(p, "ignored")
	}
	// Events come in order, so once the change for the last note has come, any change for
	// the paths above would have come before it.
	v.write("Visible.md", "# seen")
	v.expect(updated("Visible.md"))
}

func TestSymlinks(t *testing.T) {
	t.Parallel()
	v := watchVault(t, testDebounce, "Real.md")
	outside := filepath.Join(t.TempDir(), "Secret.md")
	if err := os.WriteFile(outside, []byte("# secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	// As for vault.Notes, a link to a note inside the vault is a note; one leading outside is not.
	if err := os.Symlink("Real.md", v.path("Link.md")); err != nil {
		t.Skipf("cannot make symbolic links here: %v", err)
	}
	if err := os.Symlink(outside, v.path("Escape.md")); err != nil {
		t.Fatal(err)
	}
	v.expect(updated("Link.md"), Change{Op: NotNote, Path: "Escape.md", Why: "a link that leads outside the vault"})
}

func TestObsidianTrash(t *testing.T) {
	t.Parallel()
	// Obsidian deletes by moving into .trash, and restoring moves back.
	v := watchVault(t, testDebounce, "Note.md", "Old/a.md", ".trash/keep.md")
	v.rename("Note.md", ".trash/Note.md")
	v.rename("Old", ".trash/Old")
	v.expect(removed("Note.md"), removed("Old/a.md"))

	v.rename(".trash/Old", "Old")
	v.expect(updated("Old/a.md"))
}

func TestOverflowAsksForRescan(t *testing.T) {
	t.Parallel()
	v := watchVault(t, testDebounce, "Old/a.md")
	// An overflow cannot be made on purpose without flooding the machine; hand the error
	// to the Watcher the way fsnotify would.
	v.w.fsw.Errors <- fsnotify.ErrEventOverflow
	v.expect(Change{Op: Rescan})

	// The watches were rebuilt: everything still works, renamed folders included.
	v.rename("Old", "New")
	v.expect(removed("Old/a.md"), updated("New/a.md"))
	v.write("New/b.md", "# b")
	v.expect(updated("New/b.md"))
}

// TestVaultMovedAwayAndBack: the vault folder moved away makes the Watcher say, in Noticing,
// that it notices nothing, rather than stop; moved back, it is watched again, and a Rescan
// covers what happened meanwhile. With events and when polling.
func TestVaultMovedAwayAndBack(t *testing.T) {
	for _, mode := range []Mode{Events, Poll} {
		t.Run(string(mode), func(t *testing.T) {
			t.Parallel()
			v := &testVault{t: t, dir: filepath.Join(t.TempDir(), "vault"), debounce: testDebounce, changes: make(chan Change)}
			v.write("Old.md", "# Old")
			v.opts = Options{Mode: mode, PollEvery: testPollEvery, quick: testPollEvery}
			v.watch()
			away := v.dir + " away"
			if err := os.Rename(v.dir, away); err != nil {
				t.Fatal(err)
			}
			waitFor(t, func() string {
				if n := v.w.Noticing(); n.Mode != "" || !strings.Contains(n.Trouble, "moved away or removed") || n.String() != "none" {
					return fmt.Sprintf("Noticing() = %+v, want nothing noticed, and why", n)
				}
				return ""
			})
			// A note written while the folder is away is not the vault's yet.
			if err := os.WriteFile(filepath.Join(away, "Written away.md"), []byte("# away"), 0o644); err != nil {
				t.Fatal(err)
			}
			v.quiet()

			if err := os.Rename(away, v.dir); err != nil {
				t.Fatal(err)
			}
			v.expect(Change{Op: Rescan})
			if n := v.w.Noticing(); n.Mode != mode || n.Trouble != "" {
				t.Errorf("Noticing() = %+v once the folder is back, want %s and no trouble", n, mode)
			}
			v.write("Back.md", "# back")
			v.expect(updated("Back.md"))
			v.write("Folder/Deeper.md", "# deeper")
			v.expect(updated("Folder/Deeper.md"))
		})
	}
}

// TestVaultReplaced: another folder made where the vault folder was is not the folder the
// Watcher (and the server's vault.Vault) hold open: it says a restart is needed.
func TestVaultReplaced(t *testing.T) {
	t.Parallel()
	v := &testVault{t: t, dir: filepath.Join(t.TempDir(), "vault"), debounce: testDebounce, changes: make(chan Change)}
	v.write("Old.md", "# Old")
	v.opts = Options{quick: testPollEvery}
	v.watch()
	if err := os.Rename(v.dir, v.dir+" away"); err != nil {
		t.Fatal(err)
	}
	v.mkdirAll(".")
	waitFor(t, func() string {
		if n := v.w.Noticing(); !strings.Contains(n.Trouble, "another folder now stands where the vault folder was; restart") {
			return fmt.Sprintf("Noticing() = %+v, want a restart asked for", n)
		}
		return ""
	})
	v.quiet()
}

// waitFor polls check until it returns "", or fails the test with what it last said.
func waitFor(t *testing.T, check func() string) {
	t.Helper()
	deadline := time.Now().Add(patience)
	for {
		problem := check()
		if problem == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %s", patience, problem)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestSymlinkedNoteFollowsItsTarget: saving a note makes events for its own name only; a note
// that is a link to it changed too, and comes out with it.
func TestSymlinkedNoteFollowsItsTarget(t *testing.T) {
	t.Parallel()
	v := newTestVault(t, testDebounce, "Real.md", "Folder/Deep.md")
	if err := os.Symlink("Real.md", v.path("Link.md")); err != nil {
		t.Skipf("cannot make symbolic links here: %v", err)
	}
	v.mkdirAll("Other")
	if err := os.Symlink("../Folder/Deep.md", v.path("Other/Link to deep.md")); err != nil {
		t.Fatal(err)
	}
	v.watch()
	v.write("Real.md", "# Real, edited")
	v.expect(updated("Real.md"), updated("Link.md"))
	v.write("Folder/Deep.md.tmp", "# Deep, saved through a temp file")
	v.rename("Folder/Deep.md.tmp", "Folder/Deep.md")
	v.expect(updated("Folder/Deep.md"), updated("Other/Link to deep.md"))

	// A link made later, and one pointed elsewhere, are followed as they are now.
	if err := os.Symlink("Folder/Deep.md", v.path("Late link.md")); err != nil {
		t.Fatal(err)
	}
	v.expect(updated("Late link.md"))
	v.removeAll("Link.md")
	if err := os.Symlink("Folder/Deep.md", v.path("Link.md")); err != nil {
		t.Fatal(err)
	}
	v.expect(updated("Link.md"))
	v.write("Folder/Deep.md", "# Deep, edited again")
	v.expect(updated("Folder/Deep.md"), updated("Other/Link to deep.md"), updated("Late link.md"), updated("Link.md"))
	v.write("Real.md", "# Real, no longer linked")
	v.expect(updated("Real.md"))
}

// TestUnservableNames: with Unservable, notes whose names vault.Notes leaves out come and go
// as changes too, so that a consumer listing them keeps its list current; hidden paths stay
// out. Without it, they are not reported.
func TestUnservableNames(t *testing.T) {
	t.Parallel()
	for _, report := range []bool{true, false} {
		v := newTestVault(t, testDebounce, "Plain.md")
		v.opts = Options{Unservable: report}
		v.watch()
		v.write("Time 10:30.md", "# a name Windows refuses")
		v.write("Trailing dot./Note.md", "# in a folder Windows would rename")
		v.write(".hidden/Note.md", "# hidden")
		v.write("Plain.md", "# edited")
		if report {
			v.expect(updated("Time 10:30.md"), updated("Trailing dot./Note.md"), updated("Plain.md"))
			v.removeAll("Time 10:30.md")
			v.expect(removed("Time 10:30.md"))
		} else {
			v.expect(updated("Plain.md"))
		}
	}
}

// TestWaitingAndSent: the counts a consumer reads to know how far behind the disk it is.
func TestWaitingAndSent(t *testing.T) {
	t.Parallel()
	v := watchVault(t, testDebounce)
	for i := range 3 {
		v.write(fmt.Sprintf("Note %d.md", i), "# note")
	}
	// Nobody takes the changes yet: all three wait.
	waitFor(t, func() string {
		if n := v.w.Waiting(); n != 3 || v.w.Sent() != 0 {
			return fmt.Sprintf("Waiting() = %d, Sent() = %d, want 3 and 0", n, v.w.Sent())
		}
		return ""
	})
	for range 3 {
		<-v.changes
	}
	waitFor(t, func() string {
		if n := v.w.Waiting(); n != 0 || v.w.Sent() != 3 {
			return fmt.Sprintf("Waiting() = %d, Sent() = %d, want 0 and 3", n, v.w.Sent())
		}
		return ""
	})
}

func TestNewFails(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "file.md")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{filepath.Join(dir, "missing"), file} {
		if w, err := New(d, Options{}); err == nil {
			w.Close()
			t.Errorf("New(%q) succeeded, want an error", d)
		}
	}
}

func TestRunOnceCloseTwice(t *testing.T) {
	t.Parallel()
	w, err := New(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- w.Run(context.Background(), make(chan Change)) }()
	for deadline := time.Now().Add(patience); !w.running.Load(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("Run did not start")
		}
	}

	if err := w.Run(context.Background(), make(chan Change)); err == nil || !strings.Contains(err.Error(), "runs once") {
		t.Fatalf("second Run = %v, want an error", err)
	}
	for range 2 {
		if err := w.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run after Close = %v, want nil", err)
		}
	case <-time.After(patience):
		t.Fatal("Run did not return after Close")
	}
}

// TestNoGoroutineLeak runs alone (not in parallel), so the goroutine count is its own.
func TestNoGoroutineLeak(t *testing.T) {
	before := runtime.NumGoroutine()
	for range 3 {
		dir := t.TempDir()
		w, err := New(dir, Options{Debounce: testDebounce})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		changes := make(chan Change)
		done := make(chan error, 1)
		go func() { done <- w.Run(ctx, changes) }()
		if err := os.WriteFile(filepath.Join(dir, "a.md"), []byte("a"), 0o644); err != nil {
			t.Fatal(err)
		}
		// Leave a second change waiting in the Watcher when it stops.
		if err := os.WriteFile(filepath.Join(dir, "b.md"), []byte("b"), 0o644); err != nil {
			t.Fatal(err)
		}
		select {
		case <-changes:
		case <-time.After(patience):
			t.Fatal("no change")
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		w.Close()
	}

	deadline := time.Now().Add(patience)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			var stacks bytes.Buffer
			pprof.Lookup("goroutine").WriteTo(&stacks, 1)
			t.Fatalf("%d goroutines before, %d after:\n%s", before, runtime.NumGoroutine(), &stacks)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
