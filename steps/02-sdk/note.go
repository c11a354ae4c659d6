package main

import (
	"context"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/shared/frontmatter"
	"vaultmcp/shared/vault"
)

var getNoteTool = mcp.NewTool("get_note",
	mcp.WithDescription("Reads a note of the user's Obsidian vault: its path, frontmatter (null "+
		"if none or invalid; see frontmatterError) and Markdown body."),
	mcp.WithString("path", mcp.Required(),
		mcp.Description(`like "Garden/Tomatoes.md"`)),
	readOnly(),
)

// noteJSON is what get_note returns.
type noteJSON struct {
	Path             string         `json:"path"`
	Frontmatter      map[string]any `json:"frontmatter"`
	FrontmatterError string         `json:"frontmatterError,omitempty"`
	Body             string         `json:"body"`
}

func getNote(notes *vault.Vault) server.ToolHandlerFunc {
	return func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		// Every path comes from a model: the vault package confines it to the vault and
		// explains any refusal in words the model can act on.
		path, content, err := notes.ReadNote(req.GetString("path", ""))
		if err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		fm, body, _ := frontmatter.Split(string(content))
		out := noteJSON{Path: path, Frontmatter: fm.Fields, Body: body}
		if fm.Err != nil {
			out.FrontmatterError = fm.Err.Error()
		}
		text, err := json.Marshal(out)
		if err != nil {
			return mcp.NewToolResultError("cannot encode the note as JSON: " + err.Error()), nil
		}
		return mcp.NewToolResultText(string(text)), nil
	}
}
