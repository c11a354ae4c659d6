// Package interop checks that every step works with the official MCP TypeScript client as it
// is: client.mjs connects with the SDK's Streamable HTTP transport (and its stdio transport,
// for the steps that offer -transport stdio) and reports what it saw.
package interop

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"vaultmcp/scripts/transcript"
)

type report struct {
	ProtocolVersion string            `json:"protocolVersion"`
	Server          map[string]string `json:"server"`
	Tools           []string          `json:"tools"`
	Ping            toolResult        `json:"ping"`
	EchoMissing     toolResult        `json:"echoMissing"`
	Note            *toolResult       `json:"note"`
	Search          *toolResult       `json:"search"`
	UnknownTool     struct {
		Code int `json:"code"`
	} `json:"unknownTool"`
}

type toolResult struct {
	Content []struct{ Text string } `json:"content"`
	IsError bool                    `json:"isError"`
}

func TestOfficialTypeScriptClient(t *testing.T) {
	root, err := transcript.Root()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "scripts", "interop")
	if _, err := exec.LookPath("node"); err != nil {
		skipOrFail(t, "node is not installed")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		skipOrFail(t, "the TypeScript SDK is not installed; run `npm ci` in scripts/interop (make test does)")
	}
	steps, err := transcript.Steps(root)
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	for _, step := range steps {
		t.Run(step.Name, func(t *testing.T) {
			exe, err := transcript.Build(context.Background(), root, step, bin)
			if err != nil {
				t.Fatal(err)
			}
			env := []string{"VAULT_PATH=" + filepath.Join(root, "sample-vault"), "VAULTMCP_EMBEDDER=offline"}
			srv, err := transcript.Start(exe, slices.Concat(env, []string{"VAULTMCP_DB=" + filepath.Join(t.TempDir(), "index.db")}))
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Stop()
			cmd := exec.Command("node", "client.mjs", srv.URL)
			cmd.Dir = dir
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("the TypeScript client failed: %v\n%s\nserver log:\n%s", err, stderrOf(err), srv.Logs())
			}
			check(t, out)

			// A step that also speaks stdio (-transport stdio, from step 10) must look the
			// same to the client there: the SDK starts it itself, as Claude Desktop would.
			if usage, _ := exec.Command(exe, "-h").CombinedOutput(); !strings.Contains(string(usage), "-transport") {
				return
			}
			t.Run("stdio", func(t *testing.T) {
				cmd := exec.Command("node", "client.mjs", "--stdio", exe)
				cmd.Dir = dir
				// The server inherits the client's environment (see client.mjs), with an index
				// of its own: the HTTP server above still holds its database.
				cmd.Env = slices.Concat(os.Environ(), env, []string{"VAULTMCP_DB=" + filepath.Join(t.TempDir(), "index.db")})
				out, err := cmd.Output()
				if err != nil {
					// The server's log is in the client's stderr: the SDK lets it through.
					t.Fatalf("the TypeScript client over stdio failed: %v\n%s", err, stderrOf(err))
				}
				check(t, out)
			})
		})
	}
}

// check reads the client's report and checks what every step must show it.
func check(t *testing.T, out []byte) {
	t.Helper()
	var got report
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("client printed %q: %v", out, err)
	}
	if got.ProtocolVersion != "2025-11-25" {
		t.Errorf("negotiated protocol version %q, want 2025-11-25 (the SDK's latest)", got.ProtocolVersion)
	}
	if got.Server["name"] != "vaultmcp" {
		t.Errorf("serverInfo = %v", got.Server)
	}
	if !slices.Contains(got.Tools, "ping") || !slices.Contains(got.Tools, "echo") {
		t.Errorf("tools = %v, want ping and echo among them", got.Tools)
	}
	if len(got.Ping.Content) != 1 || got.Ping.Content[0].Text != "pong" || got.Ping.IsError {
		t.Errorf("ping = %+v", got.Ping)
	}
	if !got.EchoMissing.IsError {
		t.Errorf("echo without text = %+v, want isError", got.EchoMissing)
	}
	if got.UnknownTool.Code != -32602 {
		t.Errorf("unknown tool: code %d, want -32602", got.UnknownTool.Code)
	}
	if slices.Contains(got.Tools, "search_vault") {
		if got.Search == nil || got.Search.IsError || !strings.Contains(got.Search.text(), "Dense loaf troubleshooting") {
			t.Errorf("search_vault = %+v", got.Search)
		}
	}
	if slices.Contains(got.Tools, "get_note") {
		if got.Note == nil || got.Note.IsError || !strings.Contains(got.Note.text(), "Project ideas") {
			t.Errorf("get_note = %+v", got.Note)
		}
	}
}

// text is the result's last text: from step 9, text from the vault follows a notice that
// says it is data.
func (r *toolResult) text() string {
	if len(r.Content) == 0 {
		return ""
	}
	return r.Content[len(r.Content)-1].Text
}

// skipOrFail skips on a reader's machine, where node is optional, but fails in CI, where a
// skipped interop check would hide a broken client.
func skipOrFail(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf("%s (CI must run this check)", why)
	}
	t.Skipf("%s; skipping the TypeScript client check", why)
}

func stderrOf(err error) string {
	if exit, ok := err.(*exec.ExitError); ok {
		return string(exit.Stderr)
	}
	return ""
}
