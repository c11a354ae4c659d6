package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/shared/store"
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
	NotIndexed map[string]string `json:"notIndexed"`           // path → why
	Changes    string            `json:"changes"`              // how edits are noticed: file events, or polling and why
	Watcher    string            `json:"watcher"`              // "ok", or why changes may go unnoticed
	Backlog    int               `json:"backlog"`              // changes noticed and not indexed yet
	CaughtUpAt string            `json:"caughtUpAt,omitempty"` // RFC 3339: when the index last matched the disk; left out before it first did
	Compaction string            `json:"compaction"`           // how much of the vectors table is live, and why compacting failed
}

func indexStatus(ix *index) server.ToolHandlerFunc {
	return func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		stats, err := ix.db.Stats(ctx)
		if err != nil {
			return mcp.NewToolResultError("cannot read the index: " + err.Error()), nil
		}
		live, dead, err := ix.db.Slots(ctx)
		if err != nil {
			return mcp.NewToolResultError("cannot read the index: " + err.Error()), nil
		}
		out := statusJSON{
			Notes: stats.Notes, Sections: stats.Sections,
			Embedder: stats.Embedder.Name, Model: stats.Embedder.Model, Dimensions: stats.Embedder.Dimension,
			NotIndexed: map[string]string{},
			Compaction: compaction(live, dead, ix.compaction.Err()),
		}
		noticing := ix.noticing()
		out.Changes, out.Watcher, out.Backlog = noticing.String(), cmp.Or(noticing.Trouble, "ok"), ix.backlog()
		if at := ix.caughtUp.look(ix.current()); !at.IsZero() {
			out.CaughtUpAt = at.Format(time.RFC3339)
		}
		for path, err := range ix.failed.snapshot() {
			out.NotIndexed[path] = err.Error()
		}
		text, err := json.Marshal(out)
		if err != nil {
			return mcp.NewToolResultError("cannot encode the status as JSON: " + err.Error()), nil
		}
		return mcp.NewToolResultText(string(text)), nil
	}
}

// compaction says how much of the vectors table deleted vectors have left dead (see
// store.MinLiveShare), and why the latest compaction failed, if it did.
func compaction(live, dead int, failed error) string {
	share := 1.0
	if live+dead > 0 {
		share = float64(live) / float64(live+dead)
	}
	say := fmt.Sprintf("%.0f%% of the vector slots are live; the index compacts itself below %.0f%%", 100*share, 100*store.MinLiveShare)
	if failed != nil {
		say += "; the latest compaction failed, and is tried again later: " + failed.Error()
	}
	return say
}
