// Command 08-watch keeps the index current while it serves: a file watcher reports the notes
// that change, and one worker reindexes them, so an edit made in Obsidian is searchable a
// moment later, without a restart.
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
	"github.com/ollama/ollama/api"

	"vaultmcp/shared/embed"
	"vaultmcp/shared/guard"
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

	// The Ollama library reads OLLAMA_HOST itself, with Ollama's own rules for what it may
	// hold; reading it through getenv would mean copying those rules.
	client, err := api.ClientFromEnvironment()
	if err != nil {
		return fmt.Errorf("OLLAMA_HOST: %w", err)
	}
	embedding, err := embed.Choose(ctx, cfg.embedder, client, logger)
	if err != nil {
		return err
	}
	if cfg.dbPath == "" {
		if cfg.dbPath, err = store.DefaultPath(cfg.vaultDir); err != nil {
			return err
		}
	}

	// The port is taken before the index is opened: a server refused because another program
	// holds the port must leave the index as it found it, whoever else is using it. So the MCP
	// server is made now, and its tools are added once there is an index for them. Requests
	// wait in the listener's queue until the index is built and the server answers them.
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

	// Watch before indexing: a note changed while the index is built is not lost. Its change
	// waits in the watcher and is applied once the index is ready.
	watcher, err := watch.New(cfg.vaultDir, watch.Options{Logger: logger, Mode: watch.Mode(cfg.watchMode)})
	if err != nil {
		return err
	}
	defer watcher.Close()

	// Indexing comes before serving: simple, and nobody searches a half-built index. Step 10
	// serves while it indexes, and re-embeds only the notes that changed.
	ix, err := buildIndex(ctx, notes, embedding, db, logger)
	if ctx.Err() != nil {
		return nil // stopped while indexing, as asked: not an error
	}
	if err != nil {
		return err
	}

	// Two goroutines keep the index current: the watcher, and the worker that applies its
	// changes and tells clients of them, through the MCP server's hooks. Deferred in this
	// order, they are stopped, then waited for, before the database closes.
	ix.noticing = watcher.Noticing // for index_status: only the watcher knows
	updates := newLive(notes, ix, newNoteEvents(hooks, notes, logger), logger)
	workCtx, stopWork := context.WithCancel(ctx)
	var workers sync.WaitGroup
	defer workers.Wait()
	defer stopWork()
	// The notes that failed at start go to the same queue, to be retried like any other.
	// The workers have not started, so nothing else touches updates yet.
	for path, err := range ix.failed.snapshot() {
		updates.retryLater(workCtx, path, err)
	}
	workers.Go(func() {
		if err := watcher.Run(workCtx, updates.changes); err != nil {
			logger.Error("the file watcher stopped; edits are no longer indexed until a restart", "err", err)
		}
	})
	workers.Go(func() { updates.run(workCtx) })

	ix.floor.fixed = cfg.minScore // 0: measured at the first search
	ix.ranking = cfg.ranking
	logger.Info("search", "rank", ix.ranking, "min_score", ix.floor)

	addTools(mcpServer, notes, ix)
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
	s := server.NewMCPServer("vaultmcp", "0.8.0",
		server.WithToolCapabilities(false),
		server.WithResourceCapabilities(true, true), // clients may follow a note, and hear the list change
		server.WithHooks(hooks),
		server.WithCompletions(),
		server.WithResourceCompletionProvider(names),
		// A client may keep the one template for an hour; the list of notes and a note's text
		// can change with any save, so they keep mcp-go's default, 0: ask again each time.
		server.WithMethodCacheHints(mcp.MethodResourcesTemplatesList, time.Hour.Milliseconds(), mcp.CacheScopePrivate),
	)
	// Check every call's arguments against the tool's inputSchema before the handler runs; a
	// mismatch becomes an isError result, in a few words the model can read and act on.
	s.Use(toolargs.Check(s))
	return s
}

// listen takes the port and puts two checks in front of mcp-go, as step 1 made them by hand.
// jsonrpc.Strict answers the messages MCP forbids and mcp-go would accept. guard.Local refuses
// a request from a web page (Origin) or addressed to another name (Host); it needs the port
// really bound.
func listen(cfg config, mcpServer *server.MCPServer, logger *slog.Logger) (net.Listener, *http.Server, error) {
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
	local, err := guard.Local(jsonrpc.Strict(mcpHandler, guard.DefaultMaxBody), ln.Addr(), logger)
	if err != nil {
		ln.Close()
		return nil, nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", local)
	return ln, &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}, nil
}
