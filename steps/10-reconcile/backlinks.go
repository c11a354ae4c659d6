package main

import (
	"context"
	"errors"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/shared/links"
	"vaultmcp/shared/vault"
)

var getBacklinksTool = mcp.NewTool("get_backlinks",
	mcp.WithDescription("Shows how one note of the user's Obsidian vault is linked: the notes that "+
		"link to it (each with the line holding the link and the heading above it), and the links "+
		"the note itself makes, each with the note it leads to or null when that note does not "+
		"exist. Works for a note that does not exist yet too, if other notes link to it. Use it "+
		"to answer \"what links here\", or to find notes that are missing."),
	mcp.WithString("path", mcp.Required(), mcp.MaxLength(vault.MaxPathLen),
		mcp.Description(`the note's path relative to the vault root, like "Garden/Tomatoes.md"; the .md may be left out`)),
	mcp.WithOutputSchema[linksResult](),
	readOnly(),
)

type linksResult struct {
	Path      string     `json:"path" jsonschema_description:"the note, as the vault names it"`
	Exists    bool       `json:"exists" jsonschema_description:"false for a note that links lead to but nobody has written"`
	Backlinks []backlink `json:"backlinks" jsonschema_description:"the links from other notes to this one, by note and line"`
	Links     []outgoing `json:"links" jsonschema_description:"the links this note makes, in the order written"`
	Omitted   int        `json:"omitted,omitempty" jsonschema_description:"backlinks and links left out to keep the answer short"`
	Loading   string     `json:"loading,omitempty" jsonschema_description:"set while the link graph is still being read after a start: some backlinks may be missing"`
}

// A hub note can have thousands of backlinks, and one line can be a whole paragraph: bound
// both, so one answer cannot fill a model's context.
const (
	maxRefs     = 200
	maxLineText = 500
)

type backlink struct {
	From    string `json:"from" jsonschema_description:"the note that holds the link"`
	Line    int    `json:"line" jsonschema_description:"its line in that note; 0 for a link in the frontmatter"`
	Heading string `json:"heading" jsonschema_description:"the heading of the section holding the link"`
	Text    string `json:"text" jsonschema_description:"the line holding the link"`
	Embed   bool   `json:"embed,omitempty" jsonschema_description:"the link embeds the note (![[...]])"`
}

type outgoing struct {
	Target string  `json:"target" jsonschema_description:"the link's target as written"`
	To     *string `json:"to" jsonschema_description:"the note it leads to; null when there is none"`
	Line   int     `json:"line"`
	Embed  bool    `json:"embed,omitempty"`
	// ByAlias is set when the note was found through a frontmatter alias, which Obsidian
	// itself does not do: the model may want to say so.
	ByAlias    bool `json:"byAlias,omitempty"`
	Attachment bool `json:"attachment,omitempty" jsonschema_description:"the target is a file other than a note (an image, a PDF)"`
}

func getBacklinks(notes *vault.Vault, ix *index) server.ToolHandlerFunc {
	graph := ix.graph
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		asked := req.GetString("path", "")
		path, _, err := notes.Stat(asked)
		out := linksResult{Path: path, Exists: err == nil, Backlinks: []backlink{}, Links: []outgoing{}}
		if ix.coverage.loadingLinks() {
			out.Loading = "the link graph is still being read from the vault after a start, so some backlinks may be missing; ask again in a few seconds"
		}
		switch {
		case errors.Is(err, vault.ErrNotFound):
			// A note nobody has written yet can still have backlinks: that is how users find
			// the notes their vault is missing.
			missing, ok, graphErr := graph.Missing(ctx, strings.ReplaceAll(asked, `\`, "/"))
			if graphErr != nil {
				return mcp.NewToolResultError(graphErr.Error()), nil
			}
			if !ok {
				return mcp.NewToolResultError(err.Error()), nil
			}
			out.Path = missing.Target
			for _, r := range missing.Refs {
				out.Backlinks = append(out.Backlinks, toBacklink(r))
			}
		case err != nil:
			return mcp.NewToolResultError(err.Error()), nil
		default:
			backlinks, err := graph.Backlinks(ctx, path)
			if err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			outgoingLinks, err := graph.Outgoing(ctx, path)
			if err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			for _, r := range backlinks {
				out.Backlinks = append(out.Backlinks, toBacklink(r))
			}
			for _, r := range outgoingLinks {
				o := outgoing{Target: r.Link.Target, Line: r.Link.Line, Embed: r.Link.Embed, ByAlias: r.ByAlias, Attachment: r.Attachment}
				if r.To != "" {
					o.To = &r.To
				}
				out.Links = append(out.Links, o)
			}
		}
		if n := len(out.Backlinks) - maxRefs; n > 0 {
			out.Backlinks, out.Omitted = out.Backlinks[:maxRefs], out.Omitted+n
		}
		if n := len(out.Links) - maxRefs; n > 0 {
			out.Links, out.Omitted = out.Links[:maxRefs], out.Omitted+n
		}
		return fromVault(mcp.NewToolResultStructured(out, renderLinks(out))), nil
	}
}

func toBacklink(r links.Ref) backlink {
	text := r.Text
	if len(text) > maxLineText {
		text = prefix(text, maxLineText) + " …"
	}
	return backlink{From: r.From, Line: r.Link.Line, Heading: r.Section, Text: text, Embed: r.Link.Embed}
}

// renderLinks is the text a client without structured output shows.
func renderLinks(out linksResult) string {
	var b strings.Builder
	if !out.Exists {
		b.WriteString(out.Path + " does not exist, but notes link to it.\n")
	}
	b.WriteString("Linked from:\n")
	if len(out.Backlinks) == 0 {
		b.WriteString("  (no note links here)\n")
	}
	for i, l := range out.Backlinks {
		// Two links on one line are one line to read.
		if i > 0 && l.From == out.Backlinks[i-1].From && l.Line == out.Backlinks[i-1].Line {
			continue
		}
		b.WriteString("  " + l.From + ": " + strings.TrimSpace(l.Text) + "\n")
	}
	if out.Exists {
		b.WriteString("Links to:\n")
		if len(out.Links) == 0 {
			b.WriteString("  (no links)\n")
		}
		for _, l := range out.Links {
			to := "(missing)"
			switch {
			case l.To != nil:
				to = *l.To
			case l.Attachment:
				to = "(an attachment, not a note)"
			}
			b.WriteString("  [[" + l.Target + "]] → " + to + "\n")
		}
	}
	if out.Loading != "" {
		b.WriteString("\nNote: " + out.Loading + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}
