//go:build unix

package store

import (
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestOpenPipe: a -db that names a named pipe (or a device, or a socket) is refused before
// anything is created. SQLite would otherwise wait, with the server, for a writer to open the
// pipe's other end.
func TestOpenPipe(t *testing.T) {
	path := filepath.Join(t.TempDir(), "index.db")
	if err := unix.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
	openFails(t, path, Config{}, path+" is not a regular file", "-db or VAULTMCP_DB")
	nothingBeside(t, path)
}
