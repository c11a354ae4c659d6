// Command 10-reconcile is the finished server: it answers at once, brings its index up to date
// with the vault in the background, re-embedding only the notes that changed while it was off,
// and speaks MCP over HTTP or, for clients that launch it themselves, over stdin and stdout.
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
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/ollama/ollama/api"

	"vaultmcp/shared/guard"
	"vaultmcp/shared/inbox"
	"vaultmcp/shared/jsonrpc"
	"vaultmcp/shared/store"
	"vaultmcp/shared/toolargs"
	"vaultmcp/shared/vault"
	"vaultmcp/shared/watch"
)

func main() {
	// A client that launched the server over stdio ends it with SIGTERM (or by closing stdin);
	// either way the server stops cleanly.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args, os.Getenv, os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

// run is the whole program. main only supplies the outside world, so tests can call run with
// their own arguments, environment, input and output, and stop it by cancelling ctx.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	cfg, err := readConfig(args, getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil // -h: the flags are printed, which is all that was asked
	}
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))

	notes, err := vault.Open(cfg.vaultDir)
	if err != nil {
		return err
	}
	defer notes.Close()
	// The inbox folder is checked now and made only when create_note first writes to it.
	// Read-only, there is no inbox and no create_note: a tool that does not exist is a
	// stronger promise than a readOnlyHint, which a client may or may not heed.
	var newNotes *inbox.Inbox
	if !cfg.readOnly {
		if newNotes, err = inbox.Open(notes, cfg.inboxDir); err != nil {
			return err
		}
		defer newNotes.Close()
	} else {
		logger.Info("read-only: create_note is not offered, and nothing in the vault is created")
	}

	// The Ollama library reads OLLAMA_HOST itself, with Ollama's own rules for what it may
	// hold; reading it through getenv would mean copying those rules.
	client, err := api.ClientFromEnvironment()
	if err != nil {
		return fmt.Errorf("OLLAMA_HOST: %w", err)
	}
	if cfg.dbPath == "" {
		if cfg.dbPath, err = store.DefaultPath(cfg.vaultDir); err != nil {
			return err
		}
	}

	// Everything that can refuse to start comes before the index is opened: a server refused
	// for its address, its port or an -allow-origin must leave the index as it found it,
	// whoever else is using it. So the MCP server is made now, its tools once there is an
	// index for them, and the wall is built on the listener it guards.
	hooks := &server.Hooks{}
	names := &noteCompleter{} // its index is opened below
	mcpServer := newMCPServer(hooks, names)
	var ln net.Listener
	var srv *http.Server
	if cfg.transport == "http" {
		if ln, srv, err = listen(cfg, mcpServer, logger); err != nil {
			return err
		}
		defer ln.Close()
	}

	// Opening the index takes its lock: a second server on the same index stops here.
	if err := store.CheckLocation(cfg.vaultDir, cfg.dbPath); err != nil {
		return err
	}
	db, err := store.Open(ctx, cfg.dbPath, store.Config{})
	if err != nil {
		return err
	}
	defer db.Close()
	logger.Info("index", "db", db.Path())
	names.db = db

	embedding, err := chooseEmbedder(ctx, cfg.embedder, cfg.model, db, client, logger)
	if err != nil {
		return err
	}
	// The index keeps what it holds unless it was built by another embedder: then its vectors
	// cannot answer this one's queries, and it starts again.
	ix, err := openIndex(ctx, embedding, db, logger)
	if err != nil {
		return err
	}

	// Watch before catching up: a note changed meanwhile is not lost. Its change waits in
	// the watcher and is applied after the catch-up, by the same worker.
	watcher, err := watch.New(cfg.vaultDir, watch.Options{Logger: logger, Mode: watch.Mode(cfg.watchMode)})
	if err != nil {
		return err
	}
	defer watcher.Close()

	// Two goroutines keep the index current: the watcher, and the worker that first catches
	// up with the disk and then applies the watcher's changes. The server answers while they
	// work. Deferred in this order, they are stopped, then waited for, before the database
	// closes.
	ix.noticing = watcher.Noticing // for index_status: only the watcher knows
	updates := newLive(notes, ix, newNoteEvents(hooks, notes, logger), logger)
	workCtx, stopWork := context.WithCancel(ctx)
	var workers sync.WaitGroup
	defer workers.Wait()
	defer stopWork()
	workers.Go(func() {
		if err := watcher.Run(workCtx, updates.changes); err != nil {
			logger.Error("the file watcher stopped; edits are no longer indexed until a restart", "err", err)
		}
	})
	workers.Go(func() { updates.run(workCtx) })

	ix.floor.fixed = cfg.minScore // 0: measured at the first search
	ix.ranking = cfg.ranking
	logger.Info("search", "rank", ix.ranking, "min_score", ix.floor)

	addTools(mcpServer, notes, ix, newNotes)
	addResources(mcpServer, hooks, notes, logger)

	if cfg.transport == "stdio" {
		return serveStdio(ctx, mcpServer, stdin, stdout, logger)
	}

	logger.Info("listening", "url", "http://"+ln.Addr().String()+"/mcp", "vault", notes.Dir())

	go func() {
		<-ctx.Done()
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(shutdownCtx)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// newMCPServer makes the MCP server, without its tools and resources, which run adds.
func newMCPServer(hooks *server.Hooks, names *noteCompleter) *server.MCPServer {
	s := server.NewMCPServer("vaultmcp", "0.10.0",
		server.WithToolCapabilities(false),
		server.WithResourceCapabilities(true, true), // clients may follow a note, and hear the list change
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
	// Check every call's arguments against the tool's inputSchema before the handler runs; a
	// mismatch becomes an isError result, in a few words the model can read and act on.
	s.Use(toolargs.Check(s))
	return s
}

// listen takes the port and builds the wall every request passes before it reaches
// jsonrpc.Strict and mcp-go. No authentication and no TLS: only this machine may connect, so
// the address must be a loopback one. guard.Wrap is guard.Local and the rest of the wall: the
// method, the body's size and time, and how many requests are in flight.
func listen(cfg config, mcpServer *server.MCPServer, logger *slog.Logger) (net.Listener, *http.Server, error) {
	if err := guard.CheckListenAddr(cfg.addr); err != nil {
		return nil, nil, err
	}
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot listen on %s: %w (is another server using the port? pick another with -addr, or with ADDR= under make step)", cfg.addr, err)
	}
	// Stateless: no session ids, every POST stands alone, just as in step 1. A 2026-07-28
	// client hears of changes on the stream its subscriptions/listen POST opens; the 2025
	// stream, opened with GET, belongs to a session, which a stateless server does not keep,
	// so GET is refused with 405.
	mcpHandler := server.NewStreamableHTTPServer(mcpServer,
		server.WithStateLess(true),
		server.WithDisableStreaming(true),
		server.WithStreamableHTTPLogger(logger), // mcp-go's own lines, in the same format
	)
	walled, err := guard.Wrap(jsonrpc.Strict(mcpHandler, guard.DefaultMaxBody), guard.Config{Addr: ln.Addr(), Origins: splitList(cfg.origins), Logger: logger})
	if err != nil {
		ln.Close()
		return nil, nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", walled)
	return ln, guard.NewServer(mux), nil
}

// splitList reads a comma-separated flag.
func splitList(s string) []string {
	var items []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			items = append(items, item)
		}
	}
	return items
}
