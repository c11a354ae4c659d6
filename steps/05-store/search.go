package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

var searchVaultTool = mcp.NewTool("search_vault",
	mcp.WithDescription("Searches the user's Obsidian vault by meaning. Returns JSON: the "+
		"closest sections, best first, each with its note's path and title, its heading, a "+
		"cosine similarity (higher is closer) and its text."),
	mcp.WithString("query", mcp.Required(), mcp.MinLength(1), mcp.MaxLength(maxQuery),
		mcp.Description("what to look for, in your own words")),
	mcp.WithNumber("limit", mcp.Min(1), mcp.Max(maxLimit),
		mcp.Description(fmt.Sprintf("sections to return, 1 to %d (default %d)", maxLimit, defaultLimit))),
	readOnly(),
)

const (
	maxQuery     = 1000 // bytes: a question, not a document
	maxLimit     = 20
	defaultLimit = 5
)

// searchJSON is what search_vault returns.
type searchJSON struct {
	Results []hitJSON `json:"results"`
	// Incomplete says which notes are missing from the index, so the model does not take
	// "no result" for "no such note".
	Incomplete string `json:"incomplete,omitempty"`
}

type hitJSON struct {
	Path    string  `json:"path"`
	Title   string  `json:"title"`
	Heading string  `json:"heading"`
	Score   float32 `json:"score"`
	Text    string  `json:"text"`
}

func searchVault(ix *index) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		query := strings.TrimSpace(req.GetString("query", ""))
		if query == "" {
			return mcp.NewToolResultError(`query is empty; say what to look for, like "why is my bread dense"`), nil
		}
		limit := req.GetInt("limit", defaultLimit)

		vector, err := ix.embedder.EmbedQuery(ctx, query)
		if err != nil {
			return mcp.NewToolResultError("cannot search: " + err.Error()), nil
		}
		hits, err := ix.db.Search(ctx, vector, limit)
		if err != nil {
			return mcp.NewToolResultError("cannot search the index: " + err.Error()), nil
		}
		out := searchJSON{Results: []hitJSON{}, Incomplete: ix.incomplete()}
		for _, h := range hits {
			out.Results = append(out.Results, hitJSON{Path: h.Path, Title: h.Title, Heading: h.Heading, Score: float32(h.Score), Text: h.Text})
		}
		text, err := json.Marshal(out)
		if err != nil {
			return mcp.NewToolResultError("cannot encode the results as JSON: " + err.Error()), nil
		}
		return mcp.NewToolResultText(string(text)), nil
	}
}

// incomplete describes the notes that failed to index, or returns "" when none did.
func (ix *index) incomplete() string {
	if len(ix.failed) == 0 {
		return ""
	}
	paths := slices.Sorted(maps.Keys(ix.failed))
	return fmt.Sprintf("%d notes could not be indexed and are missing from these results (first: %q: %v); restarting the server retries them",
		len(paths), paths[0], ix.failed[paths[0]])
}
