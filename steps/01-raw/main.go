// Command 01-raw is an MCP server written by hand: JSON-RPC 2.0 over plain net/http, with
// nothing but the standard library, so every byte on the wire is one you can read here.
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
)

func main() {
	// Ctrl-C sends an interrupt; kill, a terminal's stop button and make send SIGTERM. Either
	// way the server finishes the requests under way and frees the port.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args, os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

// run is the whole program. main only supplies the outside world, so tests can call run with
// their own arguments, environment and output, and stop it by cancelling ctx.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	flags := flag.NewFlagSet(args[0], flag.ContinueOnError)
	flags.SetOutput(stderr)
	addr := flags.String("addr", "127.0.0.1:3000", "address to listen on (host:port)")
	if err := flags.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil // -h: Parse has printed the flags, which is all that was asked
		}
		return err
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))

	// Listening before serving gives us the real address, even for "127.0.0.1:0": the log
	// needs it, and so does onlyLocal, which lets through only requests addressed to it.
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("cannot listen on %s: %w (is another server using the port? pick another with -addr, or with ADDR= under make step)", *addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", onlyLocal(ln.Addr(), handleMCP(logger)))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	logger.Info("listening", "url", "http://"+ln.Addr().String()+"/mcp")

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
