// Package permtest takes permissions away in tests, to make what users' vaults hold: a folder
// the server may not read (lost+found, another user's folder), or a vault it may only read.
//
// Permissions do not bind every process: root reads and writes past them, and CI containers
// often run tests as root. So a test that needs them to bind starts with Unprivileged, which
// runs it again as the user nobody when this process is root; and Chmod skips, saying why,
// where even that is impossible, rather than pass without having proved anything.
package permtest

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// childEnv marks the process Unprivileged starts, which must run the test itself.
const childEnv = "VAULTMCP_PERMTEST_CHILD"

// Unprivileged runs the test t again, in a new process of the same test binary, as the user
// nobody (uid 65534) when this process is root on Linux, and reports whether it did: the
// caller then returns at once, and the test passes or fails as the child did. Elsewhere, and
// in the child, it returns false and the test goes on here.
//
//	if permtest.Unprivileged(t) {
//		return
//	}
//
// The child runs in a fresh temporary folder, its home, cache and working folder, since the
// checkout may be private to root: a test that uses it must make what it needs there.
func Unprivileged(t *testing.T) bool {
	t.Helper()
	if runtime.GOOS != "linux" || os.Geteuid() != 0 || os.Getenv(childEnv) != "" {
		return false
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("this process is root, whom permissions do not bind, and setpriv (util-linux) is missing to run the test as another user")
	}
	// t.TempDir's parent is private to root; this folder must be open to nobody.
	dir, err := os.MkdirTemp("", "permtest")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	home := filepath.Join(dir, "home")
	binary := filepath.Join(dir, filepath.Base(os.Args[0]))
	if err := errors.Join(os.Chmod(dir, 0o755), os.Mkdir(home, 0o777), os.Chmod(home, 0o777), copyFile(os.Args[0], binary)); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups",
		binary, "-test.run", runPattern(t.Name()), "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), childEnv+"=1", "HOME="+home, "XDG_CACHE_HOME="+home, "TMPDIR="+home)
	cmd.Dir = home // the checkout may be private to root, as in a folder from mktemp -d
	out, err := cmd.CombinedOutput()
	switch {
	case err != nil:
		t.Fatalf("run as the user nobody: %v\n%s", err, out)
	case !bytes.Contains(out, []byte("--- PASS: "+t.Name()+" ")):
		t.Fatalf("run as the user nobody, the test did not pass (skipped, or not found):\n%s", out)
	}
	return true
}

// runPattern is the -test.run pattern that selects exactly the test (or subtest) name.
func runPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

func copyFile(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}

// Chmod sets the mode of the folder dir for the rest of the test, and restores it afterwards
// so that t.TempDir can remove what is inside. It skips the test when the mode does not keep
// this process out: a folder without read permission that it can still list, or one without
// write permission where it can still create a file.
func Chmod(t testing.TB, dir string, mode fs.FileMode) {
	t.Helper()
	info, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, mode); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, info.Mode().Perm()) })

	if mode&0o400 == 0 {
		if _, err := os.ReadDir(dir); err == nil {
			t.Skipf("a folder of mode %v can still be listed by this process (root?); this test needs permissions that bind, as for a normal user", mode)
		}
	}
	if mode&0o200 == 0 {
		f, err := os.CreateTemp(dir, "probe")
		if err == nil {
			f.Close()
			os.Remove(f.Name())
			t.Skipf("a folder of mode %v can still be written by this process (root?); this test needs permissions that bind, as for a normal user", mode)
		}
		if !errors.Is(err, fs.ErrPermission) {
			t.Fatalf("probing a folder of mode %v: %v", mode, err)
		}
	}
}
