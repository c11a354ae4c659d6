package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"vaultmcp/shared/vault"
)

func openRoot(t *testing.T) (*os.Root, string) {
	t.Helper()
	dir := t.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return root, dir
}

func write(t *testing.T, name, content string, perm fs.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(content), perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(name, perm); err != nil { // past the umask
		t.Fatal(err)
	}
}

func read(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// temps lists the temporary files of this package under dir.
func temps(t *testing.T, dir string) []string {
	t.Helper()
	var found []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && IsTemp(d.Name()) {
			found = append(found, p)
		}
		return nil
	})
	return found
}

func TestCreate(t *testing.T) {
	root, dir := openRoot(t)
	if err := os.Mkdir(filepath.Join(dir, "Inbox"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Create(root, filepath.Join("Inbox", "New.md"), []byte("whole"), 0o666); err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(dir, "Inbox", "New.md")
	if got := read(t, name); got != "whole" {
		t.Errorf("content %q, want %q", got, "whole")
	}
	// The umask applies, as to any file created with 0666: never a note anyone may write.
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	info, _ := os.Stat(name)
	if want, _ := os.Stat(plain); info.Mode().Perm() != want.Mode().Perm() {
		t.Errorf("permissions %v, want %v, as os.WriteFile gives with 0666", info.Mode().Perm(), want.Mode().Perm())
	}
	if left := temps(t, dir); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestCreateNeverReplaces: a file, or a symbolic link that leads nowhere, keeps its name.
func TestCreateNeverReplaces(t *testing.T) {
	root, dir := openRoot(t)
	write(t, filepath.Join(dir, "Taken.md"), "the user's", 0o644)
	links := os.Symlink(filepath.Join(dir, "nowhere"), filepath.Join(dir, "Dangling.md")) == nil
	for _, name := range []string{"Taken.md", "Dangling.md"} {
		if name == "Dangling.md" && !links {
			continue
		}
		if err := Create(root, name, []byte("new"), 0o644); !errors.Is(err, fs.ErrExist) {
			t.Errorf("Create over %s: %v, want an error that matches fs.ErrExist", name, err)
		}
	}
	if got := read(t, filepath.Join(dir, "Taken.md")); got != "the user's" {
		t.Errorf("Taken.md now holds %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "nowhere")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Create wrote through the dangling link: %v", err)
	}
	if left := temps(t, dir); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestReplace(t *testing.T) {
	root, dir := openRoot(t)
	name := filepath.Join(dir, "Note.md")
	// Writable by the group and others: bits a usual umask (022) takes from a new file, which
	// the note must keep all the same.
	write(t, name, "old", 0o666)
	if err := Replace(root, "Note.md", []byte("new"), func() error { return nil }); err != nil {
		t.Fatal(err)
	}
	if got := read(t, name); got != "new" {
		t.Errorf("content %q, want %q", got, "new")
	}
	if info, _ := os.Stat(name); runtime.GOOS != "windows" && info.Mode().Perm() != 0o666 {
		t.Errorf("permissions %v, want the note's own, 0666", info.Mode().Perm())
	}
	if left := temps(t, dir); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestReplaceRefuses: a failed check, a symbolic link and a read-only note each leave every
// file as it was, and no temporary file.
func TestReplaceRefuses(t *testing.T) {
	root, dir := openRoot(t)
	write(t, filepath.Join(dir, "Note.md"), "old", 0o644)
	write(t, filepath.Join(dir, "Locked.md"), "locked", 0o444)
	links := os.Symlink("Note.md", filepath.Join(dir, "Link.md")) == nil
	changed := errors.New("changed since read")

	if err := Replace(root, "Note.md", []byte("new"), func() error { return changed }); !errors.Is(err, changed) {
		t.Errorf("a failed check: %v, want its error", err)
	}
	if links {
		if err := Replace(root, "Link.md", []byte("new"), func() error { return nil }); err == nil {
			t.Error("a symbolic link was replaced")
		}
		if info, err := os.Lstat(filepath.Join(dir, "Link.md")); err != nil || info.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("Link.md is no longer a link: %v", err)
		}
	}
	if err := Replace(root, "Locked.md", []byte("new"), func() error { return nil }); !errors.Is(err, fs.ErrPermission) {
		t.Errorf("a read-only note: %v, want an error that matches fs.ErrPermission", err)
	}
	if err := Replace(root, "Missing.md", []byte("new"), func() error { return nil }); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing note: %v, want fs.ErrNotExist", err)
	}
	for name, want := range map[string]string{"Note.md": "old", "Locked.md": "locked"} {
		if got := read(t, filepath.Join(dir, name)); got != want {
			t.Errorf("%s holds %q, want %q", name, got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "Missing.md")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Replace created a missing note: %v", err)
	}
	if left := temps(t, dir); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestTempNamesAreHidden: the vault's rules (which the watcher and the index follow) leave
// every temporary file out, and no model can name one.
func TestTempNamesAreHidden(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		name := TempName()
		if !IsTemp(name) || seen[name] {
			t.Fatalf("TempName gave %q, which IsTemp does not recognise or was given before", name)
		}
		seen[name] = true
		if _, err := vault.CleanPath("Inbox/" + name); err == nil {
			t.Errorf("a model could name the temporary file %q", name)
		}
	}
	for _, name := range []string{".vaultmcp-0123.tmp", "vaultmcp-0123456789abcdef.tmp", ".vaultmcp-0123456789abcdeg.tmp",
		".vaultmcp-0123456789abcdef.tmp.md", "Note.md", ".vaultmcp-.tmp", "0123456789abcdef.tmp", ".vaultmcp-0123456789abcdef"} {
		if IsTemp(name) {
			t.Errorf("IsTemp(%q) = true", name)
		}
	}
}

// TestRemoveLeftovers removes our old temporary files, wherever they are in visible folders,
// and nothing else: not a file that only looks like one, not one younger than the start, and
// nothing inside a hidden folder.
func TestRemoveLeftovers(t *testing.T) {
	root, dir := openRoot(t)
	old := time.Now().Add(-time.Hour)
	ours := []string{".vaultmcp-0123456789abcdef.tmp", "Deep/Er/.vaultmcp-fedcba9876543210.tmp"}
	theirs := []string{"Note.md", ".vaultmcp-0123.tmp", "x.md.tmp", ".obsidian/.vaultmcp-0123456789abcdef.tmp"}
	for _, p := range append(slices.Clone(ours), theirs...) {
		name := filepath.Join(dir, filepath.FromSlash(p))
		write(t, name, "x", 0o644)
		os.Chtimes(name, old, old)
	}
	young := filepath.Join(dir, ".vaultmcp-00000000000000ff.tmp")
	write(t, young, "being written", 0o644)

	removed, err := RemoveLeftovers(t.Context(), root, time.Now().Add(-time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(removed)
	if want := []string{".vaultmcp-0123456789abcdef.tmp", "Deep/Er/.vaultmcp-fedcba9876543210.tmp"}; !slices.Equal(removed, want) {
		t.Errorf("removed %q, want %q", removed, want)
	}
	for _, p := range append(theirs, filepath.Base(young)) {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(p))); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
}

// The crash tests run this test binary again as a child that writes and is killed at one
// stage of the write, as kill -9 or a power cut would stop it. Then the parent looks at what
// the child left.
const (
	crashEnv   = "ATOMICFILE_CRASH"   // the stage at which the child kills itself
	crashOp    = "ATOMICFILE_OP"      // create or replace
	crashDir   = "ATOMICFILE_DIR"     // the folder it writes in
	crashFinal = "the whole new note" // what it writes
)

func TestCrashChild(t *testing.T) {
	stage := os.Getenv(crashEnv)
	if stage == "" {
		t.Skip("run by TestCrash")
	}
	root, err := os.OpenRoot(os.Getenv(crashDir))
	if err != nil {
		t.Fatal(err)
	}
	crashPoint = func(s string) {
		if s == stage {
			p, _ := os.FindProcess(os.Getpid())
			p.Kill() // SIGKILL: no deferred call, no cleanup runs
			select {}
		}
	}
	if os.Getenv(crashOp) == "create" {
		err = Create(root, "New.md", []byte(crashFinal), 0o644)
	} else {
		err = Replace(root, "Note.md", []byte(crashFinal), func() error { return nil })
	}
	t.Fatalf("the write ran to its end (%v) without reaching stage %q", err, stage)
}

// TestCrash kills a write at every stage. The file is then the old one or the new one, whole
// (Create: absent, or whole), and RemoveLeftovers clears whatever temporary file the crash
// left, as a server does at its next start.
func TestCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process per stage; `make check` runs it")
	}
	for op, stages := range map[string][]string{
		"create":  {"writing", "written", "linking", "linked", "unlinked"},
		"replace": {"writing", "written", "checking", "renaming", "renamed"},
	} {
		for _, stage := range stages {
			t.Run(op+"/"+stage, func(t *testing.T) {
				root, dir := openRoot(t)
				if op == "replace" {
					write(t, filepath.Join(dir, "Note.md"), "the old note", 0o644)
				}
				cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$")
				cmd.Env = append(os.Environ(), crashEnv+"="+stage, crashOp+"="+op, crashDir+"="+dir)
				out, err := cmd.CombinedOutput()
				if exit, ok := errors.AsType[*exec.ExitError](err); !ok || exit.Success() || strings.Contains(string(out), "ran to its end") {
					t.Fatalf("the child was not killed at %q: %v\n%s", stage, err, out)
				}

				name, states := "Note.md", []string{"the old note", crashFinal}
				if op == "create" {
					name, states = "New.md", []string{"", crashFinal} // "" for no note at all
				}
				got, err := os.ReadFile(filepath.Join(dir, name))
				if err != nil && !errors.Is(err, fs.ErrNotExist) {
					t.Fatal(err)
				}
				if err == nil && op == "create" && len(got) == 0 {
					t.Fatalf("killed at %q, the new note exists and is empty", stage)
				}
				if !slices.Contains(states, string(got)) {
					t.Fatalf("killed at %q, %s holds %q: neither the old note nor the new one", stage, name, got)
				}
				t.Logf("killed at %q: %s holds %q, temporary files %d", stage, name, got, len(temps(t, dir)))

				if _, err := RemoveLeftovers(t.Context(), root, time.Now().Add(time.Second)); err != nil {
					t.Fatal(err)
				}
				if left := temps(t, dir); len(left) > 0 {
					t.Errorf("after RemoveLeftovers, temporary files are left: %v", left)
				}
			})
		}
	}
}
