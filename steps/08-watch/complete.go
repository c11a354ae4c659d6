package main

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"

	"vaultmcp/shared/store"
	"vaultmcp/shared/vault"
)

// noteCompleter completes a note's path as the person types it. A client that lets the
// person fill in the note template (note:///{+path}) sends completion/complete with what is
// typed so far, and offers the notes this returns, best first: the notes whose path, name or
// alias holds it, as links find notes by name and alias. The index knows every note's name.
type noteCompleter struct {
	db *store.Store
}

// CompleteResourceArgument answers completion/complete for a resource template's argument.
// Only the note template's path has anything to complete; for anything else the answer is
// no values, as mcp-go's own default gives.
func (c *noteCompleter) CompleteResourceArgument(ctx context.Context, uri string, arg mcp.CompleteArgument, _ mcp.CompleteContext) (*mcp.Completion, error) {
	none := &mcp.Completion{Values: []string{}}
	if uri != vault.URITemplate || arg.Name != "path" || len(arg.Value) > vault.MaxPathLen {
		return none, nil
	}
	paths, total, err := c.db.CompleteNotes(ctx, arg.Value, store.MaxCompletions)
	if err != nil || len(paths) == 0 {
		return none, err
	}
	return &mcp.Completion{Values: paths, Total: total, HasMore: total > len(paths)}, nil
}
