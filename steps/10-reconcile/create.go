package main

import (
	"context"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/shared/inbox"
)

var createNoteTool = mcp.NewTool("create_note",
	mcp.WithDescription("Saves a new note in the inbox folder of the user's Obsidian vault, and "+
		"returns its path. You give a title, never a path: the file name is made from the title. "+
		"It never changes or replaces an existing note; if the title is taken, choose another. "+
		"Use it when the user asks you to write something down."),
	mcp.WithString("title", mcp.Required(), mcp.MinLength(1), mcp.MaxLength(inbox.MaxTitleLen),
		mcp.Description(`the note's title, like "Seed order for spring"; it becomes the file name`)),
	mcp.WithString("content", mcp.Required(), mcp.MaxLength(inbox.MaxContentSize),
		mcp.Description("the note's text, in Markdown (Obsidian's: [[links]] and #tags work)")),
	mcp.WithArray("tags", mcp.MaxItems(inbox.MaxTags), mcp.WithStringItems(mcp.MaxLength(inbox.MaxTagLen)),
		mcp.Description(`tags for the note's frontmatter, without '#', like ["garden", "garden/seeds"]`)),
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
