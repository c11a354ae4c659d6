package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/shared/edit"
	"vaultmcp/shared/inbox"
	"vaultmcp/shared/vault"
)

var appendToNoteTool = mcp.NewTool("append_to_note",
	mcp.WithDescription("Adds Markdown to the end of a note of the user's Obsidian vault, or of a "+
		"section; returns the new version. Read the note with get_note first, and again if it "+
		"changed. Only when the user asks."),
	mcp.WithString("path", mcp.Required(), mcp.MaxLength(vault.MaxPathLen),
		mcp.Description(`like "Daily/2026-03-15.md"`)),
	mcp.WithString("text", mcp.Required(), mcp.MaxLength(inbox.MaxContentSize),
		mcp.Description("added as new lines")),
	mcp.WithString("if_match", mcp.Required(), mcp.MaxLength(64),
		mcp.Description("the version get_note returned")),
	mcp.WithString("heading", mcp.MaxLength(edit.MaxHeading),
		mcp.Description(`add to the end of this section: "Log", or "Work > Log" if several`)),
	// It only adds, so it is not destructive; a second identical call adds the text again (or
	// is refused, the version having changed), so it is not idempotent; it stays on this
	// machine.
	mcp.WithToolAnnotation(mcp.ToolAnnotation{
		ReadOnlyHint:    mcp.ToBoolPtr(false),
		DestructiveHint: mcp.ToBoolPtr(false),
		IdempotentHint:  mcp.ToBoolPtr(false),
		OpenWorldHint:   mcp.ToBoolPtr(false),
	}),
)

// appendToNote adds the text and nothing else: as with create_note, the watcher sees the
// changed note and indexes it, exactly as it would an edit the user saved.
func appendToNote(edits *edit.Editor) server.ToolHandlerFunc {
	return func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		heading := req.GetString("heading", "")
		path, version, err := edits.Append(req.GetString("path", ""), req.GetString("text", ""), req.GetString("if_match", ""), heading)
		if err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		where := "the end of " + path
		if heading != "" {
			where = fmt.Sprintf("section %q of %s", heading, path)
		}
		return mcp.NewToolResultText(fmt.Sprintf("Added to %s. Its version is now %s.", where, version)), nil
	}
}

// openEditor opens what append_to_note writes with. Every write of the server goes through a
// temporary file that is renamed into place; a crash (a kill -9, a power cut) can leave one
// behind, never a half-written note, and the leftovers are cleared here, before the server
// writes anything. That is a walk of the vault's folders, done before the watcher starts, so
// that it slows no other work.
func openEditor(ctx context.Context, notes *vault.Vault, logger *slog.Logger) (*edit.Editor, error) {
	edits, err := edit.Open(notes)
	if err != nil {
		return nil, err
	}
	removed, err := edits.RemoveLeftovers(ctx)
	if len(removed) > 0 {
		logger.Info("removed the temporary files of writes cut short", "files", removed)
	}
	if err != nil && ctx.Err() == nil {
		logger.Warn("cannot clear the temporary files of writes cut short", "err", err)
	}
	return edits, nil
}
