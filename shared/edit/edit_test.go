package edit

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"vaultmcp/shared/atomicfile"
	"vaultmcp/shared/inbox"
	"vaultmcp/shared/vault"
	"vaultmcp/shared/watch"
)

const secret = "the secret beside the vault"

// newEditor makes a vault with a few notes and, beside it, a folder "outside" holding
// secret.md. It returns the editor and the vault folder.
func newEditor(t *testing.T) (*Editor, string) {
	t.Helper()
	parent := t.TempDir()
	write(t, filepath.Join(parent, "outside", "secret.md"), secret)
	dir := filepath.Join(parent, "vault")
	write(t, filepath.Join(dir, "Day.md"), "---\ntags: [daily]\n---\n# Day\n\n## Log\n- 08:00 up\n\n## Ideas\n- boat\n")
	write(t, filepath.Join(dir, "Windows.md"), "\ufeff# Windows\r\n\r\n## Log\r\n- a\r\n")
	v, err := vault.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	e, err := Open(v)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e, dir
}

func write(t testing.TB, name, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func version(t testing.TB, name string) string {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return Version(data)
}

// tree hashes every file under dir (links as their targets' names), by relative path.
func tree(t testing.TB, dir string) map[string][32]byte {
	t.Helper()
	files := map[string][32]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		var data []byte
		if d.Type()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(p)
			data = []byte("link to " + target)
			if err != nil {
				return err
			}
		} else if data, err = os.ReadFile(p); err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = sha256.Sum256(data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func TestVersion(t *testing.T) {
	// sha256sum of an empty file, and of "abc": anyone can compute a version.
	for content, want := range map[string]string{
		"":    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		"abc": "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
	} {
		if got := Version([]byte(content)); got != want {
			t.Errorf("Version(%q) = %s, want %s", content, got, want)
		}
	}
}

func TestAppend(t *testing.T) {
	e, dir := newEditor(t)
	note, v, err := e.Append("Day", "- 09:00 tea", version(t, filepath.Join(dir, "Day.md")), "Log")
	if err != nil {
		t.Fatal(err)
	}
	want := "---\ntags: [daily]\n---\n# Day\n\n## Log\n- 08:00 up\n- 09:00 tea\n\n## Ideas\n- boat\n"
	if got, _ := os.ReadFile(filepath.Join(dir, "Day.md")); string(got) != want || note != "Day.md" || v != Version([]byte(want)) {
		t.Errorf("Append gave %q, version %s; the note holds\n%q\nwant\n%q", note, v, got, want)
	}
	// The new version is the one to send next.
	if _, _, err := e.Append("Day.md", "- 10:00 walk", v, ""); err != nil {
		t.Errorf("appending to the version Append returned: %v", err)
	}

	_, _, err = e.Append("Windows.md", "- b\n- c", version(t, filepath.Join(dir, "Windows.md")), "Log")
	if got, _ := os.ReadFile(filepath.Join(dir, "Windows.md")); err != nil || string(got) != "\ufeff# Windows\r\n\r\n## Log\r\n- a\r\n- b\r\n- c\r\n" {
		t.Errorf("a CRLF note with a BOM: %v, %q", err, got)
	}
	if left := leftovers(t, dir); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestAppendRefusals: each refusal is an error of its kind, and leaves every file of the
// vault, and the folder beside it, byte for byte as it was, with no file added.
func TestAppendRefusals(t *testing.T) {
	e, dir := newEditor(t)
	outside := filepath.Join(filepath.Dir(dir), "outside")
	write(t, filepath.Join(dir, ".obsidian", "app.json.md"), "settings")
	write(t, filepath.Join(dir, ".trash", "Old.md"), "deleted")
	write(t, filepath.Join(dir, "Binary.md"), "\x00\x01\x02PNG")
	write(t, filepath.Join(dir, "Picture.png"), "PNG")
	write(t, filepath.Join(dir, "Big.md"), strings.Repeat("x", vault.MaxNoteSize-100))
	write(t, filepath.Join(dir, "Locked.md"), "# Locked\n")
	const two = "## Home\n### Log\n## Work\n### Log\n"
	write(t, filepath.Join(dir, "Two.md"), two)
	if err := os.Chmod(filepath.Join(dir, "Locked.md"), 0o444); err != nil {
		t.Fatal(err)
	}
	links := os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(dir, "Link out.md")) == nil &&
		os.Symlink(outside, filepath.Join(dir, "Folder out")) == nil &&
		os.Symlink("Day.md", filepath.Join(dir, "Link in.md")) == nil
	if !links {
		t.Log("symbolic links cannot be made here; the link cases are skipped")
	}
	day := version(t, filepath.Join(dir, "Day.md"))
	before, outsideBefore := tree(t, dir), tree(t, outside)

	for _, tc := range []struct {
		name                   string
		path, text, ifMatch, h string
		kind                   error
		links                  bool
	}{
		{"a version that is not the note's", "Day.md", "x", Version([]byte("an older note")), "", ErrChanged, false},
		{"a version in the wrong form", "Day.md", "x", "v1", "", ErrChanged, false},
		{"an empty version", "Day.md", "x", "", "", ErrChanged, false},
		{"a heading that does not exist", "Day.md", "x", day, "Journal", ErrHeading, false},
		{"a heading that names two", "Two.md", "x", Version([]byte(two)), "Log", ErrHeading, false},
		{"a heading over its limit", "Day.md", "x", day, strings.Repeat("Log", MaxHeading), ErrHeading, false},
		{"a note that does not exist: never created", "Missing.md", "x", day, "", vault.ErrNotFound, false},
		{"a path out of the vault", "../outside/secret.md", "x", Version([]byte(secret)), "", vault.ErrOutside, false},
		{"an absolute path", filepath.Join(outside, "secret.md"), "x", Version([]byte(secret)), "", vault.ErrOutside, false},
		{"a symbolic link out of the vault", "Link out.md", "x", Version([]byte(secret)), "", vault.ErrOutside, true},
		{"a folder that is a link out of the vault", "Folder out/secret.md", "x", Version([]byte(secret)), "", vault.ErrOutside, true},
		{"a symbolic link inside the vault", "Link in.md", "x", day, "", vault.ErrNotNote, true},
		{"Obsidian's settings", ".obsidian/app.json.md", "x", Version([]byte("settings")), "", vault.ErrOutside, false},
		{"the trash", ".trash/Old.md", "x", Version([]byte("deleted")), "", vault.ErrOutside, false},
		{"a binary file", "Binary.md", "x", Version([]byte("\x00\x01\x02PNG")), "", vault.ErrNotNote, false},
		{"a file that is not a note", "Picture.png", "x", Version([]byte("PNG")), "", vault.ErrNotNote, false},
		{"a folder", "Folder", "x", day, "", vault.ErrNotNote, false},
		{"a result over the size limit", "Big.md", strings.Repeat("y", 200), version(t, filepath.Join(dir, "Big.md")), "", vault.ErrTooLarge, false},
		{"text over its limit", "Day.md", strings.Repeat("y", inbox.MaxContentSize+1), day, "", inbox.ErrInvalid, false},
		{"text that is not UTF-8", "Day.md", "\xff", day, "", inbox.ErrInvalid, false},
		{"text with a NUL", "Day.md", "a\x00b", day, "", inbox.ErrInvalid, false},
		{"no text", "Day.md", " \n", day, "", inbox.ErrInvalid, false},
		{"a note its owner made read-only", "Locked.md", "x", Version([]byte("# Locked\n")), "", inbox.ErrReadOnly, false},
	} {
		if tc.links && !links {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "a folder" {
				os.Mkdir(filepath.Join(dir, "Folder"), 0o755)
				defer os.Remove(filepath.Join(dir, "Folder"))
			}
			_, _, err := e.Append(tc.path, tc.text, tc.ifMatch, tc.h)
			if !errors.Is(err, tc.kind) {
				t.Errorf("Append(%.40q): %v; want a refusal of kind %q", tc.path, err, tc.kind)
			}
			if err != nil && strings.Contains(err.Error(), dir) {
				t.Errorf("the refusal shows where the vault is: %v", err)
			}
			if after := tree(t, dir); !maps.Equal(after, before) {
				t.Errorf("the vault changed")
			}
			if after := tree(t, outside); !maps.Equal(after, outsideBefore) {
				t.Errorf("the folder outside the vault changed")
			}
		})
	}
}

// TestAppendRechecksBeforeReplacing: an editor that saves the note after Append has read it,
// but before the new note takes its place, keeps its save; the append is refused.
func TestAppendRechecksBeforeReplacing(t *testing.T) {
	e, dir := newEditor(t)
	name := filepath.Join(dir, "Day.md")
	read := version(t, name)
	readAgain = func(root *os.Root, file string) ([]byte, error) {
		write(t, name, "# Day\n\nTyped by the user meanwhile.\n")
		return readFile(root, file)
	}
	defer func() { readAgain = readFile }()

	if _, _, err := e.Append("Day.md", "- 09:00 tea", read, "Log"); !errors.Is(err, ErrChanged) {
		t.Errorf("Append: %v; want ErrChanged", err)
	}
	if got, _ := os.ReadFile(name); string(got) != "# Day\n\nTyped by the user meanwhile.\n" {
		t.Errorf("the user's save was lost: %q", got)
	}
	if left := leftovers(t, dir); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestRacingAppends: ten appends sent with one version land exactly once. The second check
// of the version is slowed down, as on a busy disk, so that the ten would all pass it at once
// if nothing made them take turns.
func TestRacingAppends(t *testing.T) {
	e, dir := newEditor(t)
	read := version(t, filepath.Join(dir, "Day.md"))
	readAgain = func(root *os.Root, file string) ([]byte, error) {
		content, err := readFile(root, file)
		time.Sleep(20 * time.Millisecond)
		return content, err
	}
	defer func() { readAgain = readFile }()
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		landed  int
		refused int
	)
	for i := range 10 {
		wg.Go(func() {
			_, _, err := e.Append("Day.md", fmt.Sprintf("- racer %d", i), read, "Log")
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				landed++
			case errors.Is(err, ErrChanged):
				refused++
			default:
				t.Errorf("racer %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	got, _ := os.ReadFile(filepath.Join(dir, "Day.md"))
	if landed != 1 || refused != 9 || strings.Count(string(got), "- racer") != 1 {
		t.Errorf("%d landed and %d were refused; want 1 and 9. The note:\n%s", landed, refused, got)
	}
	if len(e.locks.held) != 0 {
		t.Errorf("%d locks are still held after every append ended", len(e.locks.held))
	}
}

// TestWatcherSeesOnlyTheNote: the file watcher reports an append as a change of the note,
// and never the temporary file it went through.
func TestWatcherSeesOnlyTheNote(t *testing.T) {
	e, dir := newEditor(t)
	w, err := watch.New(dir, watch.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	changes := make(chan watch.Change, 100)
	go w.Run(ctx, changes)

	for i := range 5 {
		if _, _, err := e.Append("Day.md", fmt.Sprint("- ", i), version(t, filepath.Join(dir, "Day.md")), ""); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case c := <-changes:
		if c.Path != "Day.md" || c.Op != watch.Updated {
			t.Errorf("the watcher reported %v; want an update of Day.md", c)
		}
	case <-time.After(time.Minute): // far longer than it takes, even on a busy machine
		t.Fatal("the watcher reported no change")
	}
	// Anything else it reports within the debounce is about the note too.
	for {
		select {
		case c := <-changes:
			if c.Path != "Day.md" {
				t.Errorf("the watcher reported %v", c)
			}
		case <-time.After(time.Second):
			return
		}
	}
}

// leftovers lists the temporary files of atomicfile under dir.
func leftovers(t testing.TB, dir string) []string {
	t.Helper()
	var found []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && atomicfile.IsTemp(d.Name()) {
			found = append(found, p)
		}
		return nil
	})
	return found
}

// The kill test runs this test binary again as a child that appends until it is killed, at
// a random moment, as kill -9 would stop a server.
const killDir = "EDIT_KILL_VAULT"

func TestAppendUntilKilled(t *testing.T) {
	dir := os.Getenv(killDir)
	if dir == "" {
		t.Skip("run by TestKilledWhileAppending")
	}
	v, err := vault.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	e, err := Open(v)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		if _, _, err := e.Append("Log.md", line(i), version(t, filepath.Join(dir, "Log.md")), "Log"); err != nil {
			t.Fatal(err)
		}
	}
}

func line(i int) string { return fmt.Sprintf("- entry %d %s", i, strings.Repeat("words ", 500)) }

// TestKilledWhileAppending kills a process that appends, at random moments. The note is then
// its first version with entries 0…k-1 each added whole, in order; after the clean-up every
// start of the server runs, no temporary file is left.
func TestKilledWhileAppending(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process per kill; `make check` runs it")
	}
	const head, tail = "# Journal\n\n## Log\n", "\n## Later\nkept\n"
	leftover, entries := 0, 0
	for round := range 10 {
		dir := t.TempDir()
		write(t, filepath.Join(dir, "Log.md"), head+tail)
		cmd := exec.Command(os.Args[0], "-test.run=^TestAppendUntilKilled$")
		cmd.Env = append(os.Environ(), killDir+"="+dir)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Wait for the first append, then a random moment more.
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			if info, err := os.Stat(filepath.Join(dir, "Log.md")); err == nil && info.Size() > int64(len(head+tail)) {
				break
			}
		}
		time.Sleep(time.Duration(rand.IntN(50_000)) * time.Microsecond)
		cmd.Process.Kill()
		cmd.Wait()

		got, err := os.ReadFile(filepath.Join(dir, "Log.md"))
		if err != nil {
			t.Fatal(err)
		}
		want := head
		for i := 0; len(want)+len(tail) < len(got); i++ {
			want += line(i) + "\n"
		}
		if string(got) != want+tail {
			t.Fatalf("round %d: the note is neither version: %d bytes, %.100q…", round, len(got), got)
		}
		if want == head {
			t.Fatalf("round %d: the child appended nothing before it was killed", round)
		}
		entries += strings.Count(want, "- entry")
		leftover += len(leftovers(t, dir))

		// The next start clears what the crash left.
		v, _ := vault.Open(dir)
		e, _ := Open(v)
		_, err = e.RemoveLeftovers(t.Context())
		e.Close()
		v.Close()
		if err != nil {
			t.Fatal(err)
		}
		if left := leftovers(t, dir); len(left) > 0 {
			t.Errorf("round %d: temporary files left after the clean-up: %v", round, left)
		}
	}
	t.Logf("10 kills after %d appends in all left %d temporary files, all removed by the clean-up", entries, leftover)
}
