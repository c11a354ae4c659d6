package main

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/shared/vault"
)

// addTools registers every tool. Each one sets the annotations that apply to it: mcp-go, like
// the specification, assumes the worst (destructive, open world) for any hint left out.
func addTools(s *server.MCPServer, notes *vault.Vault) {
	s.AddTool(mcp.NewTool("ping",
		mcp.WithDescription(`Checks that the server is alive. Returns the text "pong".`),
		readOnly(),
	), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("pong"), nil
	})

	s.AddTool(mcp.NewTool("echo",
		mcp.WithDescription("Returns the text it is given, unchanged. Useful to test a client."),
		mcp.WithString("text", mcp.Required(), mcp.Description("the text to send back")),
		readOnly(),
	), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		// The schema validator has already checked that text is a string.
		return mcp.NewToolResultText(req.GetString("text", "")), nil
	})

	s.AddTool(getNoteTool, getNote(notes))
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
