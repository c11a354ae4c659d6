// Command 01-raw is an MCP server written by hand: JSON-RPC 2.0 over plain net/http, with
// nothing but the standard library, so every byte on the wire is one you can read here.
package main

import (
	"cmp"
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
)

func main() {
	// Ctrl-C sends an interrupt; kill, a terminal's stop button and make send SIGTERM. Either
	// way ctx ends, and run stops the server gracefully.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args, os.Getenv, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

// run is the whole program. main only supplies the outside world, so tests can call run with
// their own arguments, environment and log, and stop it by cancelling ctx. It reads its
// configuration, takes the port, serves, and drains.
func run(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) error {
	addr, err := readConfig(args, getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil // -h: the flags are printed, which is all that was asked
	}
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))

	// Listening before serving gives us the real address, even for "127.0.0.1:0": the log
	// needs it, and so does onlyLocal, which lets through only requests addressed to it.
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("cannot listen on %s: %w (is another server using the port? choose another address with -addr or VAULTMCP_ADDR)", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", onlyLocal(ln.Addr(), handleMCP(logger)))
	// Each wait on a client has a limit, so one that stalls cannot hold a connection forever:
	// for its headers, for its whole request, body included, and for its next request on a
	// connection kept open between requests.
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, IdleTimeout: time.Minute}
	logger.Info("listening", "url", "http://"+ln.Addr().String()+"/mcp")
	return serve(ctx, srv, ln, logger)
}

// readConfig reads the one setting, the address to listen on: the flag -addr, or else the
// environment variable VAULTMCP_ADDR, which suits a program started by another. A value that
// cannot be an address stops the program before it does anything. For -h it prints the flags
// to stderr and returns flag.ErrHelp.
func readConfig(args []string, getenv func(string) string, stderr io.Writer) (string, error) {
	flags := flag.NewFlagSet(args[0], flag.ContinueOnError)
	flags.SetOutput(stderr)
	addr := flags.String("addr", cmp.Or(getenv("VAULTMCP_ADDR"), "127.0.0.1:3000"), "address to listen on (host:port); env VAULTMCP_ADDR")
	if err := flags.Parse(args[1:]); err != nil {
		return "", err // with -h, flag.ErrHelp, once Parse has printed the flags
	}
	if _, _, err := net.SplitHostPort(*addr); err != nil {
		return "", fmt.Errorf("-addr (or VAULTMCP_ADDR) is %q: use host:port, such as 127.0.0.1:3000", *addr)
	}
	return *addr, nil
}

// drainTimeout bounds how long a stopping server waits for the requests under way.
const drainTimeout = 10 * time.Second

// serve answers requests on ln until ctx ends, then shuts down gracefully. Shutdown closes
// the listener, so no new connection is accepted, closes the idle connections, and waits for
// the requests under way to be answered. Serve returns ErrServerClosed the moment Shutdown
// begins, so serve waits for Shutdown itself, as its documentation asks; a program that
// returned from main on ErrServerClosed would cut the answers off. Connections still busy
// after drainTimeout are closed, and the log says so.
func serve(ctx context.Context, srv *http.Server, ln net.Listener, logger *slog.Logger) error {
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err // the listener failed: Serve returns before a Shutdown only then
	case <-ctx.Done():
	}

	logger.Info("stopping: no new requests; finishing those under way", "limit", drainTimeout)
	drain, cancel := context.WithTimeout(context.Background(), drainTimeout)
	defer cancel()
	if err := srv.Shutdown(drain); err != nil {
		logger.Warn("requests were still running when the limit passed; closing their connections", "limit", drainTimeout)
		srv.Close()
	}
	<-served // ErrServerClosed, since Shutdown has been called
	return nil
}
