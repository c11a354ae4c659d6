package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"vaultmcp/shared/steptest"
	"vaultmcp/shared/vault"
)

// TestCompletePath: completion/complete offers the notes a typed path or name may be, and
// nothing for what is not the note template's path, whatever the client sends.
func TestCompletePath(t *testing.T) {
	vaultDir := t.TempDir()
	steptest.Write(t, filepath.Join(vaultDir, "Garden", "Tomatoes.md"), "# Tomatoes")
	steptest.Write(t, filepath.Join(vaultDir, "Kitchen", "Preserving tomatoes.md"), "# Preserving")
	steptest.Write(t, filepath.Join(vaultDir, "Home.md"), "---\naliases: [Start here]\n---\n# Home")
	url := startServer(t, vaultDir)

	complete := func(ref map[string]any, name, value string) (values []string, total int) {
		t.Helper()
		result, rpcErr := steptest.RPC(t, url, "completion/complete", map[string]any{"ref": ref, "argument": map[string]any{"name": name, "value": value}})
		var answer struct {
			Completion struct {
				Values  []string
				Total   int
				HasMore bool
			}
		}
		if rpcErr != nil || json.Unmarshal(result, &answer) != nil || answer.Completion.Values == nil || answer.Completion.HasMore {
			t.Fatalf("completion/complete %v %s=%.40q = %s, %v", ref, name, value, result, rpcErr)
		}
		return answer.Completion.Values, answer.Completion.Total
	}
	note := map[string]any{"type": "ref/resource", "uri": "note:///{+path}"}
	for typed, want := range map[string][]string{
		"tomat":     {"Garden/Tomatoes.md", "Kitchen/Preserving tomatoes.md"},
		"Garden/To": {"Garden/Tomatoes.md"},
		"start":     {"Home.md"},
		"%":         nil,
		"":          {"Home.md", "Garden/Tomatoes.md", "Kitchen/Preserving tomatoes.md"},
	} {
		if got, total := complete(note, "path", typed); !slices.Equal(got, want) || total != len(want) {
			t.Errorf("completing %q = %q (total %d), want %q", typed, got, total, want)
		}
	}
	for _, c := range []struct {
		ref         map[string]any
		name, value string
	}{
		{map[string]any{"type": "ref/resource", "uri": "file:///{path}"}, "path", "tomat"},
		{note, "uri", "tomat"},
		{note, "path", strings.Repeat("a", 5000)},
		{map[string]any{"type": "ref/prompt", "name": "summarize"}, "path", "tomat"},
	} {
		if got, _ := complete(c.ref, c.name, c.value); len(got) != 0 {
			t.Errorf("completion/complete %v %s=%.40q = %q, want no values", c.ref, c.name, c.value, got)
		}
	}
}

// TestCompleteWhileCatchingUp: before the index holds the notes (a first start, or one that
// rebuilds it), completion answers from the notes on disk, ranked as the index ranks them.
func TestCompleteWhileCatchingUp(t *testing.T) {
	vaultDir := t.TempDir()
	for _, p := range []string{"Garden/Tomatoes.md", "Kitchen/Preserving tomatoes.md", "Tomato seeds.md", "Notes/Atomic habits.md", "Home.md"} {
		steptest.Write(t, filepath.Join(vaultDir, filepath.FromSlash(p)), "# "+p)
	}
	notes, err := vault.Open(vaultDir)
	if err != nil {
		t.Fatal(err)
	}
	defer notes.Close()
	c := &noteCompleter{notes: notes, coverage: &coverage{}} // no index yet: comparing
	for typed, want := range map[string][]string{
		// The path starts with it; then the name does; then a word of the name; then the rest.
		"tom":     {"Tomato seeds.md", "Garden/Tomatoes.md", "Kitchen/Preserving tomatoes.md", "Notes/Atomic habits.md"},
		"garden":  {"Garden/Tomatoes.md"},
		"nothing": {},
	} {
		got, err := c.CompleteResourceArgument(t.Context(), vault.URITemplate, mcp.CompleteArgument{Name: "path", Value: typed}, mcp.CompleteContext{})
		if err != nil || !slices.Equal(got.Values, want) || got.Total != len(want) {
			t.Errorf("completing %q while catching up = %v, %v; want %q", typed, got, err, want)
		}
	}
	c.coverage.set(phaseIndexing, 1, 5)
	if got, _ := c.CompleteResourceArgument(t.Context(), vault.URITemplate, mcp.CompleteArgument{Name: "path", Value: "home"}, mcp.CompleteContext{}); !slices.Equal(got.Values, []string{"Home.md"}) {
		t.Errorf("completing while indexing = %v; want the note on disk", got.Values)
	}
}
