package main

import (
	"context"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/shared/inbox"
)

var createNoteTool = mcp.NewTool("create_note",
	mcp.WithDescription("Saves a new note in the inbox of the user's Obsidian vault; returns its "+
		"path. Never overwrites: if the title is taken, pick another. Only when the user asks."),
	mcp.WithString("title", mcp.Required(), mcp.MinLength(1), mcp.MaxLength(inbox.MaxTitleLen),
		mcp.Description(`becomes the file name, like "Seed order"; never a path`)),
	mcp.WithString("content", mcp.Required(), mcp.MaxLength(inbox.MaxContentSize),
		mcp.Description("Markdown; [[links]] and #tags work")),
	mcp.WithArray("tags", mcp.MaxItems(inbox.MaxTags), mcp.WithStringItems(mcp.MaxLength(inbox.MaxTagLen)),
		mcp.Description(`without "#", like "garden/seeds"`)),
	// It adds a note and touches nothing else, so it is not destructive; calling it twice
	// does not do the same thing twice (the second call finds the title taken), so it is not
	// idempotent; and it stays on this machine.
	mcp.WithToolAnnotation(mcp.ToolAnnotation{
		ReadOnlyHint:    mcp.ToBoolPtr(false),
		DestructiveHint: mcp.ToBoolPtr(false),
		IdempotentHint:  mcp.ToBoolPtr(false),
		OpenWorldHint:   mcp.ToBoolPtr(false),
	}),
)

// createNote writes the note and nothing else: the watcher sees the new file and indexes it,
// exactly as it would a note the user saved.
func createNote(newNotes *inbox.Inbox) server.ToolHandlerFunc {
	return func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		path, err := newNotes.Create(req.GetString("title", ""), req.GetString("content", ""), req.GetStringSlice("tags", nil))
		if err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		return mcp.NewToolResultText(fmt.Sprintf("Created %s. It will be searchable in a moment.", path)), nil
	}
}
