// Command ollama-standin pretends to be Ollama, so the steps can be tried, and their error
// handling watched, without Ollama or a model. It answers Ollama's embedding API with vectors
// that hash words (embed.Lexical), and it can be made slow or made to fail:
//
//	go run ./scripts/ollama-standin                  # listens where Ollama would
//	make step 4                                      # in another terminal: finds "Ollama"
//	go run ./scripts/ollama-standin -fail slow       # then watch the step time out
//
// It listens at OLLAMA_HOST when that is set, as a step looks for Ollama there too.
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
	"time"

	"vaultmcp/shared/embed"
	"vaultmcp/shared/ollamatest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
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
	addr := flags.String("addr", hostPort(getenv("OLLAMA_HOST")), "address to listen on (host:port)")
	model := flags.String("model", embed.DefaultModel, "the model to pretend is installed")
	latency := flags.Duration("latency", 0, "delay added to each /api/embed request, like 50ms")
	inputLatency := flags.Duration("input-latency", 0, "delay added for each input of a request")
	var fail ollamatest.Failure
	flags.TextVar(&fail, "fail", ollamatest.None, "the `kind` of failure: none, down, 500, slow, wrong-dimension or unknown-model")
	failAfter := flags.Int("fail-after", 0, "how many /api/embed requests to answer before failing")
	if err := flags.Parse(args[1:]); err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))

	handler := ollamatest.NewHandler(ollamatest.Options{
		Model:        *model,
		Latency:      *latency,
		InputLatency: *inputLatency,
		Fail:         fail,
		FailAfter:    *failAfter,
		Logger:       logger,
	})
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("cannot listen on %s: %w (is Ollama itself running there? stop it, "+
			"or pick another address with -addr and set OLLAMA_HOST to it for the step)", *addr, err)
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	logger.Info("listening", "url", "http://"+ln.Addr().String(), "model", *model, "fail", fail)

	go func() {
		<-ctx.Done()
		handler.Close() // lets go of requests held by -fail slow or a latency
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(shutdownCtx)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// hostPort returns the host:port of an OLLAMA_HOST value ("http://127.0.0.1:11434" or
// "127.0.0.1:11434"), or Ollama's own default when it is empty.
func hostPort(ollamaHost string) string {
	if ollamaHost == "" {
		return "127.0.0.1:11434"
	}
	if _, rest, ok := strings.Cut(ollamaHost, "://"); ok {
		ollamaHost = rest
	}
	return strings.TrimSuffix(ollamaHost, "/")
}
