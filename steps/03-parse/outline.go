package main

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/shared/markdown"
	"vaultmcp/shared/vault"
)

var getOutlineTool = mcp.NewTool("get_outline",
	mcp.WithDescription("A note's title, tags, sections and links, as the search index sees them. "+
		"To read it, use get_note."),
	mcp.WithString("path", mcp.Required(),
		mcp.Description(`like "Garden/Tomatoes.md"`)),
	readOnly(),
)

// outlineJSON is what get_outline returns: the parse, in the shape a model reads easily.
type outlineJSON struct {
	Path             string        `json:"path"`
	Title            string        `json:"title"`
	FrontmatterError string        `json:"frontmatterError,omitempty"`
	Tags             []string      `json:"tags"`
	Sections         []sectionJSON `json:"sections"`
	Links            []linkJSON    `json:"links"`
}

type sectionJSON struct {
	Heading string   `json:"heading"`
	Level   int      `json:"level"`
	Line    int      `json:"line"`
	Chunks  []string `json:"chunks"`
}

type linkJSON struct {
	Target  string `json:"target"`
	Heading string `json:"heading,omitempty"`
	Block   string `json:"block,omitempty"`
	Display string `json:"display,omitempty"` // shown instead of the target: [[a|shown]]
	Embed   bool   `json:"embed,omitempty"`
	Line    int    `json:"line,omitempty"` // 0, and so left out, for links in the frontmatter
	Key     string `json:"frontmatterKey,omitempty"`
}

func getOutline(notes *vault.Vault) server.ToolHandlerFunc {
	return func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		path, content, err := notes.ReadNote(req.GetString("path", ""))
		if err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		note := markdown.Parse(path, string(content))

		out := outlineJSON{Path: path, Title: note.Title, Tags: []string{}, Sections: []sectionJSON{}, Links: []linkJSON{}}
		if note.Frontmatter.Err != nil {
			out.FrontmatterError = note.Frontmatter.Err.Error()
		}
		for _, t := range note.Tags {
			// A tag may be in the frontmatter and in the text; the outline lists it once.
			if !slices.Contains(out.Tags, t.Name) {
				out.Tags = append(out.Tags, t.Name)
			}
		}
		for _, s := range note.Sections {
			out.Sections = append(out.Sections, sectionJSON{Heading: s.Heading, Level: s.Level, Line: s.Line, Chunks: s.Chunks})
		}
		for _, l := range note.Links {
			out.Links = append(out.Links, linkJSON{
				Target: l.Target, Heading: l.Heading, Block: l.Block, Display: l.Display,
				Embed: l.Embed, Line: l.Line, Key: l.Key,
			})
		}
		text, err := json.Marshal(out)
		if err != nil {
			return mcp.NewToolResultError("cannot encode the outline as JSON: " + err.Error()), nil
		}
		return mcp.NewToolResultText(string(text)), nil
	}
}
