// Package ollamatest provides a stand-in for Ollama, as net/http/httptest provides one for a
// web server: a real HTTP server that speaks Ollama's embedding API, with Ollama's own request
// and response types and error bodies, so code under test goes through the real api.Client.
//
// It serves POST /api/embed, GET /api/tags, GET /api/version and GET / (the heartbeat). Its
// vectors come from embed.Lexical, not from a model: the same on every run, and close for
// texts that share words, so a search over a vault finds sensible notes in tests. Knobs add
// latency and failures, and counters record what was asked.
package ollamatest

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/ollama/ollama/api"

	"vaultmcp/shared/embed"
)

// Version is what GET /api/version answers: the version of the API the stand-in follows.
const Version = "0.17.4-ollamatest"

// A Failure is a way for the stand-in to fail. Its text is the value of a -fail flag.
type Failure string

const (
	None Failure = "" // answer normally
	// Down drops every connection without an answer, as when Ollama crashes mid-request.
	Down Failure = "down"
	// ServerError answers /api/embed with 500, as Ollama does when its model runner dies.
	ServerError Failure = "500"
	// Slow never answers /api/embed: the client has to give up.
	Slow Failure = "slow"
	// WrongDimension answers /api/embed with vectors of half the dimensions.
	WrongDimension Failure = "wrong-dimension"
	// UnknownModel has no model installed: /api/tags lists none and /api/embed answers 404.
	UnknownModel Failure = "unknown-model"
)

var failures = []Failure{None, Down, ServerError, Slow, WrongDimension, UnknownModel}

// MarshalText and UnmarshalText let a Failure be a flag (flag.TextVar). None is "none".
func (f Failure) MarshalText() ([]byte, error) {
	if f == None {
		return []byte("none"), nil
	}
	return []byte(f), nil
}

// UnmarshalText accepts the text of a Failure, and "none" for None.
func (f *Failure) UnmarshalText(text []byte) error {
	s := Failure(text)
	if s == "none" {
		s = None
	}
	for _, known := range failures {
		if s == known {
			*f = s
			return nil
		}
	}
	return fmt.Errorf("unknown failure %q: use none, down, 500, slow, wrong-dimension or unknown-model", text)
}

// Options are the stand-in's knobs. The zero value is a healthy Ollama with
// nomic-embed-text installed, answering at once.
type Options struct {
	Model      string // the one model installed (default embed.DefaultModel)
	Dimensions int    // the length of its vectors (default embed.DefaultDimensions)
	// ContextLength is the most bytes one input may have (default
	// embed.DefaultContextLength). Real Ollama counts tokens, and a token is at least one
	// byte, so the stand-in is the stricter of the two. A longer input is refused, as Ollama
	// refuses it, when the request says "truncate": false, and cut otherwise.
	ContextLength int

	Latency      time.Duration // added to each /api/embed request
	InputLatency time.Duration // added for each input of an /api/embed request

	Fail      Failure // how to fail (default None)
	FailAfter int     // how many /api/embed requests are answered before Fail begins

	Logger *slog.Logger // if set, each /api/embed request is logged
}

// A Call is one POST /api/embed request, as the stand-in received it.
type Call struct {
	Model    string
	Input    []string
	Truncate *bool // nil when the request left it out
	// Dimensions is how many numbers the request asked each vector to be cut to; 0 for all.
	Dimensions int
	Failure    Failure // the failure it got, or None
}

// Handler is the stand-in as an http.Handler, to serve on a listener of your own. Its
// methods are safe to call while it serves.
type Handler struct {
	closed    chan struct{}
	closeOnce sync.Once

	mu                    sync.Mutex
	opts                  Options
	untilFail             int // /api/embed requests still to answer before opts.Fail
	calls                 []Call
	inFlight, maxInFlight int
}

// NewHandler returns a stand-in with the given knobs.
func NewHandler(opts Options) *Handler {
	opts.Model = cmp.Or(opts.Model, embed.DefaultModel)
	opts.Dimensions = cmp.Or(opts.Dimensions, embed.DefaultDimensions)
	opts.ContextLength = cmp.Or(opts.ContextLength, embed.DefaultContextLength)
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &Handler{closed: make(chan struct{}), opts: opts, untilFail: opts.FailAfter}
}

// SetLatency changes the delay added to each /api/embed request and to each of its inputs.
func (h *Handler) SetLatency(perCall, perInput time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.opts.Latency, h.opts.InputLatency = perCall, perInput
}

// SetFailure makes the stand-in fail as f after answering the next `after` /api/embed
// requests. SetFailure(None, 0) makes it healthy again.
func (h *Handler) SetFailure(f Failure, after int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.opts.Fail, h.untilFail = f, after
}

// Calls returns the /api/embed requests received so far, in the order they arrived.
func (h *Handler) Calls() []Call {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]Call(nil), h.calls...)
}

// Inputs returns the inputs of every /api/embed request received so far, in order.
func (h *Handler) Inputs() []string {
	var inputs []string
	for _, c := range h.Calls() {
		inputs = append(inputs, c.Input...)
	}
	return inputs
}

// MaxInFlight returns the most /api/embed requests that were in progress at one time.
func (h *Handler) MaxInFlight() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.maxInFlight
}

// Reset forgets the calls received and the most in flight; the knobs stay as they are.
func (h *Handler) Reset() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls, h.maxInFlight = nil, h.inFlight
}

// Close drops the requests the stand-in is holding (for Slow or a latency), so that a server
// can shut down without waiting for them; later requests that would be held are dropped at
// once.
func (h *Handler) Close() { h.closeOnce.Do(func() { close(h.closed) }) }

// ServeHTTP answers a request as Ollama would, or fails it as the knobs say.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	get := r.Method == http.MethodGet || r.Method == http.MethodHead
	isEmbed := r.Method == http.MethodPost && r.URL.Path == "/api/embed"
	opts, failure := h.knobs(isEmbed)
	if failure == Down {
		// Close the connection with no answer at all. net/http logs nothing for this panic.
		panic(http.ErrAbortHandler)
	}
	switch {
	case isEmbed:
		h.embed(w, r, opts, failure)
	case get && r.URL.Path == "/":
		io.WriteString(w, "Ollama is running")
	case get && r.URL.Path == "/api/version":
		writeJSON(w, http.StatusOK, map[string]string{"version": Version})
	case get && r.URL.Path == "/api/tags":
		writeJSON(w, http.StatusOK, tags(opts, failure))
	default:
		http.NotFound(w, r)
	}
}

// knobs returns the options now in force and the failure for this request. An /api/embed
// request counts towards FailAfter; other requests fail only once it has run out.
func (h *Handler) knobs(isEmbed bool) (Options, Failure) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.untilFail > 0 {
		if isEmbed {
			h.untilFail--
		}
		return h.opts, None
	}
	return h.opts, h.opts.Fail
}

func (h *Handler) embed(w http.ResponseWriter, r *http.Request, opts Options, failure Failure) {
	start := time.Now()
	// What follows checks the request in the order Ollama does, with its status codes and
	// its words, so that a client sees the same errors from both.
	var req api.EmbedRequest
	if err := json.NewDecoder(r.Body).Decode(&req); errors.Is(err, io.EOF) {
		writeError(w, http.StatusBadRequest, "missing request body")
		return
	} else if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	input, ok := inputs(req.Input)
	if !ok {
		writeError(w, http.StatusBadRequest, "invalid input type")
		return
	}
	defer h.begin(Call{Model: req.Model, Input: input, Truncate: req.Truncate, Dimensions: req.Dimensions, Failure: failure})()
	defer func() {
		opts.Logger.Info("embed", "model", req.Model, "inputs", len(input), "failure", failure, "took", time.Since(start))
	}()

	switch {
	case req.Model == "":
		writeError(w, http.StatusBadRequest, "model is required")
		return
	case failure == UnknownModel || !sameModel(req.Model, opts.Model):
		writeError(w, http.StatusNotFound, fmt.Sprintf("model %q not found, try pulling it first", req.Model))
		return
	}
	delay := opts.Latency + time.Duration(len(input))*opts.InputLatency
	if failure == Slow {
		delay = -1
	}
	if !h.wait(r.Context(), delay) {
		// The client gave up or the stand-in is closing: drop the connection, unanswered.
		panic(http.ErrAbortHandler)
	}
	if failure == ServerError {
		writeError(w, http.StatusInternalServerError, "llama runner process has terminated: exit status 2")
		return
	}

	dims := opts.Dimensions
	if failure == WrongDimension {
		dims /= 2
	}
	embeddings := make([][]float32, len(input))
	for i, text := range input {
		if len(text) > opts.ContextLength {
			if req.Truncate != nil && !*req.Truncate {
				writeError(w, http.StatusBadRequest, "the input length exceeds the context length")
				return
			}
			text = strings.ToValidUTF8(text[:opts.ContextLength], "") // drops a character cut in two
		}
		embeddings[i] = shorten(embed.Lexical(text, dims), req.Dimensions)
	}
	writeJSON(w, http.StatusOK, api.EmbedResponse{
		Model:         req.Model,
		Embeddings:    embeddings,
		TotalDuration: time.Since(start),
	})
}

// shorten cuts v to its first n numbers and makes it unit length again, as Ollama does when a
// request asks for fewer dimensions than the model gives (n > 0 and less than len(v)).
func shorten(v []float32, n int) []float32 {
	if n <= 0 || n >= len(v) {
		return v
	}
	v = v[:n]
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum > 0 {
		norm := float32(math.Sqrt(sum))
		for i := range v {
			v[i] /= norm
		}
	}
	return v
}

// begin records a call and counts it in flight until the function it returns is called.
func (h *Handler) begin(c Call) (end func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls = append(h.calls, c)
	h.inFlight++
	h.maxInFlight = max(h.maxInFlight, h.inFlight)
	return func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.inFlight--
	}
}

// wait waits for d (forever if d < 0) and reports whether it did: the client can go away
// first, or Close be called.
func (h *Handler) wait(ctx context.Context, d time.Duration) bool {
	if d == 0 {
		return true
	}
	var timeout <-chan time.Time
	if d > 0 {
		timer := time.NewTimer(d)
		defer timer.Stop()
		timeout = timer.C
	}
	select {
	case <-timeout:
		return true
	case <-ctx.Done():
	case <-h.closed:
	}
	return false
}

// inputs reads the "input" of an embed request: one string or a list of strings. Like
// Ollama, it reads an empty string as no input at all.
func inputs(v any) ([]string, bool) {
	switch v := v.(type) {
	case nil:
		return nil, true
	case string:
		if v == "" {
			return nil, true
		}
		return []string{v}, true
	case []any:
		list := make([]string, len(v))
		for i, item := range v {
			s, ok := item.(string)
			if !ok {
				return nil, false
			}
			list[i] = s
		}
		return list, true
	}
	return nil, false
}

// tags is the answer to GET /api/tags: the one model, unless it is "not installed".
func tags(opts Options, failure Failure) api.ListResponse {
	list := api.ListResponse{Models: []api.ListModelResponse{}}
	if failure == UnknownModel {
		return list
	}
	name := withTag(opts.Model)
	digest := sha256.Sum256([]byte(name)) // made up: not the digest of any real model
	list.Models = append(list.Models, api.ListModelResponse{
		Name:       name,
		Model:      name,
		ModifiedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		Digest:     hex.EncodeToString(digest[:]),
		Details:    api.ModelDetails{Format: "gguf", Family: "ollamatest"},
	})
	return list
}

// withTag adds the tag "latest" to a model name that has none, as Ollama does.
func withTag(name string) string {
	if !strings.Contains(path.Base(name), ":") { // a ':' before the last '/' is a port
		return name + ":latest"
	}
	return name
}

func sameModel(a, b string) bool { return strings.EqualFold(withTag(a), withTag(b)) }

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// writeError writes an error as Ollama does: {"error": "..."}.
func writeError(w http.ResponseWriter, status int, message string) {
	writeJSON(w, status, map[string]string{"error": message})
}

// Server is a stand-in listening on a free port of 127.0.0.1, for tests.
type Server struct {
	*Handler
	URL string // the base URL, as OLLAMA_HOST would give it: http://127.0.0.1:port

	server *httptest.Server
}

// NewServer starts a stand-in with the given knobs. Close it when done.
func NewServer(opts Options) *Server {
	h := NewHandler(opts)
	s := httptest.NewServer(h)
	return &Server{Handler: h, URL: s.URL, server: s}
}

// Client returns an Ollama client for the stand-in.
func (s *Server) Client() *api.Client {
	base, err := url.Parse(s.URL)
	if err != nil {
		panic(err) // httptest made the URL; it parses
	}
	return api.NewClient(base, s.server.Client())
}

// Close ends the requests the stand-in holds and shuts it down.
func (s *Server) Close() {
	s.Handler.Close()
	s.server.Close()
}
