package main

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vaultmcp/shared/steptest"
)

// TestBusyPortLeavesTheIndexAlone: a server refused because another program holds its port
// stops before it opens the index: it has not created it, let alone emptied or rebuilt it.
func TestBusyPortLeavesTheIndexAlone(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	vaultDir := t.TempDir()
	steptest.Write(t, filepath.Join(vaultDir, "Note.md"), "# Note")
	dbDir := filepath.Join(t.TempDir(), "index")

	err = steptest.StartFails(t, run, steptest.Env(), "-embedder", "offline",
		"-addr", busy.Addr().String(), "-vault", vaultDir, "-db", filepath.Join(dbDir, "index.db"))
	for _, want := range []string{"cannot listen", "-addr or VAULTMCP_ADDR"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("run on a busy port = %v; want an error containing %q", err, want)
		}
	}
	if _, err := os.Stat(dbDir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the refused server made the index's folder, or more (%v)", err)
	}
}

// TestOneServerPerIndex: a second server on the index of a running one refuses at once, names
// the file and says what to do, and leaves the index to the first.
func TestOneServerPerIndex(t *testing.T) {
	vaultDir := t.TempDir()
	steptest.Write(t, filepath.Join(vaultDir, "Note.md"), "# Note\n\nThe compost heap needs air.")
	db := filepath.Join(t.TempDir(), "index.db")
	url := startServer(t, vaultDir, "-embedder", "offline", "-db", db)

	err := steptest.StartFails(t, run, steptest.Env(), "-embedder", "offline", "-addr", "127.0.0.1:0", "-vault", vaultDir, "-db", db)
	for _, want := range []string{"the index " + db + " is in use by another vaultmcp server", "its own index with -db or VAULTMCP_DB"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("a second server on the same index: %v; want an error containing %q", err, want)
		}
	}
	if text, isError := steptest.CallTool(t, url, "search_vault", map[string]any{"query": "compost heap"}); isError || !strings.Contains(text, "Note.md") {
		t.Errorf("the first server, after the second was refused: search_vault = %q (isError %v)", text, isError)
	}
}
