package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStdio runs the server as Claude Desktop does: messages in on stdin, answers out on
// stdout, one per line, and nothing else on stdout. Closing stdin ends it cleanly.
func TestStdio(t *testing.T) {
	// A copy of the sample vault: later steps write to their vault.
	vaultDir := filepath.Join(t.TempDir(), "vault")
	if err := os.CopyFS(vaultDir, os.DirFS("../../sample-vault")); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{
		"VAULT_PATH":         vaultDir,
		"VAULTMCP_TRANSPORT": "stdio",
		// Read only by the steps that have an index.
		"VAULTMCP_EMBEDDER": "offline",
		"VAULTMCP_DB":       filepath.Join(t.TempDir(), "index.db"),
	}
	stdin, toServer := io.Pipe()
	fromServer, stdout := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(t.Context(), []string{"vaultmcp"}, func(k string) string { return env[k] }, stdin, stdout, io.Discard)
		stdout.Close()
	}()
	answers := bufio.NewScanner(fromServer)
	answers.Buffer(nil, 1<<20)
	ask := func(request string) map[string]any {
		t.Helper()
		if _, err := io.WriteString(toServer, request+"\n"); err != nil {
			t.Fatal(err)
		}
		if !answers.Scan() {
			t.Fatalf("no answer to %s: %v", request, answers.Err())
		}
		var msg map[string]any
		if err := json.Unmarshal(answers.Bytes(), &msg); err != nil {
			t.Fatalf("stdout holds something that is not a JSON-RPC message: %q", answers.Text())
		}
		return msg
	}

	// A 2026-07-28 client asks server/discover; a 2025 one opens with initialize.
	discover := ask(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	if v, _ := json.Marshal(discover["result"]); !strings.Contains(string(v), `"2026-07-28"`) {
		t.Errorf("server/discover over stdio = %s, want 2026-07-28 among the versions", v)
	}
	init := ask(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)
	if v := init["result"].(map[string]any)["protocolVersion"]; v != "2025-11-25" {
		t.Errorf("initialize over stdio agreed on %v, want 2025-11-25", v)
	}
	io.WriteString(toServer, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")

	note := ask(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_note","arguments":{"path":"Welcome.md"}}}`)
	if text, _ := json.Marshal(note["result"]); !strings.Contains(string(text), "Welcome") {
		t.Errorf("get_note over stdio = %s", text)
	}
	// The same checks as over HTTP: a path out of the vault is a tool error.
	escape := ask(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"get_note","arguments":{"path":"../secret.md"}}}`)
	if escape["result"].(map[string]any)["isError"] != true {
		t.Errorf("get_note(../secret.md) over stdio = %v, want a tool error", escape)
	}

	toServer.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("run after stdin closed: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the server did not stop when stdin closed")
	}
}

func TestBoundedLines(t *testing.T) {
	read := func(input string, max int) error {
		_, err := io.ReadAll(&boundedLines{r: strings.NewReader(input), max: max})
		return err
	}
	if err := read("short\nlines\nonly\n", 5); err != nil {
		t.Errorf("lines within the bound: %v", err)
	}
	if err := read("short\n"+strings.Repeat("x", 6)+"\n", 5); err == nil {
		t.Error("a line over the bound was let through")
	}
	// The bound is per line, not per stream.
	if err := read(strings.Repeat("12345\n", 10_000), 5); err != nil {
		t.Errorf("many short lines: %v", err)
	}
}
