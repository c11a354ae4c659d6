package main

import (
	"context"
	"encoding/base64"
	"errors"
	"log/slog"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/shared/jsonrpc"
	"vaultmcp/shared/vault"
)

// Resources are MCP's other way to show data, and they are for the person, not the model. The
// model calls a tool when it decides to; the person picks a resource from the client's list
// and attaches it to the conversation. Every note is a resource here, named by its URI
// (vault.URI): "note:///Garden/Tomatoes.md".
var noteTemplate = mcp.NewResourceTemplate(vault.URITemplate, "note",
	mcp.WithTemplateDescription("A note in the user's Obsidian vault, as Markdown; path is where it is in the vault, like Garden/Tomatoes.md."),
	mcp.WithTemplateMIMEType("text/markdown"),
)

// notesPerPage bounds one answer to resources/list to about 100 KB; a client pages through a
// larger vault with the cursor. Clients ask for every page before they show the list, and the
// TypeScript client 2.4 stops at 64 pages by default: 1,000 notes a page lets it see 64,000.
const notesPerPage = 1000

// addResources offers every note as a resource: the template, which tells a client how to
// build a note's URI; resources/list, a page of notes at a time; and resources/read.
func addResources(s *server.MCPServer, hooks *server.Hooks, notes *vault.Vault, logger *slog.Logger) {
	s.AddResourceTemplate(noteTemplate, readResource(notes))
	// mcp-go lists only the resources registered with it, held in memory and sorted on every
	// request. Notes are on disk, and there may be 50,000, so the page is filled after mcp-go
	// has checked the request and its cursor.
	hooks.AddAfterListResources(listResources(notes, logger))
}

// readResource answers resources/read for a note's URI. The path in the URI passes the same
// checks as get_note's path argument: both come from outside. A note that does not exist never
// gets here: see findNotes.
func readResource(notes *vault.Vault) server.ResourceTemplateHandlerFunc {
	return func(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		p, err := vault.PathFromURI(req.Params.URI)
		if err != nil {
			return nil, err
		}
		note, content, err := notes.ReadNote(p)
		if err != nil {
			return nil, err
		}
		return []mcp.ResourceContents{mcp.TextResourceContents{
			URI:      vault.URI(note),
			MIMEType: "text/markdown",
			Text:     string(content),
		}}, nil
	}
}

// findNotes has the transports answer a resources/read of a note that does not exist before
// mcp-go sees it (see jsonrpc.FindResources). mcp-go v1.2.1 would send readResource's error as
// -32603, internal error: it gives a handler's errors no other code. The specification asks for
// "resource not found" with the URI in error.data: -32602 in 2026-07-28, -32002 in 2025-11-25.
// A URI that cannot name a note (another scheme) names no resource either; one that breaks the
// rules of a path is invalid params. readResource still checks everything, for a note removed
// between the two.
func findNotes(notes *vault.Vault) jsonrpc.Option {
	return jsonrpc.FindResources(func(uri string) error {
		p, err := vault.PathFromURI(uri)
		switch {
		case err != nil && !strings.HasPrefix(uri, vault.URIPrefix):
			return jsonrpc.NotFound(err)
		case err != nil:
			return err
		}
		_, _, err = notes.Stat(p)
		switch {
		case errors.Is(err, vault.ErrNotFound):
			return jsonrpc.NotFound(err)
		case errors.Is(err, vault.ErrInvalidPath), errors.Is(err, vault.ErrOutside), errors.Is(err, vault.ErrNotNote):
			return err
		}
		return nil // a note, or one the disk would not let readResource read: it says why
	})
}

// listResources fills a resources/list result with the page of notes after the cursor. The
// cursor is mcp-go's own kind, which it has already decoded once to check it: the base64 of
// the last name on the previous page, here a note's path.
func listResources(notes *vault.Vault, logger *slog.Logger) server.OnAfterListResourcesFunc {
	return func(_ context.Context, _ any, req *mcp.ListResourcesRequest, result *mcp.ListResourcesResult) {
		after, _ := base64.StdEncoding.DecodeString(string(req.Params.Cursor))
		page, more, err := notes.NotesAfter(string(after), notesPerPage)
		if err != nil {
			logger.Error("resources/list", "err", err)
			return
		}
		for _, note := range page {
			result.Resources = append(result.Resources, mcp.Resource{URI: vault.URI(note), Name: note, MIMEType: "text/markdown"})
		}
		if more {
			result.NextCursor = mcp.Cursor(base64.StdEncoding.EncodeToString([]byte(page[len(page)-1])))
		}
	}
}
