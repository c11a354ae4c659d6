package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"vaultmcp/shared/steptest"
)

// TestStopWhileIndexing stops the server, as Ctrl-C or a client's SIGTERM would, while it
// embeds the vault. Stopping is what was asked, so it is no failure: run returns nil, and the
// log has no line at ERROR. Nor does it claim an index it never finished: no "index up to
// date" line for a catch-up that was cut short.
func TestStopWhileIndexing(t *testing.T) {
	ollama, vaultDir := steptest.SlowToIndex(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var logs steptest.Logs
	done := make(chan error, 1)
	// The index, from step 5 on, goes in the test's own folder.
	getenv := steptest.Env("VAULT_PATH", vaultDir, "VAULTMCP_DB", filepath.Join(t.TempDir(), "index.db"))
	go func() {
		args := []string{"vaultmcp", "-addr", "127.0.0.1:0", "-embedder", "ollama"}
		done <- run(ctx, args, getenv, strings.NewReader(""), &strings.Builder{}, &logs)
	}()
	steptest.WaitForEmbedding(t, ollama, done, &logs)
	cancel()
	steptest.StoppedCleanly(t, done, &logs)
	if strings.Contains(logs.String(), "index up to date") {
		t.Errorf("stopped in the middle of the catch-up, the log says the index is up to date:\n%s", logs.String())
	}
}
