package inbox_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestCreateWriteFails runs out of room halfway through a note, the way a full disk would:
// a file size limit makes the write fail (Go ignores the SIGXFSZ signal that comes with it).
// The half-written note is removed.
func TestCreateWriteFails(t *testing.T) {
	v, _ := newVault(t)
	in := openInbox(t, v, "Inbox")

	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Skip(err)
	}
	small := syscall.Rlimit{Cur: 1024, Max: old.Max}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &small); err != nil {
		t.Skip(err)
	}
	_, err := in.Create("Big", strings.Repeat("x", 4096), nil)
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Fatal(err)
	}

	if want := `note "Inbox/Big.md" could not be written, so it was not created: file too large`; err == nil || err.Error() != want {
		t.Errorf("error = %v; want %q", err, want)
	}
	if _, err := os.Lstat(filepath.Join(v.Dir(), "Inbox", "Big.md")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the half-written note is still there: %v", err)
	}
}
