package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
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
func startServer(t testing.TB, vaultDir string, args ...string) string {
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

	for _, tool := range []string{"get_note", "get_backlinks"} {
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
		text, isError := callTool(t, url, tool, `Notes\inside`)
		if isError || (tool != "get_backlinks" && !strings.Contains(text, "inside the vault")) {
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

	if got, errText := searchFor(t, url, map[string]any{"query": "dense loaf", "limit": 1}); errText != "" || len(got.Results) != 1 || got.Results[0].Path != "Bread.md" {
		t.Fatalf("search_vault = %+v %s, want Bread.md", got, errText)
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
	// While Ollama fails, so do the retries of the 44 notes, and the count stays put.
	text, _ := steptest.CallTool(t, url, "index_status", map[string]any{})
	var st statusJSON
	if err := json.Unmarshal([]byte(text), &st); err != nil || st.Notes != 256 || len(st.NotIndexed) != 44 {
		t.Errorf("index_status = %s (%v); want 256 notes stored and 44 not indexed", text, err)
	}

	ollama.SetFailure(ollamatest.None, 0) // Ollama is back for the query
	got, errText := searchFor(t, url, map[string]any{"query": "word1", "limit": 1})
	var failed int
	fmt.Sscanf(got.Incomplete, "%d notes could not be indexed", &failed)
	// A retry that comes due after Ollama is back may index a note before the query: fewer,
	// never more, than index_status listed.
	if errText != "" || len(got.Results) != 1 || failed < 1 || failed > 44 {
		t.Errorf("search_vault = %+v %s; want results from the notes that were embedded, and a word about the rest", got, errText)
	}

	// The worker retries the notes that failed at start, like any failed save.
	steptest.Eventually(t, steptest.Patience, func() string {
		got, _ := searchFor(t, url, map[string]any{"query": "word299", "limit": 1})
		if got.Incomplete == "" && len(got.Results) == 1 && got.Results[0].Path == "Note 299.md" {
			return ""
		}
		return fmt.Sprintf("after Ollama came back, search found %+v (incomplete: %q)", got.Results, got.Incomplete)
	})
}

// searchFor calls search_vault and returns its structured result.
func searchFor(t testing.TB, url string, args map[string]any) (searchResult, string) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": "search_vault", "arguments": args}})
	resp, err := http.Post(url, "application/json", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var msg struct {
		Result struct {
			Content           []struct{ Text string } `json:"content"`
			StructuredContent searchResult            `json:"structuredContent"`
			IsError           bool                    `json:"isError"`
		} `json:"result"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil {
		t.Fatal(err)
	}
	if msg.Result.IsError {
		return searchResult{}, msg.Result.Content[0].Text
	}
	return msg.Result.StructuredContent, ""
}

// TestSearchQuality asks the sample vault labelled questions with the offline embedder: each
// answer must rank within its bound. A change to parsing, chunking, embedding or ranking that
// makes search worse fails here, loudly, with the question it got wrong.
func TestSearchQuality(t *testing.T) {
	url := startServer(t, filepath.Join("..", "..", "sample-vault"), "-embedder", "offline")
	for _, tc := range []struct {
		query, want string
		within      int // the answer's rank must be at most this
	}{
		{"why is my bread dense", "Kitchen/Bread/Dense loaf troubleshooting.md", 1},
		{"when should I plant tomatoes outside", "Garden/Planting calendar.md", 1},
		{"my compost smells bad", "Garden/Compost.md", 1},
		{"how to keep slugs away", "Garden/Pests and slugs.md", 1},
		{"rain barrel overflow", "Projects/Rain barrel.md", 1},
		{"homemade creme fraiche", "Kitchen/Crème fraîche.md", 1},
		{"seed swap at the library", "Inbox/Seed swap at the library.md", 1},
		{"canning tomato sauce", "Kitchen/Preserving tomatoes.md", 1},
		{"crop rotation in the raised beds", "Garden/Raised beds.md", 1},
		{"how often do I feed the sourdough starter", "Kitchen/Bread/Sourdough starter.md", 2},
		{"a book about soil", "Reading/The Patient Soil.md", 2},
		{"calibrating the soil moisture sensor", "Projects/Soil moisture sensor.md", 2},
		{"tomato blight", "Garden/Tomatoes.md", 3},
		{"what to bring on bake day", "Kitchen/Bread/Bake day checklist.md", 4},
	} {
		got, errText := searchFor(t, url, map[string]any{"query": tc.query, "limit": 5})
		rank := slices.IndexFunc(got.Results, func(h hit) bool { return h.Path == tc.want }) + 1
		if errText != "" || rank == 0 || rank > tc.within {
			t.Errorf("%q: %s ranks %d (0: absent), want within %d; got %+v %s", tc.query, tc.want, rank, tc.within, got.Results, errText)
		}
	}
	for _, gibberish := range []string{"xyzzy plugh", "qwerty asdf zxcv", "lorem ipsum dolor", "javascript promise rejection", "stock market index futures"} {
		if got, _ := searchFor(t, url, map[string]any{"query": gibberish}); len(got.Results) != 0 {
			t.Errorf("%q found %+v; want nothing: it is below the score floor", gibberish, got.Results)
		}
	}
}

// TestSearchRejectsBadFilters: every argument comes from a model; each bad one gets a
// message that says what to send, and the search after them still works.
func TestSearchRejectsBadFilters(t *testing.T) {
	url := startServer(t, filepath.Join("..", "..", "sample-vault"), "-embedder", "offline")
	for _, args := range []map[string]any{
		{"query": "bread", "folder": "../etc"},
		{"query": "bread", "folder": "/etc"},
		{"query": "bread", "folder": `C:\Windows`},
		{"query": "bread", "folder": "No such folder"},
		{"query": "bread", "folder": ".obsidian"},
		{"query": "bread", "tag": "no-such-tag"},
		{"query": "bread", "tag": "two words"},
		{"query": "bread", "tag": "bad\x00tag"},
		{"query": "bread\x00"},
		{"query": strings.Repeat("bread ", 500)},
		{"query": "bread", "limit": 0},
		{"query": "bread", "limit": 1000},
		{"query": "bread", "limit": "many"},
		{"query": 42},
	} {
		if got, errText := searchFor(t, url, args); errText == "" {
			t.Errorf("search_vault(%v) = %+v, want a tool error", args, got)
		}
	}
	got, errText := searchFor(t, url, map[string]any{"query": "bread", "folder": "Kitchen", "tag": "#bread"})
	if errText != "" || len(got.Results) == 0 {
		t.Fatalf("after bad input, search_vault = %+v %s", got, errText)
	}
	for _, h := range got.Results {
		if !strings.HasPrefix(h.Path, "Kitchen/") {
			t.Errorf("folder Kitchen returned %s", h.Path)
		}
	}
}
