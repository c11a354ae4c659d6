package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestDiskFull runs out of room halfway through the new content, the way a full disk would:
// a file size limit makes the write fail (Go ignores the SIGXFSZ signal that comes with it).
// The note keeps its old content, and no temporary file is left.
func TestDiskFull(t *testing.T) {
	root, dir := openRoot(t)
	write(t, filepath.Join(dir, "Note.md"), "old", 0o644)

	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Skip(err)
	}
	small := syscall.Rlimit{Cur: 1024, Max: old.Max}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &small); err != nil {
		t.Skip(err)
	}
	replaceErr := Replace(root, "Note.md", []byte(strings.Repeat("x", 4096)), func() error { return nil })
	createErr := Create(root, "New.md", []byte(strings.Repeat("x", 4096)), 0o644)
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Fatal(err)
	}

	if replaceErr == nil || createErr == nil {
		t.Fatalf("writes past the limit succeeded: %v, %v", replaceErr, createErr)
	}
	if got := read(t, filepath.Join(dir, "Note.md")); got != "old" {
		t.Errorf("the note holds %d bytes, not its old content", len(got))
	}
	if _, err := os.Stat(filepath.Join(dir, "New.md")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the new note exists: %v", err)
	}
	if left := temps(t, dir); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
