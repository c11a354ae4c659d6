package interop

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
)

// toolCase says how to call one tool on the sample vault: once with arguments that must work,
// and once for each set of arguments that must come back as a tool error.
type toolCase struct {
	tool string
	args map[string]any // valid arguments
	want string         // what the answer's text must hold
	// bad leaves out a required argument, then gives one of the wrong type. Each must be a
	// result with isError set, a message the model can act on, not a protocol error.
	bad []map[string]any
	// settle repeats the valid call until its answer holds want: a step that indexes in the
	// background (step 8 on) may still be catching up when the client connects.
	settle bool
}

// toolCases has an entry for every tool a step lists: a listed tool without one fails the
// test, so a new tool must come with its own. They run in this order, index_status first so
// that searches find a finished index. title names the note create_note writes.
func toolCases(title string) []toolCase {
	return []toolCase{
		{
			tool: "index_status", args: map[string]any{},
			want:   `"notes":22`, // the sample vault's notes (.trash is not indexed)
			settle: true,         // and no bad arguments: it takes none
		},
		{tool: "ping", args: map[string]any{}, want: "pong"}, // takes no arguments either
		{
			tool: "echo", args: map[string]any{"text": "hello, vault"}, want: "hello, vault",
			bad: []map[string]any{{}, {"text": 42}},
		},
		{
			tool: "get_note", args: map[string]any{"path": "Projects/Ideas.md"}, want: "# Project ideas",
			bad: []map[string]any{{}, {"path": 42}},
		},
		{
			tool: "get_outline", args: map[string]any{"path": "Kitchen/Crème fraîche.md"}, want: `"title":"Crème fraîche"`,
			bad: []map[string]any{{}, {"path": 42}},
		},
		{
			tool: "search_vault", args: map[string]any{"query": "why is my bread dense", "limit": 1},
			want: "Kitchen/Bread/Dense loaf troubleshooting.md",
			bad:  []map[string]any{{"limit": 1}, {"query": 42}},
		},
		{
			tool: "get_backlinks", args: map[string]any{"path": "Garden/Ideas"},
			want: "Projects/Ideas.md: House, workshop and kitchen projects.", // a backlink, with its line
			bad:  []map[string]any{{}, {"path": 42}},
		},
		{
			tool: "create_note", args: map[string]any{"title": title, "content": "Written by the interop test."},
			want: "Created Inbox/" + title + ".md",
			bad:  []map[string]any{{"title": title}, {"title": 42, "content": "x"}},
		},
		{
			tool: "append_to_note", args: map[string]any{"path": "Projects/Ideas.md", "text": "- Added by the interop test.", "if_match": sampleVersion("Projects/Ideas.md")},
			want: "Added to the end of Projects/Ideas.md",
			bad:  []map[string]any{{"path": "Projects/Ideas.md", "text": "x"}, {"path": 42, "text": "x", "if_match": "0"}},
		},
	}
}

// sampleVersion is the version get_note gives the sample vault's note at path: the SHA-256
// of its bytes, which a client would read first.
func sampleVersion(path string) string {
	data, err := os.ReadFile(filepath.Join("..", "..", "sample-vault", filepath.FromSlash(path)))
	if err != nil {
		return "the sample vault's " + path + " cannot be read: " + err.Error()
	}
	return fmt.Sprintf("%x", sha256.Sum256(data))
}
