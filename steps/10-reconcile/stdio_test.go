package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vaultmcp/shared/ollamatest"
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

// oneShot runs the server over stdio as `printf '<request>\n' | vaultmcp -transport stdio`
// does: one request, and stdin closed right after it. It returns the one answer, and how long
// the server took to give it and stop.
func oneShot(t *testing.T, getenv func(string) string, request string) (searchResult, string, time.Duration) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	start := time.Now()
	if err := run(t.Context(), []string{"vaultmcp"}, getenv, strings.NewReader(request+"\n"), &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\nits log:\n%s", err, stderr.String())
	}
	took := time.Since(start)
	var msg struct {
		Result struct {
			Content           []struct{ Text string } `json:"content"`
			StructuredContent searchResult            `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &msg); err != nil || len(msg.Result.Content) == 0 {
		t.Fatalf("the one-shot's answer %q: %v\nthe log:\n%s", stdout.String(), err, stderr.String())
	}
	return msg.Result.StructuredContent, msg.Result.Content[len(msg.Result.Content)-1].Text, took
}

const oneShotSearch = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_vault","arguments":{"query":"tomato blight","folder":"Garden"}}}`

// TestStdioFirstSearchWaitsForTheIndex: a one-shot over stdio on a vault never indexed finds
// what the vault holds, filter included, where it used to find nothing, since it asked
// before the first note was stored.
func TestStdioFirstSearchWaitsForTheIndex(t *testing.T) {
	getenv := steptest.Env("VAULT_PATH", steptest.CopyVault(t), "VAULTMCP_TRANSPORT", "stdio",
		"VAULTMCP_EMBEDDER", "offline", "VAULTMCP_DB", filepath.Join(t.TempDir(), "index.db"))
	got, text, _ := oneShot(t, getenv, oneShotSearch)
	if got.Incomplete != "" || len(got.Results) == 0 || got.Results[0].Path != "Garden/Tomatoes.md" {
		t.Errorf("a one-shot search on a new index = %+v (%q); want Garden/Tomatoes.md first, from a complete index", got, text)
	}
}

// TestStdioFirstSearchSaysHowFar: when the first index takes longer than a search waits, the
// one-shot answers after startupWait with what is indexed, and says how far the index got,
// rather than a bare "nothing relevant".
func TestStdioFirstSearchSaysHowFar(t *testing.T) {
	vaultDir := t.TempDir()
	for i := range 200 {
		steptest.Write(t, filepath.Join(vaultDir, "Garden", fmt.Sprintf("bed %03d.md", i)), fmt.Sprintf("# Bed %d\n\nTomato blight in bed %d.\n", i, i))
	}
	// Each input costs the stand-in 100 ms: the 200 notes take 20 s, one query 0.1 s.
	ollama := ollamatest.NewServer(ollamatest.Options{InputLatency: 100 * time.Millisecond})
	defer ollama.Close()
	t.Setenv("OLLAMA_HOST", ollama.URL)
	getenv := steptest.Env("VAULT_PATH", vaultDir, "VAULTMCP_TRANSPORT", "stdio", "VAULTMCP_EMBEDDER", "ollama",
		"VAULTMCP_MIN_SCORE", "0.17", "VAULTMCP_DB", filepath.Join(t.TempDir(), "index.db"))
	got, text, took := oneShot(t, getenv, oneShotSearch)
	if !strings.Contains(got.Incomplete, "of 200 notes so far") || len(got.Results) == 0 && !strings.Contains(text, "Nothing in the notes indexed so far") {
		t.Errorf("a one-shot search while the first index is being built = %+v (%q); want it to say how many of the 200 notes are indexed", got, text)
	}
	// That it answered before the whole index was built, the words above say; a busy machine
	// may take longer than startupWait to answer, never less.
	if took < startupWait {
		t.Errorf("the one-shot took %v; want it to wait %v for the index, then answer", took, startupWait)
	}
}
