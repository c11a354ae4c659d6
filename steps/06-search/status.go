package main

import (
	"context"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

var indexStatusTool = mcp.NewTool("index_status",
	mcp.WithDescription("What the search index holds and which notes failed: use it when "+
		"search_vault finds less than expected."),
	readOnly(),
)

// statusJSON is what index_status returns: the meta table and the counts, read from the
// database itself rather than from what the server believes it wrote, and the notes that
// failed, which only this run of the server knows.
type statusJSON struct {
	Notes      int               `json:"notes"`
	Sections   int               `json:"sections"`
	Embedder   string            `json:"embedder"`
	Model      string            `json:"model"`
	Dimensions int               `json:"dimensions"`
	NotIndexed map[string]string `json:"notIndexed"` // path → why
}

func indexStatus(ix *index) server.ToolHandlerFunc {
	return func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		stats, err := ix.db.Stats(ctx)
		if err != nil {
			return mcp.NewToolResultError("cannot read the index: " + err.Error()), nil
		}
		out := statusJSON{
			Notes: stats.Notes, Sections: stats.Sections,
			Embedder: stats.Embedder.Name, Model: stats.Embedder.Model, Dimensions: stats.Embedder.Dimension,
			NotIndexed: map[string]string{},
		}
		for path, err := range ix.failed {
			out.NotIndexed[path] = err.Error()
		}
		text, err := json.Marshal(out)
		if err != nil {
			return mcp.NewToolResultError("cannot encode the status as JSON: " + err.Error()), nil
		}
		return mcp.NewToolResultText(string(text)), nil
	}
}
