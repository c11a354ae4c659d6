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
	mcp.WithDescription("Notes linking to a note, each with its line and heading, and the links it "+
		"makes (to: null if missing). Works for notes not yet written."),
	mcp.WithString("path", mcp.Required(), mcp.MaxLength(vault.MaxPathLen),
		mcp.Description(`like "Garden/Tomatoes.md"`)),
	mcp.WithOutputSchema[linksResult](),
	readOnly(),
)

type linksResult struct {
	Path      string     `json:"path"`
	Exists    bool       `json:"exists"`
	Backlinks []backlink `json:"backlinks"`
	Links     []outgoing `json:"links"`
	Omitted   int        `json:"omitted,omitempty"`
	Loading   string     `json:"loading,omitempty"`
}

// A hub note can have thousands of backlinks, and one line can be a whole paragraph: bound
// both, so one answer cannot fill a model's context.
const (
	maxRefs     = 200
	maxLineText = 500
)

type backlink struct {
	From    string `json:"from"`
	Line    int    `json:"line"`
	Heading string `json:"heading"`
	Text    string `json:"text"`
	Embed   bool   `json:"embed,omitempty"`
}

type outgoing struct {
	Target string  `json:"target"`
	To     *string `json:"to"`
	Line   int     `json:"line"`
	Embed  bool    `json:"embed,omitempty"`
	// ByAlias is set when the note was found through a frontmatter alias, which Obsidian
	// itself does not do: the model may want to say so.
	ByAlias    bool `json:"byAlias,omitempty"`
	Attachment bool `json:"attachment,omitempty"`
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
			missing, left, ok, graphErr := graph.MissingFirst(ctx, strings.ReplaceAll(asked, `\`, "/"), maxRefs)
			if graphErr != nil {
				return mcp.NewToolResultError(graphErr.Error()), nil
			}
			if !ok {
				return mcp.NewToolResultError(err.Error()), nil
			}
			out.Path, out.Omitted = missing.Target, left
			for _, r := range missing.Refs {
				out.Backlinks = append(out.Backlinks, toBacklink(r))
			}
		case err != nil:
			return mcp.NewToolResultError(err.Error()), nil
		default:
			// The first maxRefs backlinks alone: each is shown with its line, read from the
			// note that links, and a hub note has thousands.
			backlinks, left, err := graph.BacklinksFirst(ctx, path, maxRefs)
			if err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			out.Omitted = left
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
