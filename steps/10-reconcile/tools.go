package main

import (
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/shared/edit"
	"vaultmcp/shared/inbox"
	"vaultmcp/shared/vault"
)

// addTools registers every tool. Only tools a model working on notes would call: each tool's
// name, description and schemas go to the model with every turn. Each one sets the
// annotations that apply to it: mcp-go, like the specification, assumes the worst
// (destructive, open world) for any hint left out.
func addTools(s *server.MCPServer, notes *vault.Vault, ix *index, newNotes *inbox.Inbox, edits *edit.Editor) {
	s.AddTool(getNoteTool, getNote(notes))
	s.AddTool(searchVaultTool, searchVault(notes, ix))
	s.AddTool(indexStatusTool, indexStatus(ix, notes))
	s.AddTool(getBacklinksTool, getBacklinks(notes, ix))
	if newNotes != nil { // nil when serving read-only
		s.AddTool(createNoteTool, createNote(newNotes))
		s.AddTool(appendToNoteTool, appendToNote(edits))
	}
}

// readOnly annotates a tool that only reads: it changes nothing, and it reaches nothing
// outside this machine. The specification reads destructiveHint and idempotentHint only when
// readOnlyHint is false, so a reading tool leaves them out.
func readOnly() mcp.ToolOption {
	return mcp.WithToolAnnotation(mcp.ToolAnnotation{
		ReadOnlyHint:  mcp.ToBoolPtr(true),
		OpenWorldHint: mcp.ToBoolPtr(false),
	})
}
