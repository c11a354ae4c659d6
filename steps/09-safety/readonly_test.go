package main

import (
	"encoding/json"
	"io"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"vaultmcp/shared/steptest"
)

// TestReadOnly serves a vault with -read-only. create_note and append_to_note are not listed,
// and calling them is calling an unknown tool; a session of every read tool and every resource request leaves each file
// and folder of the vault as it was, byte for byte.
func TestReadOnly(t *testing.T) {
	vaultDir := steptest.CopyVault(t)
	before, foldersBefore := snapshot(t, vaultDir), folders(t, vaultDir)
	t.Run("session", func(t *testing.T) { // its cleanup stops the server before the vault is compared
		url := startServer(t, vaultDir, "-embedder", "offline", "-read-only")
		result, _ := steptest.RPC(t, url, "tools/list", nil)
		var list struct{ Tools []struct{ Name string } }
		if err := json.Unmarshal(result, &list); err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		var names []string
		for _, tool := range list.Tools {
			names = append(names, tool.Name)
		}
		if want := []string{"get_backlinks", "get_note", "index_status", "search_vault"}; !slices.Equal(names, want) {
			t.Errorf("read-only, tools/list = %v, want %v", names, want)
		}
		for tool, args := range map[string]map[string]any{
			"create_note":    {"title": "Seeds", "content": "Order seeds."},
			"append_to_note": {"path": "Garden/Tomatoes.md", "text": "More.", "if_match": strings.Repeat("0", 64)},
		} {
			_, rpcErr := steptest.RPC(t, url, "tools/call", map[string]any{"name": tool, "arguments": args})
			if rpcErr == nil || !strings.Contains(rpcErr.Message, "tool '"+tool+"' not found") {
				t.Errorf("read-only, calling %s gave %+v, want an unknown tool", tool, rpcErr)
			}
		}

		for _, c := range []struct {
			tool string
			args map[string]any
		}{
			{"get_note", map[string]any{"path": "Garden/Tomatoes"}},
			{"search_vault", map[string]any{"query": "why is my bread dense", "folder": "Kitchen"}},
			{"get_backlinks", map[string]any{"path": "Garden/Compost"}},
			{"index_status", map[string]any{}},
		} {
			if text, isError := steptest.CallTool(t, url, c.tool, c.args); isError {
				t.Errorf("read-only, %s %v: %s", c.tool, c.args, text)
			}
		}
		for method, params := range map[string]any{
			"resources/list":           nil,
			"resources/templates/list": nil,
			"resources/read":           map[string]any{"uri": "note:///Garden/Tomatoes.md"},
			"completion/complete": map[string]any{"ref": map[string]any{"type": "ref/resource", "uri": "note:///{+path}"},
				"argument": map[string]any{"name": "path", "value": "tom"}},
		} {
			if _, rpcErr := steptest.RPC(t, url, method, params); rpcErr != nil {
				t.Errorf("read-only, %s: %+v", method, rpcErr)
			}
		}
	})

	if after := snapshot(t, vaultDir); !maps.Equal(before, after) {
		t.Errorf("a read-only session changed the vault's files: %d before, %d after", len(before), len(after))
	}
	if after := folders(t, vaultDir); !slices.Equal(foldersBefore, after) {
		t.Errorf("a read-only session changed the vault's folders: %v, then %v", foldersBefore, after)
	}
}

// TestReadOnlyFromTheEnvironment: VAULTMCP_READ_ONLY=1 is -read-only. A value that is not a
// yes or a no stops the server before it starts rather than being guessed at
// (TestBadSettingsNameThemselves).
func TestReadOnlyFromTheEnvironment(t *testing.T) {
	for value, want := range map[string]bool{"": false, "0": false, "false": false, "1": true, "true": true} {
		cfg, err := readConfig([]string{"vaultmcp"}, steptest.Env("VAULT_PATH", t.TempDir(), "VAULTMCP_READ_ONLY", value), io.Discard)
		if err != nil || cfg.readOnly != want {
			t.Errorf("VAULTMCP_READ_ONLY=%q: read-only %v, %v; want %v", value, cfg.readOnly, err, want)
		}
	}
	// The flag overrides the variable, either way.
	for args, want := range map[string]bool{"-read-only": true, "-read-only=false": false} {
		cfg, err := readConfig([]string{"vaultmcp", args}, steptest.Env("VAULT_PATH", t.TempDir(), "VAULTMCP_READ_ONLY", "1"), io.Discard)
		if err != nil || cfg.readOnly != want {
			t.Errorf("%s with VAULTMCP_READ_ONLY=1: read-only %v, %v; want %v", args, cfg.readOnly, err, want)
		}
	}
}

// folders lists every folder under dir, dir itself included.
func folders(t *testing.T, dir string) []string {
	t.Helper()
	var found []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			found = append(found, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}
