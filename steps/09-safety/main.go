// Command 09-safety gets the server ready for a model that may be steered by someone else:
// two write tools that can only add, create_note for new notes in the inbox and
// append_to_note for text added to the version of a note the model read, and a wall around
// the HTTP endpoint that refuses what a hostile web page or client would try.
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
	"sync"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/shared/deadline"
	"vaultmcp/shared/edit"
	"vaultmcp/shared/embed"
	"vaultmcp/shared/guard"
	"vaultmcp/shared/inbox"
	"vaultmcp/shared/jsonrpc"
	"vaultmcp/shared/serve"
	"vaultmcp/shared/toolargs"
	"vaultmcp/shared/vault"
	"vaultmcp/shared/watch"
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
	write, err := openWriters(ctx, notes, cfg, logger)
	if err != nil {
		return err
	}
	defer write.Close()
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
	// Watch before indexing: a note changed while the index is built is not lost. Its change
	// waits in the watcher and is applied once the index is ready.
	watcher, err := watch.New(cfg.vaultDir, watch.Options{Logger: logger, Mode: cfg.watchMode})
	if err != nil {
		return err
	}
	defer watcher.Close()
	ix, err := openIndex(ctx, cfg, notes, embedding, logger)
	if ctx.Err() != nil {
		return nil // stopped while indexing, as asked: not an error
	}
	if err != nil {
		return err
	}
	defer ix.db.Close()

	hooks := &server.Hooks{}
	mcpServer := newMCPServer(hooks, &noteCompleter{db: ix.db}, cfg.toolTimeout, logger)
	addTools(mcpServer, notes, ix, write.newNotes, write.edits)
	addResources(mcpServer, hooks, notes, logger)
	stopWork := keepCurrent(ctx, watcher, newLive(notes, ix, watcher, newNoteEvents(hooks, notes, logger), logger), logger)
	defer stopWork() // before the index closes, since defers run last first

	return serveMCP(ctx, cfg, ln, mcpServer, findNotes(notes), stdin, stdout, logger)
}

// writers are what the write tools write with, or nothing when serving read-only.
type writers struct {
	newNotes *inbox.Inbox // create_note's
	edits    *edit.Editor // append_to_note's
}

// openWriters checks the inbox folder, which is made only when create_note first writes to
// it, and opens the editor (see openEditor). Read-only, there is neither, and no write tool: a
// tool that does not exist is a stronger promise than a readOnlyHint, which a client may or
// may not heed.
func openWriters(ctx context.Context, notes *vault.Vault, cfg config, logger *slog.Logger) (writers, error) {
	if cfg.readOnly {
		logger.Info("read-only: create_note and append_to_note are not offered, and nothing in the vault is created or changed")
		return writers{}, nil
	}
	newNotes, err := inbox.Open(notes, cfg.inboxDir)
	if err != nil {
		return writers{}, err
	}
	edits, err := openEditor(ctx, notes, logger)
	if err != nil {
		newNotes.Close()
		return writers{}, err
	}
	return writers{newNotes, edits}, nil
}

// Close releases what openWriters opened.
func (w writers) Close() {
	if w.newNotes != nil {
		w.newNotes.Close()
		w.edits.Close()
	}
}

// keepCurrent starts the two goroutines that keep the index current while the server
// answers: the watcher, and the worker that applies its changes and tells clients of them.
// It returns the function that stops them and waits until they have.
func keepCurrent(ctx context.Context, watcher *watch.Watcher, updates *live, logger *slog.Logger) (stop func()) {
	updates.ix.noticing = watcher.Noticing // for index_status: only the watcher knows
	ctx, cancel := context.WithCancel(ctx)
	// The notes that failed at start go to the same queue, to be retried like any other.
	// The workers have not started, so nothing else touches updates yet.
	for path, err := range updates.ix.failed.snapshot() {
		updates.retryLater(ctx, path, err)
	}
	var workers sync.WaitGroup
	workers.Go(func() {
		if err := watcher.Run(ctx, updates.changes); err != nil {
			logger.Error("the file watcher stopped; edits are no longer indexed until a restart", "err", err)
		}
	})
	workers.Go(func() { updates.run(ctx) })
	return func() {
		cancel()
		workers.Wait()
	}
}

// serveMCP serves over the transport cfg names, on ln for HTTP, until ctx ends or a stdio
// client closes stdin, and returns once the requests under way have finished.
func serveMCP(ctx context.Context, cfg config, ln net.Listener, mcpServer *server.MCPServer, resources jsonrpc.Option, stdin io.Reader, stdout io.Writer, logger *slog.Logger) error {
	if cfg.transport == "stdio" {
		return serveStdio(ctx, mcpServer, stdin, stdout, logger, resources)
	}
	srv, err := newHTTPServer(ln, mcpServer, resources, cfg.origins, logger)
	if err != nil {
		return err
	}
	logger.Info("listening", "url", "http://"+ln.Addr().String()+"/mcp", "vault", cfg.vaultDir)
	return serve.HTTP(ctx, srv, ln, logger)
}

// newMCPServer makes the MCP server, without its tools and resources, which run adds.
func newMCPServer(hooks *server.Hooks, names *noteCompleter, toolTimeout time.Duration, logger *slog.Logger) *server.MCPServer {
	s := server.NewMCPServer("vaultmcp", "0.9.0",
		server.WithToolCapabilities(false),
		server.WithResourceCapabilities(true, true), // clients may follow a note, and hear the list change
		// A panic in a resources/read handler becomes that request's internal error, -32603;
		// without this, net/http would recover it and drop the connection unanswered.
		server.WithResourceRecovery(),
		server.WithHooks(hooks),
		server.WithCompletions(),
		server.WithResourceCompletionProvider(names),
		// A client may keep the one template for an hour; the list of notes and a note's text
		// can change with any save, so they keep mcp-go's default, 0: ask again each time.
		server.WithMethodCacheHints(mcp.MethodResourcesTemplatesList, time.Hour.Milliseconds(), mcp.CacheScopePrivate),
		// An argument the schema does not name is refused too: a model that invents one
		// learns at once that it does nothing.
		server.WithStrictInputSchemaDefault(),
	)
	// Every call has a deadline: one still running at toolTimeout is answered with an error
	// the model can act on, and its request slot is free again.
	s.Use(deadline.ToolCalls(toolTimeout, logger))
	// Check every call's arguments against the tool's inputSchema before the handler runs; a
	// mismatch becomes an isError result, in a few words the model can read and act on.
	s.Use(toolargs.Check(s))
	return s
}

// listen takes the port. The listener's address is the real one, even for "127.0.0.1:0": the
// log needs it, and so do the Host and Origin checks, which let through only requests
// addressed to it. Since "localhost" may resolve elsewhere if the hosts file says so, the
// address the listener really got is checked again to be a loopback one.
func listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("cannot listen on %s: %w (is another server using the port? choose another address with -addr or VAULTMCP_ADDR)", addr, err)
	}
	if err := guard.CheckListenAddr(ln.Addr().String()); err != nil {
		ln.Close()
		return nil, err
	}
	return ln, nil
}

// newHTTPServer builds the wall every request passes before it reaches jsonrpc.Strict and
// mcp-go. No authentication and no TLS: only this machine may connect, which listen made
// sure of. guard.Hostile is guard.Local (Host and Origin) and the limits on top: the method,
// the body's size and time, and how many requests are in flight.
func newHTTPServer(ln net.Listener, mcpServer *server.MCPServer, resources jsonrpc.Option, origins []string, logger *slog.Logger) (*http.Server, error) {
	// Stateless: no session ids, every POST stands alone. A 2026-07-28 client hears of
	// changes on the stream its subscriptions/listen POST opens; the 2025 stream, opened with
	// GET, belongs to a session, which a stateless server does not keep, so GET is refused
	// with 405.
	mcpHandler := server.NewStreamableHTTPServer(mcpServer,
		server.WithStateLess(true),
		server.WithDisableStreaming(true),
		server.WithStreamableHTTPLogger(logger), // mcp-go's own lines, in the same format
	)
	guarded, err := guard.Hostile(jsonrpc.Strict(mcpHandler, guard.DefaultMaxBody, resources), guard.Config{Addr: ln.Addr(), Origins: origins, Logger: logger})
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", guarded)
	return guard.NewServer(mux), nil
}
