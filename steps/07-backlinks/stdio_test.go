package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"vaultmcp/shared/steptest"
)

// TestStdio runs the server as Claude Desktop does: messages in on stdin, answers out on
// stdout, one per line, and nothing else on stdout. Closing stdin ends it cleanly.
func TestStdio(t *testing.T) {
	getenv := steptest.Env(
		"VAULT_PATH", steptest.CopyVault(t), // later steps write to their vault
		"VAULTMCP_TRANSPORT", "stdio",
		// Read only by the steps that have an index.
		"VAULTMCP_EMBEDDER", "offline",
		"VAULTMCP_DB", filepath.Join(t.TempDir(), "index.db"),
	)
	session := steptest.StartStdio(t, run, getenv)

	// A 2026-07-28 client asks server/discover; a 2025 one opens with initialize.
	discover := session.Ask(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	if v, _ := json.Marshal(discover["result"]); !strings.Contains(string(v), `"2026-07-28"`) {
		t.Errorf("server/discover over stdio = %s, want 2026-07-28 among the versions", v)
	}
	init := session.Ask(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)
	if v := init["result"].(map[string]any)["protocolVersion"]; v != "2025-11-25" {
		t.Errorf("initialize over stdio agreed on %v, want 2025-11-25", v)
	}
	session.Send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	note := session.Ask(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_note","arguments":{"path":"Welcome.md"}}}`)
	if text, _ := json.Marshal(note["result"]); !strings.Contains(string(text), "Welcome") {
		t.Errorf("get_note over stdio = %s", text)
	}
	// The same checks as over HTTP: a path out of the vault is a tool error.
	escape := session.Ask(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"get_note","arguments":{"path":"../secret.md"}}}`)
	if escape["result"].(map[string]any)["isError"] != true {
		t.Errorf("get_note(../secret.md) over stdio = %v, want a tool error", escape)
	}
	session.Close()
}

// TestStdioFinishesWhatIsRunning: a client that closes stdin while a call runs still gets its
// answer before the server stops.
func TestStdioFinishesWhatIsRunning(t *testing.T) {
	steptest.FinishesOverStdio(t, serveStdio)
}
