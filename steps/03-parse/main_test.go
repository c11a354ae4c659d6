package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vaultmcp/shared/steptest"
)

// startServer runs the program as main would, on a free port over vaultDir, and returns its
// MCP endpoint.
func startServer(t *testing.T, vaultDir string) string {
	t.Helper()
	return steptest.Start(t, run, steptest.Env("VAULT_PATH", vaultDir))
}

// callTool calls a tool with a path argument and returns its text and whether it is an error.
func callTool(t *testing.T, url, tool string, path any) (text string, isError bool) {
	t.Helper()
	args, _ := json.Marshal(map[string]any{"path": path})
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + string(args) + `}}`
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var msg struct {
		Result struct {
			Content []struct{ Text string } `json:"content"`
			IsError bool                    `json:"isError"`
		} `json:"result"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil || len(msg.Result.Content) != 1 {
		t.Fatalf("%s(%v): unexpected response (%v)", tool, path, err)
	}
	return msg.Result.Content[0].Text, msg.Result.IsError
}

func TestToolsStayInsideTheVault(t *testing.T) {
	base := t.TempDir()
	vaultDir := filepath.Join(base, "vault")
	steptest.Write(t, filepath.Join(base, "secret.md"), "TOP SECRET")
	steptest.Write(t, filepath.Join(vaultDir, "Notes", "inside.md"), "---\ntags: [a]\n---\ninside the vault")
	if err := os.Symlink(filepath.Join(base, "secret.md"), filepath.Join(vaultDir, "Notes", "link.md")); err != nil {
		t.Skipf("cannot create symlinks here: %v", err)
	}
	url := startServer(t, vaultDir)

	for _, tool := range []string{"get_note", "get_outline"} {
		for _, path := range []any{
			"../secret.md", "Notes/../../secret.md", filepath.Join(base, "secret.md"), `..\secret.md`,
			"Notes/link.md", "Notes/inside.md\x00.png", strings.Repeat("a/", 3000) + "b.md", "", 42, nil,
		} {
			text, isError := callTool(t, url, tool, path)
			if !isError || strings.Contains(text, "TOP SECRET") {
				t.Errorf("%s(%q) = %q (isError %v), want a refusal", tool, path, text, isError)
			}
			if asked, _ := path.(string); strings.Contains(text, base) && !strings.Contains(asked, base) {
				t.Errorf("%s(%q) reveals where the vault is on disk: %q", tool, path, text)
			}
		}
		// After all that, the server still serves the note that is really there.
		if text, isError := callTool(t, url, tool, `Notes\inside`); isError || !strings.Contains(text, "inside the vault") {
			t.Errorf("%s(inside) = %q (isError %v)", tool, text, isError)
		}
	}
}
