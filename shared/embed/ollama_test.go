package embed_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ollama/ollama/api"

	"vaultmcp/shared/embed"
	"vaultmcp/shared/ollamatest"
)

// standIn starts an Ollama stand-in for the test and returns it with an embedder that talks
// to it through the real Ollama client.
func standIn(t *testing.T, opts ollamatest.Options, embedOpts ...embed.Option) (*embed.Ollama, *ollamatest.Server) {
	t.Helper()
	server := ollamatest.NewServer(opts)
	t.Cleanup(server.Close)
	return embed.NewOllama(server.Client(), "", embedOpts...), server
}

// deadClient returns a client for an address where nothing listens.
func deadClient(t *testing.T) (*api.Client, string) {
	t.Helper()
	server := httptest.NewServer(http.NotFoundHandler())
	server.Close()
	base, err := url.Parse(server.URL)
	if err != nil {
		t.Fatal(err)
	}
	return api.NewClient(base, http.DefaultClient), server.URL
}

func texts(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("section %d is about topic%d", i, i)
	}
	return out
}

func TestOllamaSendsBatchesAndKeepsOrder(t *testing.T) {
	ollama, server := standIn(t, ollamatest.Options{})
	sections := texts(100)
	vectors, err := ollama.EmbedDocuments(t.Context(), sections)
	if err != nil {
		t.Fatal(err)
	}

	var sizes []int
	for _, c := range server.Calls() {
		sizes = append(sizes, len(c.Input))
	}
	slices.Sort(sizes) // batches run in parallel, so they may arrive in any order
	if want := []int{4, 32, 32, 32}; !slices.Equal(sizes, want) {
		t.Errorf("100 sections went in requests of %v inputs, want %v", sizes, want)
	}
	if got := server.MaxInFlight(); got > 2 {
		t.Errorf("%d requests were in flight at once, want at most 2", got)
	}
	if len(vectors) != len(sections) {
		t.Fatalf("got %d vectors for %d sections", len(vectors), len(sections))
	}
	for i, v := range vectors {
		if !slices.Equal(v, embed.Lexical(sections[i], 768)) {
			t.Fatalf("vector %d is not the one for section %d: the order was lost", i, i)
		}
	}
}

// Every request is held for an hour, so no request ever frees its place: exactly as many
// arrive as may be in flight, and when the caller cancels, no more are sent.
func TestOllamaBoundsRequestsInFlightAndStopsWhenCancelled(t *testing.T) {
	for _, parallel := range []int{1, 2, 3} {
		ollama, server := standIn(t, ollamatest.Options{Latency: time.Hour},
			embed.WithBatchSize(10), embed.WithParallel(parallel))
		ctx, cancel := context.WithCancel(t.Context())
		go func() {
			waitForCalls(t, server, parallel)
			cancel()
		}()
		_, err := ollama.EmbedDocuments(ctx, texts(100))
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		if got := len(server.Calls()); got != parallel {
			t.Errorf("WithParallel(%d): %d requests were sent, want %d", parallel, got, parallel)
		}
		if got := server.MaxInFlight(); got != parallel {
			t.Errorf("WithParallel(%d): at most %d requests were in flight, want %d", parallel, got, parallel)
		}
	}
}

// waitForCalls waits until server has received n requests, or gives up after a while.
func waitForCalls(t *testing.T, server *ollamatest.Server, n int) {
	for range 10_000 {
		if len(server.Calls()) >= n {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Errorf("the stand-in received %d requests, never %d", len(server.Calls()), n)
}

func TestOllamaSendsPrefixesAndNoTruncation(t *testing.T) {
	ollama, server := standIn(t, ollamatest.Options{})
	if _, err := ollama.EmbedDocuments(t.Context(), []string{"Bread > Crumb\n\nA tight crumb."}); err != nil {
		t.Fatal(err)
	}
	if _, err := ollama.EmbedQuery(t.Context(), "why is my bread dense"); err != nil {
		t.Fatal(err)
	}
	want := []string{"search_document: Bread > Crumb\n\nA tight crumb.", "search_query: why is my bread dense"}
	if got := server.Inputs(); !slices.Equal(got, want) {
		t.Errorf("Ollama received %q, want %q", got, want)
	}
	for _, c := range server.Calls() {
		if c.Model != embed.DefaultModel || c.Truncate == nil || *c.Truncate {
			t.Errorf("request for model %q with truncate %v, want %q and false", c.Model, c.Truncate, embed.DefaultModel)
		}
	}
}

func TestOllamaCapsInputs(t *testing.T) {
	ollama, server := standIn(t, ollamatest.Options{}) // refuses inputs over 2048 bytes
	// 100 KB of two- and three-byte characters, so a cut by bytes would land inside one.
	long := strings.Repeat("é€", 100_000/5)
	if _, err := ollama.EmbedDocuments(t.Context(), []string{long, "short"}); err != nil {
		t.Fatalf("a 100 KB section: %v", err)
	}
	if _, err := ollama.EmbedQuery(t.Context(), long); err != nil {
		t.Fatalf("a 100 KB query: %v", err)
	}
	for _, in := range server.Inputs() {
		text, ok := strings.CutPrefix(in, "search_document: ")
		if !ok {
			text, ok = strings.CutPrefix(in, "search_query: ")
		}
		switch {
		case !ok:
			t.Errorf("input %.30q… has no task prefix", in)
		case len(in) > embed.DefaultContextLength-2:
			t.Errorf("an input of %d bytes reached Ollama, want at most %d", len(in), embed.DefaultContextLength-2)
		case !utf8.ValidString(in):
			t.Errorf("an input was cut inside a UTF-8 character")
		case text != "short" && (len(in) < embed.DefaultContextLength-5 || !strings.HasPrefix(long, text)):
			t.Errorf("the long text arrived as %d bytes that are not its start", len(in))
		}
	}
}

func TestOllamaReportsInputTooLong(t *testing.T) {
	// An embedder that believes the context is twice what the stand-in allows.
	ollama, _ := standIn(t, ollamatest.Options{}, embed.WithContextLength(4096))
	_, err := ollama.EmbedDocuments(t.Context(), []string{strings.Repeat("word ", 1000)})
	if !errors.Is(err, embed.ErrInputTooLong) {
		t.Fatalf("err = %v, want ErrInputTooLong", err)
	}
	for _, fix := range []string{"the input length exceeds the context length", "OLLAMA_CONTEXT_LENGTH", "WithContextLength"} {
		if !strings.Contains(err.Error(), fix) {
			t.Errorf("error %q does not mention %q", err, fix)
		}
	}
}

// Each failure gives its own kind of error, and the text says what to do.
func TestOllamaFailures(t *testing.T) {
	for _, c := range []struct {
		failure ollamatest.Failure
		want    error
		says    []string
	}{
		{ollamatest.Down, embed.ErrUnreachable, []string{"ollama serve", "Ollama app", "OLLAMA_HOST", "http://127.0.0.1:"}},
		{ollamatest.UnknownModel, embed.ErrModelMissing, []string{"ollama pull nomic-embed-text"}},
		{ollamatest.ServerError, embed.ErrOllama, []string{"HTTP 500", "llama runner process has terminated", "log"}},
		{ollamatest.Slow, embed.ErrTimeout, []string{"no answer within 100ms", "ollama ps"}},
		{ollamatest.WrongDimension, embed.ErrBadResponse, []string{"384 dimensions, not 768", "ollama show nomic-embed-text"}},
	} {
		t.Run(string(c.failure), func(t *testing.T) {
			var opts []embed.Option
			if c.failure == ollamatest.Slow {
				opts = append(opts, embed.WithTimeout(100*time.Millisecond))
			}
			ollama, _ := standIn(t, ollamatest.Options{Fail: c.failure}, opts...)
			_, docErr := ollama.EmbedDocuments(t.Context(), texts(3))
			_, queryErr := ollama.EmbedQuery(t.Context(), "bread")
			for _, err := range []error{docErr, queryErr} {
				if !errors.Is(err, c.want) {
					t.Fatalf("err = %v, want %v", err, c.want)
				}
				for _, s := range c.says {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not say %q", err, s)
					}
				}
			}
		})
	}
}

func TestOllamaNotRunning(t *testing.T) {
	client, address := deadClient(t)
	ollama := embed.NewOllama(client, "")
	for name, err := range map[string]error{
		"Check":          ollama.Check(t.Context()),
		"EmbedDocuments": second(ollama.EmbedDocuments(t.Context(), texts(3))),
		"EmbedQuery":     second(ollama.EmbedQuery(t.Context(), "bread")),
	} {
		if !errors.Is(err, embed.ErrUnreachable) {
			t.Errorf("%s: err = %v, want ErrUnreachable", name, err)
			continue
		}
		for _, s := range []string{address, "ollama serve", "OLLAMA_HOST"} {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%s: error %q does not say %q", name, err, s)
			}
		}
	}
}

func second[T any](_ T, err error) error { return err }

func TestOllamaRejectsMalformedAnswers(t *testing.T) {
	for _, c := range []struct {
		name, body string
		says       string
	}{
		{"not JSON", "<html>hello</html>", "not the JSON Ollama sends"},
		{"wrong shape", `{"embeddings": "none"}`, "does not have the shape"},
		{"too few vectors", `{"embeddings": [[1, 0]]}`, "1 vectors for 3 texts"},
	} {
		t.Run(c.name, func(t *testing.T) {
			server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				fmt.Fprint(w, c.body)
			}))
			defer server.Close()
			base, _ := url.Parse(server.URL)
			ollama := embed.NewOllama(api.NewClient(base, server.Client()), "", embed.WithDimensions(2))
			_, err := ollama.EmbedDocuments(t.Context(), texts(3))
			if !errors.Is(err, embed.ErrBadResponse) || !strings.Contains(err.Error(), c.says) {
				t.Errorf("err = %v, want ErrBadResponse saying %q", err, c.says)
			}
		})
	}
}

// When Ollama fails part way, the first error comes back and no new batch is sent.
func TestOllamaStopsAtTheFirstFailure(t *testing.T) {
	ollama, server := standIn(t, ollamatest.Options{Fail: ollamatest.ServerError, FailAfter: 2},
		embed.WithBatchSize(10), embed.WithParallel(1))
	vectors, err := ollama.EmbedDocuments(t.Context(), texts(100))
	if !errors.Is(err, embed.ErrOllama) || vectors != nil {
		t.Fatalf("EmbedDocuments = %d vectors, %v; want none and ErrOllama", len(vectors), err)
	}
	if got := len(server.Calls()); got != 3 {
		t.Errorf("%d requests were sent, want 3: two answered, one failed, then stop", got)
	}
}

func TestOllamaCheck(t *testing.T) {
	for _, model := range []string{"nomic-embed-text", "nomic-embed-text:latest", "NOMIC-EMBED-TEXT"} {
		server := ollamatest.NewServer(ollamatest.Options{})
		if err := embed.NewOllama(server.Client(), model).Check(t.Context()); err != nil {
			t.Errorf("Check for %q with nomic-embed-text:latest installed: %v", model, err)
		}
		server.Close()
	}

	ollama, server := standIn(t, ollamatest.Options{Model: "all-minilm"})
	if err := ollama.Check(t.Context()); !errors.Is(err, embed.ErrModelMissing) ||
		!strings.Contains(err.Error(), "ollama pull nomic-embed-text") {
		t.Errorf("Check without the model: %v, want ErrModelMissing naming `ollama pull nomic-embed-text`", err)
	}
	server.SetFailure(ollamatest.Down, 0)
	if err := ollama.Check(t.Context()); !errors.Is(err, embed.ErrUnreachable) {
		t.Errorf("Check with Ollama down: %v, want ErrUnreachable", err)
	}
	if len(server.Calls()) != 0 {
		t.Errorf("Check sent %d embed requests, want none", len(server.Calls()))
	}
}

// BenchmarkOllama compares one request per section, as the original tutorial did, with
// batches, through the stand-in with a millisecond of overhead per request.
func BenchmarkOllama(b *testing.B) {
	for _, c := range []struct {
		name            string
		batch, parallel int
	}{
		{"one-per-section", 1, 1},
		{"batch=32,parallel=1", 32, 1},
		{"batch=32,parallel=2", 32, 2},
	} {
		b.Run(c.name, func(b *testing.B) {
			server := ollamatest.NewServer(ollamatest.Options{Latency: time.Millisecond})
			defer server.Close()
			ollama := embed.NewOllama(server.Client(), "", embed.WithBatchSize(c.batch), embed.WithParallel(c.parallel))
			sections := texts(256)
			for b.Loop() {
				if _, err := ollama.EmbedDocuments(b.Context(), sections); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(sections)), "ns/section")
		})
	}
}

func TestOllamaSendsNothingForNoTexts(t *testing.T) {
	ollama, server := standIn(t, ollamatest.Options{})
	vectors, err := ollama.EmbedDocuments(t.Context(), nil)
	if err != nil || len(vectors) != 0 || len(server.Calls()) != 0 {
		t.Errorf("EmbedDocuments(nil) = %d vectors, %v, after %d requests; want none, nil, none", len(vectors), err, len(server.Calls()))
	}
}

// TestOllamaBoundIsSharedByConcurrentCalls checks that WithParallel bounds the requests of
// every EmbedDocuments call together: an indexer may embed two batches at once, and Ollama
// must still see no more than the bound.
func TestOllamaBoundIsSharedByConcurrentCalls(t *testing.T) {
	ollama, server := standIn(t, ollamatest.Options{Latency: 5 * time.Millisecond},
		embed.WithBatchSize(4), embed.WithParallel(2))
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if _, err := ollama.EmbedDocuments(t.Context(), texts(40)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if got := server.MaxInFlight(); got != 2 {
		t.Errorf("four calls at once had %d requests in flight, want the bound of 2", got)
	}

	// A call cancelled while it waits for a slot leaves every slot free for the next.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := ollama.EmbedDocuments(ctx, texts(40)); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled call: %v", err)
	}
	if _, err := ollama.EmbedDocuments(t.Context(), texts(40)); err != nil {
		t.Errorf("the call after a cancelled one: %v", err)
	}
}
