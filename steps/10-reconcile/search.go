package main

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/shared/store"
	"vaultmcp/shared/vault"
)

var searchVaultTool = mcp.NewTool("search_vault",
	mcp.WithDescription("Searches the user's Obsidian vault by words and meaning: the best notes "+
		"first, each by its best section. An empty list means nothing relevant: say so, do not "+
		"guess."),
	mcp.WithString("query", mcp.Required(), mcp.MinLength(1), mcp.MaxLength(maxQuery),
		mcp.Description("in your own words; \"quoted words\" must occur together")),
	mcp.WithInteger("limit", mcp.Min(1), mcp.Max(maxLimit),
		mcp.Description(fmt.Sprintf("default %d", defaultLimit))),
	mcp.WithString("folder", mcp.MaxLength(vault.MaxPathLen),
		mcp.Description("only notes under this folder")),
	mcp.WithString("tag", mcp.MaxLength(maxTag),
		mcp.Description("only notes with this tag, nested tags included")),
	mcp.WithOutputSchema[searchResult](),
	readOnly(),
)

const (
	maxQuery     = 1000 // characters: a question, not a document
	maxTag       = 200
	maxLimit     = 20
	defaultLimit = 5
	snippetBytes = 300 // enough to judge a result by; get_note has the rest
)

// searchResult is the tool's structured output; the outputSchema is generated from it, so the
// descriptions below are what a client shows for each field.
type searchResult struct {
	Results    []hit  `json:"results"`
	Incomplete string `json:"incomplete,omitempty"`
}

type hit struct {
	Path    string  `json:"path"`
	Title   string  `json:"title"`
	Heading string  `json:"heading"`
	Line    int     `json:"line"`
	Snippet string  `json:"snippet"`
	Score   float64 `json:"score"`
}

func searchVault(notes *vault.Vault, ix *index) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		query := strings.TrimSpace(req.GetString("query", ""))
		if query == "" {
			return mcp.NewToolResultError(`query is empty; say what to look for, like "why is my bread dense"`), nil
		}
		if strings.IndexFunc(query, isControl) >= 0 {
			return mcp.NewToolResultError("query holds control characters; send plain text"), nil
		}
		// Over stdio the first question may come before a new index holds anything: wait a
		// little for it, and for the filters too, which look for notes in the index.
		ix.coverage.awaitStartup(ctx, ix.startupWait)
		opts := store.Options{K: req.GetInt("limit", defaultLimit)}
		if msg := ix.checkFilters(ctx, notes, &opts, req.GetString("folder", ""), req.GetString("tag", "")); msg != "" {
			return mcp.NewToolResultError(msg), nil
		}

		// One result per note, its best section, so one long note cannot fill the list.
		hits, err := ix.find(ctx, query, opts)
		if err != nil {
			return mcp.NewToolResultError("cannot search the index: " + err.Error()), nil
		}

		out := searchResult{Results: []hit{}, Incomplete: ix.incomplete()}
		for _, h := range hits {
			if ix.failed.stale(h.Path) {
				continue // deleted, though the index could not remove it yet
			}
			out.Results = append(out.Results, hit{
				Path: h.Path, Title: h.Title, Heading: h.Heading, Line: h.Line,
				Snippet: snippet(h.Text), Score: round(h.Score),
			})
		}
		return fromVault(mcp.NewToolResultStructured(out, render(query, opts, out))), nil
	}
}

// checkFilters validates the folder and tag a model sent and puts them in opts. It returns
// a message for the model when one is unusable. A filter that matches nothing is an error,
// not an empty result: "no notes about X in Y" would be a false answer when Y is misspelt.
// The folder is spelt as the vault spells it, as note paths are, and tags are compared
// without regard to case or Unicode form, as Obsidian compares them.
func (ix *index) checkFilters(ctx context.Context, notes *vault.Vault, opts *store.Options, folder, tag string) string {
	// While the index catches up, a folder or tag may be missing only because its notes are
	// not indexed yet: then the filter stands, and the answer says the index is incomplete.
	catchingUp := ix.coverage.describe() != ""
	if folder = strings.TrimSpace(folder); folder != "" {
		clean, err := notes.ResolveFolder(folder)
		if err != nil {
			return "folder: " + err.Error()
		}
		found, err := ix.db.HasFolder(ctx, clean)
		if err != nil {
			return "cannot check the folder: " + err.Error()
		}
		if !found && !catchingUp {
			return fmt.Sprintf("no indexed note is in folder %q; folders are paths relative to the vault root, like \"Kitchen\" (leave folder out to search everywhere)", clean)
		}
		opts.Folder = clean
	}
	if tag = strings.TrimPrefix(strings.TrimSpace(tag), "#"); tag != "" {
		if !utf8.ValidString(tag) || strings.IndexFunc(tag, unicode.IsControl) >= 0 || strings.ContainsAny(tag, " \t") {
			return fmt.Sprintf("tag %q is not a tag; send one tag without spaces, like \"garden\" or \"garden/vegetables\"", tag)
		}
		found, err := ix.db.HasTag(ctx, tag)
		if err != nil {
			return "cannot check the tag: " + err.Error()
		}
		if !found && !catchingUp {
			return fmt.Sprintf("no indexed note has the tag %q (or one nested under it); leave tag out to search everywhere", tag)
		}
		opts.Tag = tag
	}
	return ""
}

// isControl refuses control characters but lets a pasted query keep its line breaks and tabs.
func isControl(r rune) bool {
	return unicode.IsControl(r) && r != '\n' && r != '\r' && r != '\t'
}

// snippet is the start of a section's text without the "Title > Heading" line the embedder
// needed (the result names both already), cut at a word boundary.
func snippet(text string) string {
	if _, body, ok := strings.Cut(text, "\n\n"); ok {
		text = body
	}
	text = strings.Join(strings.Fields(text), " ")
	if len(text) <= snippetBytes {
		return text
	}
	cut := strings.LastIndexByte(text[:snippetBytes], ' ')
	if cut <= 0 {
		cut = snippetBytes
		for !utf8.RuneStart(text[cut]) {
			cut--
		}
	}
	return text[:cut] + " …"
}

// round keeps three decimals: more would suggest a precision the score does not have.
func round(score float64) float64 {
	return float64(int(score*1000+0.5)) / 1000
}

// render is the text a client without structured output shows: one line a result. An empty
// answer names the filters, so "nothing" is not read as "nothing anywhere in the vault".
func render(query string, opts store.Options, out searchResult) string {
	var b strings.Builder
	if len(out.Results) == 0 {
		where := "the vault"
		if opts.Folder != "" {
			where = fmt.Sprintf("folder %q", opts.Folder)
		}
		if opts.Tag != "" {
			where += fmt.Sprintf(" with tag %q", opts.Tag)
		}
		if out.Incomplete != "" {
			// The notes not yet indexed, or that failed, may hold the answer.
			where = "the notes indexed so far in " + where
		}
		fmt.Fprintf(&b, "Nothing in %s is relevant to %q.", where, query)
	}
	for i, h := range out.Results {
		where := h.Path
		if h.Heading != "" {
			where += " > " + h.Heading
		}
		fmt.Fprintf(&b, "%d. %s (line %d, score %.3f)\n   %s\n", i+1, where, h.Line, h.Score, h.Snippet)
	}
	if out.Incomplete != "" {
		fmt.Fprintf(&b, "\nNote: %s\n", out.Incomplete)
	}
	return strings.TrimRight(b.String(), "\n")
}

// incomplete says why these results may not be the vault as it is now, or returns "" when
// they are: the notes the catch-up has not reached yet, changes the watcher noticed and the
// index does not hold yet, changes the watcher may not notice, and notes that failed to index.
func (ix *index) incomplete() string {
	var why []string
	if catchingUp := ix.coverage.describe(); catchingUp != "" {
		why = append(why, catchingUp)
	}
	if n := ix.backlog(); n > 0 {
		waiting := fmt.Sprintf("%d changes to notes wait", n)
		if n == 1 {
			waiting = "a change to a note waits"
		}
		why = append(why, "the index is behind the vault: "+waiting+" to be indexed, so these results may show notes as they were, or miss new ones")
	}
	if trouble := ix.noticing().Trouble; trouble != "" {
		why = append(why, fmt.Sprintf("changes to the vault may go unnoticed (%s), so these results may be out of date", trouble))
	}
	if failed := ix.failed.snapshot(); len(failed) > 0 {
		paths := slices.Sorted(maps.Keys(failed))
		why = append(why, fmt.Sprintf("%d notes could not be indexed as they are now, so these results may miss them (first: %q: %v); index_status lists them, and those the server can retry are retried in the background",
			len(paths), paths[0], failed[paths[0]]))
	}
	return strings.Join(why, "; ")
}
