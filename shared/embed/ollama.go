package embed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/ollama/ollama/api"
)

const (
	// DefaultModel is the embedding model used unless another is named: small (137M
	// parameters, 274 MB), fast on a laptop's CPU, and good at retrieval.
	DefaultModel = "nomic-embed-text"
	// DefaultDimensions is the length of nomic-embed-text's vectors.
	DefaultDimensions = 768
	// DefaultContextLength is how many tokens nomic-embed-text reads, as Ollama ships it.
	DefaultContextLength = 2048
)

// nomic-embed-text is trained to embed a passage and a question about it differently, and
// is told which one it gets by a prefix naming the task.
const (
	documentPrefix = "search_document: "
	queryPrefix    = "search_query: "
)

// What can go wrong when asking Ollama. Match them with errors.Is; the error's text says what
// failed and what to do about it, in words meant for a person or a model.
var (
	ErrUnreachable  = errors.New("Ollama is not reachable")
	ErrModelMissing = errors.New("embedding model not installed")
	ErrTimeout      = errors.New("Ollama took too long")
	ErrInputTooLong = errors.New("input longer than the model's context")
	ErrBadResponse  = errors.New("unexpected answer from Ollama")
	ErrOllama       = errors.New("Ollama failed")
)

// howToStart is the fix for ErrUnreachable.
const howToStart = "start it with `ollama serve` or by opening the Ollama app, " +
	"or set OLLAMA_HOST to the address it listens on"

// checkTimeout bounds Check. Ollama lists its models in milliseconds, so no answer within
// this time means it is not there; waiting longer would only slow every start-up without it.
const checkTimeout = 3 * time.Second

// Ollama is an Embedder that has an Ollama server run an embedding model, through
// POST /api/embed. It is safe for concurrent use.
type Ollama struct {
	client        *api.Client
	model         string
	dimensions    int
	shortenTo     int // 0: every number the model gives; see WithShortVectors
	batchSize     int
	parallel      int
	contextLength int
	timeout       time.Duration

	// slots holds one token per document request in flight, across every EmbedDocuments
	// call: two calls at once share the bound instead of doubling it.
	slots chan struct{}
}

// An Option changes one of NewOllama's defaults. Values of zero or less keep the default.
type Option func(*Ollama)

// WithDimensions sets the length of the model's vectors (default 768, nomic-embed-text's).
// Give it with any other model: a vector of another length is refused as ErrBadResponse.
func WithDimensions(n int) Option {
	return func(o *Ollama) { o.dimensions = positiveOr(n, o.dimensions) }
}

// WithShortVectors asks Ollama for vectors of only the first n numbers the model gives, made
// unit length again (the dimensions field of /api/embed; a model whose vectors are no longer
// than n gives them whole). A model trained for it by Matryoshka representation learning, as
// nomic-embed-text v1.5 is, keeps most of its quality at 512 or 256 numbers; cutting any
// other model's vectors loses more. Shorter vectors make a smaller index and a faster search.
func WithShortVectors(n int) Option {
	return func(o *Ollama) { o.shortenTo = positiveOr(n, o.shortenTo) }
}

// WithBatchSize sets how many texts one request carries (default 32). Every request costs
// a round trip and a turn in Ollama's queue, so sending one text at a time is several times
// slower; very large batches gain little more and make each failure cost more.
func WithBatchSize(n int) Option {
	return func(o *Ollama) { o.batchSize = positiveOr(n, o.batchSize) }
}

// WithParallel sets how many requests may be in flight at once (default 2), counted over all
// EmbedDocuments calls together. With two, the next batch is already waiting while Ollama
// works on one, so it never sits idle; more would only queue inside Ollama. Queries do not
// count: a search should not wait behind an indexing job's batches.
func WithParallel(n int) Option {
	return func(o *Ollama) { o.parallel = positiveOr(n, o.parallel) }
}

// WithContextLength sets how many tokens the model reads (default 2048), which sets the cap
// on each input: see NewOllama.
func WithContextLength(tokens int) Option {
	return func(o *Ollama) { o.contextLength = positiveOr(tokens, o.contextLength) }
}

// WithTimeout bounds each request (default 2 minutes). The first request after Ollama
// starts also loads the model, which takes seconds; a request that takes minutes means
// Ollama is stuck or overloaded.
func WithTimeout(d time.Duration) Option {
	return func(o *Ollama) { o.timeout = positiveOr(d, o.timeout) }
}

func positiveOr[T int | time.Duration](value, fallback T) T {
	if value > 0 {
		return value
	}
	return fallback
}

// NewOllama returns an embedder that asks Ollama, through client, to run model (DefaultModel
// if ""). api.ClientFromEnvironment gives a client for the address in OLLAMA_HOST.
//
// Each text is sent with the prefix nomic-embed-text expects ("search_document: " or
// "search_query: ") and capped so that it fits the model's context: at most context length
// − 2 bytes, prefix included, cut between UTF-8 characters. Bytes can stand in for tokens
// because a token never covers less than one byte of text: punctuation gets a token per
// character ("|---|" is five tokens), and letters never take more tokens than bytes. So the
// cap holds for any text, tables and code included; the 2 are the tokens the model adds at
// the start and the end. Prose averages four or more bytes a token, so for prose the cap
// leaves much of the context unused: the price of never overflowing it. The chunks of package
// markdown (at most 2000 bytes) fit whole.
//
// Ollama is told not to truncate: if an input still does not fit (a model configured with
// a smaller context), the request fails with ErrInputTooLong instead of the end of the text
// being dropped without a word.
func NewOllama(client *api.Client, model string, opts ...Option) *Ollama {
	o := &Ollama{
		client:        client,
		model:         model,
		dimensions:    DefaultDimensions,
		batchSize:     32,
		parallel:      2,
		contextLength: DefaultContextLength,
		timeout:       2 * time.Minute,
	}
	if o.model == "" {
		o.model = DefaultModel
	}
	for _, opt := range opts {
		opt(o)
	}
	o.slots = make(chan struct{}, o.parallel)
	return o
}

// Model returns the name of the model, as given to NewOllama.
func (o *Ollama) Model() string { return o.model }

// Dimensions returns the length of the vectors it gives: the model's, or fewer numbers if
// WithShortVectors asks for them.
func (o *Ollama) Dimensions() int {
	if o.shortenTo > 0 {
		return min(o.dimensions, o.shortenTo)
	}
	return o.dimensions
}

// Check makes sure that Ollama answers and has the model, with one quick request
// (GET /api/tags), so that a problem shows at start-up rather than at the first search.
func (o *Ollama) Check(ctx context.Context) error {
	ctx, cancel := context.WithTimeoutCause(ctx, checkTimeout,
		fmt.Errorf("%w: no answer within %v; %s", ErrUnreachable, checkTimeout, howToStart))
	defer cancel()
	list, err := o.client.List(ctx)
	if err != nil {
		return o.explain(ctx, err)
	}
	for _, m := range list.Models {
		if sameModel(m.Name, o.model) {
			return nil
		}
	}
	return o.modelMissing()
}

// MeasureDimensions asks the model for one vector and adopts its length, for a model whose
// vectors are not DefaultDimensions long. Call it before the embedder is used.
func (o *Ollama) MeasureDimensions(ctx context.Context) error {
	ctx, cancel := context.WithTimeoutCause(ctx, o.timeout, fmt.Errorf(
		"%w: no answer within %v to a one-word request; is the model loading? try again", ErrTimeout, o.timeout))
	defer cancel()
	resp, err := o.client.Embed(ctx, &api.EmbedRequest{Model: o.model, Input: queryPrefix + "dimensions", Dimensions: o.shortenTo})
	if err != nil {
		return o.explain(ctx, err)
	}
	if len(resp.Embeddings) != 1 || len(resp.Embeddings[0]) == 0 {
		return fmt.Errorf("%w: model %q gave no vector for a one-word text; is it an embedding model?", ErrBadResponse, o.model)
	}
	o.dimensions = len(resp.Embeddings[0])
	return nil
}

// EmbedQuery returns the vector of a search query.
func (o *Ollama) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	vectors, err := o.embed(ctx, queryPrefix, []string{text})
	if err != nil {
		return nil, err
	}
	return vectors[0], nil
}

// EmbedDocuments returns one vector per text, in order. It sends the texts in batches, a
// few requests at a time (see WithBatchSize and WithParallel). If any batch fails, it
// stops the rest and returns the first error and no vectors; an indexer that wants to keep
// what succeeded passes the sections of a few notes per call.
func (o *Ollama) EmbedDocuments(ctx context.Context, texts []string) ([][]float32, error) {
	vectors := make([][]float32, len(texts))
	// The first failure cancels the requests still in flight, and becomes ctx's cause.
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var wg sync.WaitGroup
	for start := 0; start < len(texts); start += o.batchSize {
		if !o.acquire(ctx) {
			break
		}
		end := min(start+o.batchSize, len(texts))
		wg.Go(func() {
			defer func() { <-o.slots }()
			batch, err := o.embed(ctx, documentPrefix, texts[start:end])
			if err != nil {
				cancel(err)
				return
			}
			copy(vectors[start:end], batch)
		})
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return nil, err
	}
	return vectors, nil
}

// acquire takes a request slot, waiting while all are taken, or returns false, holding none,
// when ctx ends first.
func (o *Ollama) acquire(ctx context.Context) bool {
	select {
	case o.slots <- struct{}{}:
		if ctx.Err() != nil { // both were ready, and select chose the slot
			<-o.slots
			return false
		}
		return true
	case <-ctx.Done():
		return false
	}
}

// embed sends one request: texts, each with prefix and capped, and checks the answer.
func (o *Ollama) embed(ctx context.Context, prefix string, texts []string) ([][]float32, error) {
	input := make([]string, len(texts))
	for i, text := range texts {
		input[i] = prefix + truncate(text, o.contextLength-2-len(prefix))
	}
	ctx, cancel := context.WithTimeoutCause(ctx, o.timeout, fmt.Errorf(
		"%w: no answer within %v; it may be busy loading the model or with other work "+
			"(`ollama ps` shows what it is running), try again", ErrTimeout, o.timeout))
	defer cancel()
	resp, err := o.client.Embed(ctx, &api.EmbedRequest{
		Model: o.model,
		Input: input,
		// Left unset, Ollama cuts an input that does not fit and says nothing.
		Truncate:   new(false),
		Dimensions: o.shortenTo, // 0 unless WithShortVectors asks for fewer: every number
	})
	if err != nil {
		return nil, o.explain(ctx, err)
	}
	if len(resp.Embeddings) != len(input) {
		return nil, fmt.Errorf("%w: %d vectors for %d texts", ErrBadResponse, len(resp.Embeddings), len(input))
	}
	for _, v := range resp.Embeddings {
		if len(v) != o.Dimensions() {
			return nil, fmt.Errorf("%w: model %q gave vectors of %d dimensions, not %d; "+
				"`ollama show %s` shows its embedding length", ErrBadResponse, o.model, len(v), o.Dimensions(), o.model)
		}
	}
	return resp.Embeddings, nil
}

// explain turns an error from the Ollama client into one that says what to do about it.
func (o *Ollama) explain(ctx context.Context, err error) error {
	// When ctx is done, that is why the request failed, whatever the client reports: the
	// caller cancelled (and gets its own cause back), or the time limit passed.
	if cause := context.Cause(ctx); cause != nil {
		return cause
	}
	if e, ok := errors.AsType[api.StatusError](err); ok {
		switch {
		case e.StatusCode == http.StatusNotFound && strings.Contains(e.ErrorMessage, "model"):
			return o.modelMissing()
		case e.StatusCode == http.StatusBadRequest && strings.Contains(e.ErrorMessage, "context length"):
			return fmt.Errorf("%w: Ollama said %q although every input was cut to fit %d tokens; "+
				"if the model's context is set smaller (OLLAMA_CONTEXT_LENGTH, or num_ctx in its Modelfile), "+
				"raise it, or pass embed.WithContextLength", ErrInputTooLong, e.ErrorMessage, o.contextLength)
		}
		return fmt.Errorf("%w with HTTP %d: %w; the Ollama server's log says more", ErrOllama, e.StatusCode, err)
	}
	if e, ok := errors.AsType[*url.Error](err); ok {
		// The request never got an answer: nothing listens, the connection broke, or the
		// address does not resolve. The URL in the error is the one place that says which
		// address was tried; api.Client keeps it to itself.
		where := e.URL
		if u, err := url.Parse(e.URL); err == nil {
			where = u.Scheme + "://" + u.Host
		}
		return fmt.Errorf("%w at %s (%w): %s", ErrUnreachable, where, e.Err, howToStart)
	}
	if _, ok := errors.AsType[*json.SyntaxError](err); ok {
		return fmt.Errorf("%w: the body is not the JSON Ollama sends (%w); is OLLAMA_HOST the address of Ollama?", ErrBadResponse, err)
	}
	if _, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		return fmt.Errorf("%w: the JSON does not have the shape Ollama sends (%w); is OLLAMA_HOST the address of Ollama?", ErrBadResponse, err)
	}
	return fmt.Errorf("asking Ollama: %w", err)
}

func (o *Ollama) modelMissing() error {
	return fmt.Errorf("%w: Ollama has no model %q; download it with `ollama pull %s`", ErrModelMissing, o.model, o.model)
}

// sameModel reports whether two model names are the same model. A name without a tag means
// the tag "latest": Ollama lists "nomic-embed-text" as "nomic-embed-text:latest".
func sameModel(a, b string) bool {
	withTag := func(name string) string {
		if !strings.Contains(path.Base(name), ":") { // a ':' before the last '/' is a port
			return name + ":latest"
		}
		return name
	}
	return strings.EqualFold(withTag(a), withTag(b))
}

// truncate returns s cut to at most n bytes, between two UTF-8 characters.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	n = max(n, 0)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
