package main

import (
	"context"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/shared/edit"
	"vaultmcp/shared/frontmatter"
	"vaultmcp/shared/vault"
)

var getNoteTool = mcp.NewTool("get_note",
	mcp.WithDescription("Reads a note of the user's Obsidian vault: its path, version (for "+
		"append_to_note), frontmatter (null if none or invalid; see frontmatterError) and Markdown body."),
	mcp.WithString("path", mcp.Required(), mcp.MaxLength(vault.MaxPathLen),
		mcp.Description(`like "Garden/Tomatoes.md"`)),
	readOnly(),
)

// noteJSON is what get_note returns.
type noteJSON struct {
	Path             string         `json:"path"`
	Version          string         `json:"version"` // of the whole file, for append_to_note's if_match
	Frontmatter      map[string]any `json:"frontmatter"`
	FrontmatterError string         `json:"frontmatterError,omitempty"`
	Body             string         `json:"body"`
	Truncated        string         `json:"truncated,omitempty"` // why the body is cut short
}

// prefix returns the longest start of s of at most n bytes that does not cut a character.
func prefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// maxBody bounds the text get_note returns. A model's context holds a few hundred kilobytes
// at most; an 8 MiB note would crowd out everything else, and search_vault finds what the
// rest holds.
const maxBody = 256 << 10

func getNote(notes *vault.Vault) server.ToolHandlerFunc {
	return func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		// Every path comes from a model: the vault package confines it to the vault and
		// explains any refusal in words the model can act on.
		path, content, err := notes.ReadNote(req.GetString("path", ""))
		if err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		fm, body, _ := frontmatter.Split(string(content))
		out := noteJSON{Path: path, Version: edit.Version(content), Frontmatter: fm.Fields, Body: body}
		if len(body) > maxBody {
			out.Body = prefix(body, maxBody)
			out.Truncated = fmt.Sprintf("the body is %d bytes; this is the first %d; search_vault finds what the rest holds", len(body), len(out.Body))
		}
		if fm.Err != nil {
			out.FrontmatterError = fm.Err.Error()
		}
		text, err := json.Marshal(out)
		if err != nil {
			return mcp.NewToolResultError("cannot encode the note as JSON: " + err.Error()), nil
		}
		return fromVault(mcp.NewToolResultText(string(text))), nil
	}
}
