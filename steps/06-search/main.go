// Command 06-search shapes search for its reader, a model: the best section of each note,
// filters by folder and tag applied inside the vector query, a floor under which nothing
// counts as a match, and results as structured data with a readable rendering.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/shared/embed"
	"vaultmcp/shared/guard"
	"vaultmcp/shared/jsonrpc"
	"vaultmcp/shared/serve"
	"vaultmcp/shared/toolargs"
	"vaultmcp/shared/vault"
)

func main() {
	// Ctrl-C sends an interrupt; kill and make send SIGTERM. A client that started the server
	// over stdio closes stdin, then sends SIGTERM if the server is slow to go. Every way, run
	// stops gracefully.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args, os.Getenv, os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

// run is the whole program. main only supplies the outside world, so tests can call run with
// their own arguments, environment, input and output, and stop it by cancelling ctx. It works
// in phases: read and check the configuration; open the vault, the port and the index; build
// the MCP server; then serve until ctx ends, and let the requests under way finish.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	cfg, err := readConfig(args, getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil // -h: the flags are printed, which is all that was asked
	}
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))

	// Whatever may still refuse to start comes before the index is opened, the port above
	// all: a refused server leaves the index as it found it, whoever else is using it.
	notes, err := vault.Open(cfg.vaultDir)
	if err != nil {
		return err
	}
	defer notes.Close()
	embedding, err := embed.Choose(ctx, cfg.embedder, cfg.ollama, logger)
	if err != nil {
		return err
	}
	var ln net.Listener
	if cfg.transport == "http" {
		if ln, err = listen(cfg.addr); err != nil {
			return err
		}
		defer ln.Close()
	}
	ix, err := openIndex(ctx, cfg, notes, embedding, logger)
	if ctx.Err() != nil {
		return nil // stopped while indexing, as asked: not an error
	}
	if err != nil {
		return err
	}
	defer ix.db.Close()

	hooks := &server.Hooks{}
	mcpServer := newMCPServer(hooks)
	addTools(mcpServer, notes, ix)
	addResources(mcpServer, hooks, notes, logger)

	return serveMCP(ctx, cfg, ln, mcpServer, findNotes(notes), stdin, stdout, logger)
}

// serveMCP serves over the transport cfg names, on ln for HTTP, until ctx ends or a stdio
// client closes stdin, and returns once the requests under way have finished.
func serveMCP(ctx context.Context, cfg config, ln net.Listener, mcpServer *server.MCPServer, resources jsonrpc.Option, stdin io.Reader, stdout io.Writer, logger *slog.Logger) error {
	if cfg.transport == "stdio" {
		return serveStdio(ctx, mcpServer, stdin, stdout, logger, resources)
	}
	srv, err := newHTTPServer(ln, mcpServer, resources, logger)
	if err != nil {
		return err
	}
	logger.Info("listening", "url", "http://"+ln.Addr().String()+"/mcp", "vault", cfg.vaultDir)
	return serve.HTTP(ctx, srv, ln, logger)
}

// newMCPServer makes the MCP server, without its tools and resources, which run adds.
func newMCPServer(hooks *server.Hooks) *server.MCPServer {
	s := server.NewMCPServer("vaultmcp", "0.6.0",
		server.WithToolCapabilities(false),
		server.WithResourceCapabilities(false, false),
		// A panic in a resources/read handler becomes that request's internal error, -32603;
		// without this, net/http would recover it and drop the connection unanswered.
		server.WithResourceRecovery(),
		server.WithHooks(hooks),
		// A client may keep the one template for an hour; the list of notes and a note's text
		// can change with any save, so they keep mcp-go's default, 0: ask again each time.
		server.WithMethodCacheHints(mcp.MethodResourcesTemplatesList, time.Hour.Milliseconds(), mcp.CacheScopePrivate),
	)
	// Check every call's arguments against the tool's inputSchema before the handler runs; a
	// mismatch becomes an isError result, in a few words the model can read and act on.
	s.Use(toolargs.Check(s))
	return s
}

// listen takes the port. The listener's address is the real one, even for "127.0.0.1:0": the
// log needs it, and so do the Host and Origin checks, which let through only requests
// addressed to it.
func listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("cannot listen on %s: %w (is another server using the port? choose another address with -addr or VAULTMCP_ADDR)", addr, err)
	}
	return ln, nil
}

// newHTTPServer puts two checks in front of mcp-go. jsonrpc.Strict answers the messages MCP
// forbids and mcp-go would accept. guard.Local refuses a request from a web page (Origin) or
// addressed to another name (Host).
func newHTTPServer(ln net.Listener, mcpServer *server.MCPServer, resources jsonrpc.Option, logger *slog.Logger) (*http.Server, error) {
	// Stateless: no session ids, every POST stands alone. This server never sends anything
	// unasked, so GET, which would open that stream, is refused with 405.
	mcpHandler := server.NewStreamableHTTPServer(mcpServer,
		server.WithStateLess(true),
		server.WithDisableStreaming(true),
		server.WithStreamableHTTPLogger(logger), // mcp-go's own lines, in the same format
	)
	local, err := guard.Local(jsonrpc.Strict(mcpHandler, guard.DefaultMaxBody, resources), ln.Addr(), logger)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", local)
	return &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, IdleTimeout: time.Minute}, nil
}
