package main

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"vaultmcp/shared/ollamatest"
)

// TestStopWhileIndexing stops the server, as Ctrl-C or a client's SIGTERM would, while it
// embeds the vault. Stopping is what was asked, so it is no failure: run returns nil, and the
// log has no line at ERROR.
func TestStopWhileIndexing(t *testing.T) {
	ollama, vaultDir := slowToIndex(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var logs lockedBuffer
	done := make(chan error, 1)
	// The index, from step 5 on, goes in the test's own folder.
	env := map[string]string{"VAULT_PATH": vaultDir, "VAULTMCP_DB": filepath.Join(t.TempDir(), "index.db")}
	go func() {
		args := []string{"vaultmcp", "-addr", "127.0.0.1:0", "-embedder", "ollama"}
		done <- run(ctx, args, func(key string) string { return env[key] }, strings.NewReader(""), &bytes.Buffer{}, &logs)
	}()
	waitForEmbedding(t, ollama, done, &logs)
	cancel()
	checkStoppedCleanly(t, done, &logs)
}

// slowToIndex starts the Ollama stand-in, slow enough that indexing takes seconds, and
// writes a vault of 300 notes for it.
func slowToIndex(t *testing.T) (*ollamatest.Server, string) {
	t.Helper()
	ollama := ollamatest.NewServer(ollamatest.Options{InputLatency: 20 * time.Millisecond})
	t.Cleanup(ollama.Close)
	t.Setenv("OLLAMA_HOST", ollama.URL)
	vaultDir := t.TempDir()
	for i := range 300 {
		write(t, filepath.Join(vaultDir, fmt.Sprintf("Note %03d.md", i)), fmt.Sprintf("# Note %d\n\nword%d", i, i))
	}
	return ollama, vaultDir
}

// waitForEmbedding waits until the server has sent the stand-in a few notes to embed. It
// fails the test if run returns first.
func waitForEmbedding(t *testing.T, ollama *ollamatest.Server, done <-chan error, logs *lockedBuffer) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); len(ollama.Inputs()) < 10; time.Sleep(10 * time.Millisecond) {
		select {
		case err := <-done:
			t.Fatalf("run returned %v before indexing began; the log:\n%s", err, logs.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("indexing did not begin within a minute; the log:\n%s", logs.String())
		}
	}
}

// checkStoppedCleanly waits for run to return, and checks that it returned nil and logged
// nothing at ERROR.
func checkStoppedCleanly(t *testing.T, done <-chan error, logs *lockedBuffer) {
	t.Helper()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("run stopped while indexing = %v; want nil", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("run did not stop within a minute of being told to")
	}
	var errors []string
	for line := range strings.Lines(logs.String()) {
		if strings.Contains(line, "level=ERROR") && len(errors) < 5 {
			errors = append(errors, line)
		}
	}
	if len(errors) > 0 {
		t.Errorf("stopping logged errors; the first:\n%s", strings.Join(errors, ""))
	}
}

// lockedBuffer is a log the server writes from several goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
