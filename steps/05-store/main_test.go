package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vaultmcp/shared/ollamatest"
	"vaultmcp/shared/steptest"
)

// TestMain points OLLAMA_HOST at an address where Ollama does not answer, so that a server
// started here without a stand-in of its own never reaches an Ollama running on the machine.
func TestMain(m *testing.M) { steptest.MainWithoutOllama(m) }

// startServer runs the program as main would, on a free port over vaultDir, and returns its
// MCP endpoint.
func startServer(t *testing.T, vaultDir string, args ...string) string {
	t.Helper()
	// Each test gets its own index, outside the vault.
	return steptest.Start(t, run, steptest.Env("VAULT_PATH", vaultDir), append([]string{"-db", filepath.Join(t.TempDir(), "index.db")}, args...)...)
}

// callTool calls a tool with a path argument and returns its text and whether it is an error.
func callTool(t *testing.T, url, tool string, path any) (text string, isError bool) {
	t.Helper()
	return steptest.CallTool(t, url, tool, map[string]any{"path": path})
}

func TestToolsStayInsideTheVault(t *testing.T) {
	base := t.TempDir()
	vaultDir := filepath.Join(base, "vault")
	steptest.Write(t, filepath.Join(base, "secret.md"), "TOP SECRET")
	steptest.Write(t, filepath.Join(vaultDir, "Notes", "inside.md"), "---\ntags: [a]\n---\ninside the vault")
	if err := os.Symlink(filepath.Join(base, "secret.md"), filepath.Join(vaultDir, "Notes", "link.md")); err != nil {
		t.Skipf("cannot create symlinks here: %v", err)
	}
	url := startServer(t, vaultDir, "-embedder", "offline")

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

// TestSearchFailsAloneWhenOllamaFails runs against the Ollama stand-in, through the real
// Ollama client: when Ollama goes away, search_vault says so and how to fix it, and every
// other tool goes on working.
func TestSearchFailsAloneWhenOllamaFails(t *testing.T) {
	ollama := ollamatest.NewServer(ollamatest.Options{})
	defer ollama.Close()
	t.Setenv("OLLAMA_HOST", ollama.URL)
	vaultDir := t.TempDir()
	steptest.Write(t, filepath.Join(vaultDir, "Bread.md"), "# Bread\n\nA dense loaf is underproofed.")
	steptest.Write(t, filepath.Join(vaultDir, "Tomatoes.md"), "# Tomatoes\n\nPlant them after the last frost.")
	url := startServer(t, vaultDir, "-embedder", "ollama")

	if text, isError := steptest.CallTool(t, url, "search_vault", map[string]any{"query": "dense loaf", "limit": 1}); isError || !strings.Contains(text, `"path":"Bread.md"`) {
		t.Fatalf("search_vault = %s (isError %v), want Bread.md", text, isError)
	}

	ollama.SetFailure(ollamatest.Down, 0)
	text, isError := steptest.CallTool(t, url, "search_vault", map[string]any{"query": "dense loaf"})
	if !isError || !strings.Contains(text, "ollama serve") {
		t.Errorf("search_vault with Ollama down = %q (isError %v), want an error saying how to start Ollama", text, isError)
	}
	if text, isError := steptest.CallTool(t, url, "get_note", map[string]any{"path": "Bread"}); isError {
		t.Errorf("get_note with Ollama down = %q, want the note", text)
	}

	ollama.SetFailure(ollamatest.None, 0)
	if _, isError := steptest.CallTool(t, url, "search_vault", map[string]any{"query": "frost"}); isError {
		t.Error("search_vault did not recover when Ollama came back")
	}
}

// TestIndexingKeepsWhatItCouldEmbed lets Ollama fail part-way through indexing: the notes
// embedded before stay searchable, and search says how many notes are missing.
func TestIndexingKeepsWhatItCouldEmbed(t *testing.T) {
	// 300 one-chunk notes: a first batch of 256 chunks (8 requests of 32), then 44 more.
	// Ollama answers the first batch and fails from then on.
	ollama := ollamatest.NewServer(ollamatest.Options{Fail: ollamatest.ServerError, FailAfter: 8})
	defer ollama.Close()
	t.Setenv("OLLAMA_HOST", ollama.URL)
	vaultDir := t.TempDir()
	for i := range 300 {
		steptest.Write(t, filepath.Join(vaultDir, fmt.Sprintf("Note %03d.md", i)), fmt.Sprintf("# Note %d\n\nword%d", i, i))
	}
	url := startServer(t, vaultDir, "-embedder", "ollama")

	ollama.SetFailure(ollamatest.None, 0) // Ollama is back for the query
	text, isError := steptest.CallTool(t, url, "search_vault", map[string]any{"query": "word1", "limit": 1})
	if isError {
		t.Fatalf("search_vault = %q", text)
	}
	var got struct {
		Results    []struct{ Path string }
		Incomplete string
	}
	if err := json.Unmarshal([]byte(text), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Results) != 1 || !strings.HasPrefix(got.Incomplete, "44 notes could not be indexed") {
		t.Errorf("search_vault = %s; want results from the notes that were embedded, and a word about the rest", text)
	}
}

// TestStartupRefusesABadDatabase: a database that is damaged, or one placed inside the vault,
// stops the server before it serves, with a message that says what to do.
func TestStartupRefusesABadDatabase(t *testing.T) {
	vaultDir := t.TempDir()
	steptest.Write(t, filepath.Join(vaultDir, "Note.md"), "# Note")
	garbage := filepath.Join(t.TempDir(), "index.db")
	steptest.Write(t, garbage, strings.Repeat("not a database ", 100))

	for _, tc := range []struct{ db, want string }{
		{garbage, "delete it"},
		{filepath.Join(vaultDir, "index.db"), "inside the vault"},
	} {
		getenv := func(key string) string { return map[string]string{"VAULT_PATH": vaultDir}[key] }
		err := run(context.Background(), []string{"05-store", "-addr", "127.0.0.1:0", "-embedder", "offline", "-db", tc.db}, getenv, strings.NewReader(""), io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("-db %s: run = %v, want an error saying %q", tc.db, err, tc.want)
		}
	}
	if data, _ := os.ReadFile(garbage); !strings.HasPrefix(string(data), "not a database") {
		t.Error("the damaged file was changed")
	}
}
