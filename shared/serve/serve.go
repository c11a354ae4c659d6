// Package serve runs an MCP server until it is told to stop, and then stops it gracefully:
// it takes no new request, lets the requests under way finish, for at most DrainTimeout, and
// returns only when they have, so that the caller may close what they use (the index, the
// vault) after it. HTTP does this for Streamable HTTP, Stdio for stdin and stdout.
package serve

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"

	"vaultmcp/shared/jsonrpc"
)

// DrainTimeout bounds how long a stopping server waits for the requests under way. A search
// answers in well under a second once its model is loaded; ten seconds let a slow one finish,
// and are short enough that a user who stops the server does not wait for a stuck one.
const DrainTimeout = 10 * time.Second

// cancelGrace is how long a request that was cancelled has to send its answer (an error)
// before its connection is closed under it.
const cancelGrace = 2 * time.Second

// HTTP serves srv on ln until ctx ends, then shuts srv down as http.Server.Shutdown describes
// it: the listener closes, so no new connection is accepted; idle connections close; and each
// request under way runs on to its answer. A request still running after DrainTimeout is
// cancelled (its context ends, and a handler that heeds it answers with an error), and the log
// says so. HTTP returns once Shutdown has, as Shutdown's documentation asks: Serve itself
// returns ErrServerClosed the moment Shutdown begins, while requests are still running.
//
// A subscriptions/listen stream is not a request under way: it stays open until its client
// leaves. So it ends as soon as the shutdown begins, with its final answer.
//
// HTTP sets srv.BaseContext and wraps srv.Handler. Requests get a context of their own rather
// than ctx: the signal that ends ctx must not cancel the requests it lets finish.
func HTTP(ctx context.Context, srv *http.Server, ln net.Listener, logger *slog.Logger) error {
	return serveHTTP(ctx, srv, ln, logger, DrainTimeout)
}

func serveHTTP(ctx context.Context, srv *http.Server, ln net.Listener, logger *slog.Logger, limit time.Duration) error {
	requests, cancelRequests := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelRequests()
	streams, endStreams := context.WithCancel(requests)
	defer endStreams()
	srv.BaseContext = func(net.Listener) context.Context { return requests }
	srv.Handler = endingStreams(srv.Handler, streams)
	srv.RegisterOnShutdown(endStreams)

	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err // the listener failed: Serve returns before a Shutdown only then
	case <-ctx.Done():
	}

	logger.Info("stopping: no new requests; finishing those under way", "limit", limit)
	drain, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	if err := srv.Shutdown(drain); err != nil {
		logger.Warn("requests were still running when the limit passed; cancelling them", "limit", limit)
		cancelRequests()
		// A second Shutdown waits for the cancelled requests to send their answers; a handler
		// that ignores its context has its connection closed under it.
		grace, cancel := context.WithTimeout(context.Background(), cancelGrace)
		defer cancel()
		if srv.Shutdown(grace) != nil {
			logger.Warn("closing the connections of requests that did not stop when cancelled")
			srv.Close()
		}
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// endingStreams gives a subscriptions/listen request a context that also ends with streams.
// A 2026-07-28 request names its method in the Mcp-Method header, which mcp-go checks
// against the body; the 2025 revisions have no such stream.
func endingStreams(next http.Handler, streams context.Context) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Method") == jsonrpc.ListenMethod {
			ctx, cancel := context.WithCancel(r.Context())
			defer cancel()
			stop := context.AfterFunc(streams, cancel)
			defer stop()
			r = r.WithContext(ctx)
		}
		next.ServeHTTP(w, r)
	})
}
