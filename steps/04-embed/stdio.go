package main

import (
	"bytes"
	"context"
	"io"
	"log"
	"log/slog"

	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/shared/guard"
	"vaultmcp/shared/jsonrpc"
	"vaultmcp/shared/serve"
)

// serveStdio speaks MCP over stdin and stdout, one JSON-RPC message per line, until the client
// closes stdin or ctx ends. Clients such as Claude Desktop start the server themselves and talk
// to it this way: no port, no Host or Origin to check, since only the process that started the
// server can write to its stdin. The tools, their schemas and their limits are the same as over
// HTTP.
//
// stdout belongs to the protocol: a single stray line there breaks the client's parser. That is
// why every log goes to stderr, which clients show in their MCP logs.
func serveStdio(ctx context.Context, mcpServer *server.MCPServer, stdin io.Reader, stdout io.Writer, logger *slog.Logger, checks ...jsonrpc.Option) error {
	stdio := server.NewStdioServer(mcpServer)
	stdio.SetErrorLogger(log.New(slogWriter{logger}, "", 0))
	logger.Info("serving MCP on stdin and stdout")
	// serve.Stdio lets the requests under way finish when stdin closes or ctx ends, which
	// mcp-go's Listen alone would cancel. It checks each line as jsonrpc.Strict checks a body
	// over HTTP, with the same checks, and bounds it as HTTP bounds a body.
	return serve.Stdio(ctx, stdio.Listen, stdin, stdout, guard.DefaultMaxBody, logger, checks...)
}

// slogWriter turns mcp-go's log.Logger lines into structured log records on stderr.
type slogWriter struct{ logger *slog.Logger }

func (w slogWriter) Write(p []byte) (int, error) {
	w.logger.Error("stdio", "err", string(bytes.TrimSpace(p)))
	return len(p), nil
}
