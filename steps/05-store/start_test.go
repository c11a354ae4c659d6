package main

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// startFails runs the program with args, as a second server or a mistyped command would, and
// returns the error it stopped with. A refusal comes at once; a server that starts instead is
// stopped after a while, and fails the test. The error says why, so the log must not add a
// false alarm at ERROR before it.
func startFails(t *testing.T, args ...string) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	noEnv := func(string) string { return "" }
	var logs strings.Builder
	err := run(ctx, append([]string{"vaultmcp", "-embedder", "offline"}, args...), noEnv, strings.NewReader(""), io.Discard, &logs)
	if err == nil {
		t.Fatalf("run %q started and served; want it refused", args)
	}
	if strings.Contains(logs.String(), "level=ERROR") {
		t.Errorf("run %q logged an error before it stopped with %q:\n%s", args, err, logs.String())
	}
	return err
}

// TestBusyPortLeavesTheIndexAlone: a server refused because another program holds its port
// stops before it opens the index: it has not created it, let alone emptied or rebuilt it.
func TestBusyPortLeavesTheIndexAlone(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	vaultDir := t.TempDir()
	write(t, filepath.Join(vaultDir, "Note.md"), "# Note")
	dbDir := filepath.Join(t.TempDir(), "index")

	err = startFails(t, "-addr", busy.Addr().String(), "-vault", vaultDir, "-db", filepath.Join(dbDir, "index.db"))
	if !strings.Contains(err.Error(), "cannot listen") {
		t.Errorf("run on a busy port = %v; want an error saying it cannot listen", err)
	}
	if _, err := os.Stat(dbDir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the refused server made the index's folder, or more (%v)", err)
	}
}

// TestOneServerPerIndex: a second server on the index of a running one refuses at once, names
// the file and says what to do, and leaves the index to the first.
func TestOneServerPerIndex(t *testing.T) {
	vaultDir := t.TempDir()
	write(t, filepath.Join(vaultDir, "Note.md"), "# Note\n\nThe compost heap needs air.")
	db := filepath.Join(t.TempDir(), "index.db")
	url := startServer(t, vaultDir, "-embedder", "offline", "-db", db)

	err := startFails(t, "-addr", "127.0.0.1:0", "-vault", vaultDir, "-db", db)
	for _, want := range []string{"the index " + db + " is in use by another vaultmcp server", "-db"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("a second server on the same index: %v; want an error containing %q", err, want)
		}
	}
	if text, isError := call(t, url, "search_vault", map[string]any{"query": "compost heap"}); isError || !strings.Contains(text, "Note.md") {
		t.Errorf("the first server, after the second was refused: search_vault = %q (isError %v)", text, isError)
	}
}
