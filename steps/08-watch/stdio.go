package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log"
	"log/slog"

	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/shared/guard"
)

// serveStdio speaks MCP over stdin and stdout, one JSON-RPC message per line, until the client
// closes stdin or ctx ends. Clients such as Claude Desktop start the server themselves and talk
// to it this way: no port, no Host or Origin to check, since only the process that started the
// server can write to its stdin. The tools, their schemas and their limits are the same as over
// HTTP.
//
// stdout belongs to the protocol: a single stray line there breaks the client's parser. That is
// why every log goes to stderr, which clients show in their MCP logs.
func serveStdio(ctx context.Context, mcpServer *server.MCPServer, stdin io.Reader, stdout io.Writer, logger *slog.Logger) error {
	stdio := server.NewStdioServer(mcpServer)
	stdio.SetErrorLogger(log.New(slogWriter{logger}, "", 0))
	logger.Info("serving MCP on stdin and stdout")
	// The bound HTTP puts on a body (guard.DefaultMaxBody) applies to a line: mcp-go reads a
	// whole line before it parses it, and a line never ended would fill memory.
	err := stdio.Listen(ctx, &boundedLines{r: stdin, max: guard.DefaultMaxBody}, stdout)
	if ctx.Err() != nil {
		return nil // stopped by a signal: not an error
	}
	return err
}

// boundedLines passes a reader through, and fails once a line grows longer than max bytes.
type boundedLines struct {
	r    io.Reader
	max  int
	line int // bytes since the last newline
}

func (b *boundedLines) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	for chunk := p[:n]; len(chunk) > 0; {
		end := bytes.IndexByte(chunk, '\n')
		if end < 0 {
			end = len(chunk)
		}
		if b.line += end; b.line > b.max {
			return n, fmt.Errorf("a message on stdin is longer than %d bytes; messages end with a newline, and none is this long", b.max)
		}
		if end < len(chunk) {
			b.line, end = 0, end+1 // the newline ends the line
		}
		chunk = chunk[end:]
	}
	return n, err
}

// slogWriter turns mcp-go's log.Logger lines into structured log records on stderr.
type slogWriter struct{ logger *slog.Logger }

func (w slogWriter) Write(p []byte) (int, error) {
	w.logger.Error("stdio", "err", string(bytes.TrimSpace(p)))
	return len(p), nil
}
