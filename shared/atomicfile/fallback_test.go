package atomicfile

import (
	"errors"
	"io/fs"
	"path/filepath"
	"syscall"
	"testing"
)

// TestCreateInPlace is the way Create takes on a file system without hard links: exclusive
// still, and nothing left of a file it could not write.
func TestCreateInPlace(t *testing.T) {
	root, dir := openRoot(t)
	if err := createInPlace(root, "New.md", []byte("whole"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(dir, "New.md")); got != "whole" {
		t.Errorf("content %q", got)
	}
	if err := createInPlace(root, "New.md", []byte("again"), 0o644); !errors.Is(err, fs.ErrExist) {
		t.Errorf("over an existing file: %v, want fs.ErrExist", err)
	}
	if got := read(t, filepath.Join(dir, "New.md")); got != "whole" {
		t.Errorf("the existing file now holds %q", got)
	}
	for _, err := range []error{syscall.ENOSYS, &fs.PathError{Op: "link", Err: syscall.ENOTSUP}} {
		if !noHardLinks(err) {
			t.Errorf("noHardLinks(%v) = false", err)
		}
	}
	for _, err := range []error{nil, fs.ErrExist, syscall.ENOENT} {
		if noHardLinks(err) {
			t.Errorf("noHardLinks(%v) = true", err)
		}
	}
}
