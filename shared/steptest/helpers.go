package steptest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Write writes a file, and the folders it needs.
func Write(tb testing.TB, name, content string) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// CopyVault gives a test its own copy of the sample vault, which a step's test finds at
// ../../sample-vault, to serve and to edit.
func CopyVault(tb testing.TB) string {
	tb.Helper()
	dir := filepath.Join(tb.TempDir(), "vault")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "..", "sample-vault"))); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// Eventually polls check until it returns "" or the time is up, and then fails with the last
// thing check said. Never a fixed sleep: a change shows as soon as it is made, and a slow
// machine gets the whole bound.
func Eventually(tb testing.TB, within time.Duration, check func() string) {
	tb.Helper()
	deadline := time.Now().Add(within)
	for {
		problem := check()
		if problem == "" {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("after %v: %s", within, problem)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Logs is a log a server writes from several goroutines while a test reads it.
type Logs struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *Logs) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *Logs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// Errors returns the log's lines at level ERROR, at most five of them.
func (l *Logs) Errors() []string {
	var errors []string
	for line := range strings.Lines(l.String()) {
		if strings.Contains(line, "level=ERROR") && len(errors) < 5 {
			errors = append(errors, line)
		}
	}
	return errors
}

// RPCError is a JSON-RPC error object.
type RPCError struct {
	Code    int
	Message string
}

// RPC sends one JSON-RPC request, 2025-11-25 style (no _meta), and returns its result or its
// error.
func RPC(tb testing.TB, url, method string, params any) (result json.RawMessage, rpcErr *RPCError) {
	tb.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	var msg struct {
		Result json.RawMessage
		Error  *RPCError
	}
	if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil {
		tb.Fatalf("%s: the answer is not JSON-RPC: %v", method, err)
	}
	return msg.Result, msg.Error
}

// CallTool calls a tool and returns the text of its answer and whether it is a tool error.
// An answer with several parts (a notice that the text comes from the vault, then the text)
// gives the last.
func CallTool(tb testing.TB, url, tool string, arguments map[string]any) (text string, isError bool) {
	tb.Helper()
	raw, rpcErr := RPC(tb, url, "tools/call", map[string]any{"name": tool, "arguments": arguments})
	if rpcErr != nil {
		tb.Fatalf("%s(%v): JSON-RPC error %d: %s", tool, arguments, rpcErr.Code, rpcErr.Message)
	}
	var result struct {
		Content []struct{ Text string } `json:"content"`
		IsError bool                    `json:"isError"`
	}
	if err := json.Unmarshal(raw, &result); err != nil || len(result.Content) == 0 {
		tb.Fatalf("%s(%v): unexpected result %s (%v)", tool, arguments, raw, err)
	}
	return result.Content[len(result.Content)-1].Text, result.IsError
}

// Patience is how long a test waits for what a server does in the background (indexing, a
// file event, a notification, a retry) before it fails: far longer than any of it takes, so
// that a busy machine does not fail a test that a quiet one passes, and spent in full only
// when something is wrong. A test checks what happens; how soon is for the benchmarks
// (make bench), which measure it.
const Patience = time.Minute
