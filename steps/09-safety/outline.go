package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/shared/markdown"
	"vaultmcp/shared/vault"
)

var getOutlineTool = mcp.NewTool("get_outline",
	mcp.WithDescription("Shows how the search index sees one note of the user's Obsidian vault. "+
		"Returns JSON with the note's title, its tags, its sections in order (heading, level, "+
		"line, and the chunks of text that get embedded, each starting with \"Title > Heading\") "+
		"and the links it makes ([[wikilinks]] and embeds, with any heading, block or alias). "+
		"Use it to see how a note is organised or what it links to; use get_note to read it."),
	mcp.WithString("path", mcp.Required(), mcp.MaxLength(vault.MaxPathLen),
		mcp.Description(`the note's path relative to the vault root, like "Garden/Tomatoes.md"; the .md may be left out`)),
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
	Truncated        string        `json:"truncated,omitempty"` // what is left out, and why
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
	Alias   string `json:"alias,omitempty"`
	Embed   bool   `json:"embed,omitempty"`
	Line    int    `json:"line,omitempty"` // 0, and so left out, for links in the frontmatter
	Key     string `json:"frontmatterKey,omitempty"`
}

// fits reports whether v, as JSON, fits in what is left of budget, and takes that much. Once
// something does not fit, nothing else does: what is shown is always a beginning.
func fits(budget *int, v any) bool {
	data, err := json.Marshal(v)
	if err != nil || len(data)+1 > *budget {
		*budget = -1 // spent: the answer is cut
		return false
	}
	*budget -= len(data) + 1 // and a comma
	return true
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
		// The outline holds the whole text in its chunks: like get_note, it stops at maxBody,
		// after the first sections and links that fit, and says what it left out. What is
		// there already, and room for saying so, come off first.
		empty, _ := json.Marshal(out)
		budget := maxBody - len(empty) - 300
		seen := map[string]bool{}
		for _, t := range note.Tags {
			// A tag may be in the frontmatter and in the text; the outline lists it once.
			if !seen[t.Name] && fits(&budget, t.Name) {
				out.Tags = append(out.Tags, t.Name)
			}
			seen[t.Name] = true
		}
		for _, s := range note.Sections {
			section := sectionJSON{Heading: s.Heading, Level: s.Level, Line: s.Line}
			if !fits(&budget, section) {
				break
			}
			for _, c := range s.Chunks {
				if !fits(&budget, c) {
					break
				}
				section.Chunks = append(section.Chunks, c)
			}
			out.Sections = append(out.Sections, section)
		}
		for _, l := range note.Links {
			link := linkJSON{
				Target: l.Target, Heading: l.Heading, Block: l.Block, Alias: l.Alias,
				Embed: l.Embed, Line: l.Line, Key: l.Key,
			}
			if !fits(&budget, link) {
				break
			}
			out.Links = append(out.Links, link)
		}
		if budget < 0 {
			out.Truncated = fmt.Sprintf("the whole outline is larger than %d bytes; this is the first %d of %d sections (the last may miss chunks), %d of %d links and %d of %d tags. get_note reads the text",
				maxBody, len(out.Sections), len(note.Sections), len(out.Links), len(note.Links), len(out.Tags), len(seen))
		}
		text, err := json.Marshal(out)
		if err != nil {
			return mcp.NewToolResultError("cannot encode the outline as JSON: " + err.Error()), nil
		}
		return fromVault(mcp.NewToolResultText(string(text))), nil
	}
}
