// Package permtest takes permissions away in tests, to make what users' vaults hold: a folder
// the server may not read (lost+found, another user's folder), or a vault it may only read.
//
// Permissions do not bind every process: root reads and writes past them, and so do tests in
// CI containers that run as root. A test that needs them to bind is skipped there, saying
// why, rather than passing without having proved anything.
package permtest

import (
	"errors"
	"io/fs"
	"os"
	"testing"
)

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
