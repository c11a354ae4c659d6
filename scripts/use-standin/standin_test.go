package usestandin

import (
	"errors"
	"io"
	"math"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"vaultmcp/scripts/transcript"
	"vaultmcp/shared/ollamatest"
)

// start starts the stand-in with its vector cache in cacheDir, and a real Ollama client for
// it. Without node or the model's packages it skips, naming the command that installs them;
// in CI, which installs them, it fails instead.
func start(t *testing.T, cacheDir string) (*Standin, *api.Client) {
	t.Helper()
	root, err := transcript.Root()
	if err != nil {
		t.Fatal(err)
	}
	if err := Installed(root); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%v (CI must run this check)", err)
		}
		t.Skip(err)
	}
	s, err := Start(t.Context(), root, Options{CacheDir: cacheDir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	base, err := url.Parse(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	return s, api.NewClient(base, http.DefaultClient)
}

const (
	rise      = "how do I make my bread rise higher"
	taller    = "tips for a taller loaf"
	unrelated = "the quarterly tax return is due at the end of April"
)

// TestStandin talks to the stand-in as step 10 does, through the real Ollama client: the
// version, the list of models, embeddings of the right length and sense, the prefixes, and
// the error for a model it does not have.
func TestStandin(t *testing.T) {
	cacheDir := t.TempDir()
	s, client := start(t, cacheDir)
	ctx := t.Context()

	v, err := client.Version(ctx)
	if err != nil || v == "" {
		t.Errorf("Version = %q, %v; want a version", v, err)
	}

	list, err := client.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Models) != 1 || list.Models[0].Name != Model+":latest" || list.Models[0].Model != Model+":latest" ||
		len(list.Models[0].Digest) != 64 || list.Models[0].Size == 0 || list.Models[0].ModifiedAt.IsZero() {
		t.Errorf("List = %+v, want the one model %s:latest with its digest, size and time", list.Models, Model)
	}

	resp, err := client.Embed(ctx, &api.EmbedRequest{Model: Model, Input: []string{rise, taller, unrelated}, Truncate: new(false)})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Model != Model || resp.TotalDuration <= 0 || resp.PromptEvalCount < 15 {
		t.Errorf("the response says model %q, took %v, read %d tokens; want %q, a duration and the tokens of three sentences",
			resp.Model, resp.TotalDuration, resp.PromptEvalCount, Model)
	}
	if len(resp.Embeddings) != 3 {
		t.Fatalf("%d vectors for 3 texts", len(resp.Embeddings))
	}
	for i, e := range resp.Embeddings {
		if len(e) != Dimensions || math.Abs(norm(e)-1) > 1e-5 {
			t.Errorf("vector %d has %d dimensions and length %.6f; want %d and 1", i, len(e), norm(e), Dimensions)
		}
	}
	paraphrase := cosine(resp.Embeddings[0], resp.Embeddings[1])
	if other := max(cosine(resp.Embeddings[0], resp.Embeddings[2]), cosine(resp.Embeddings[1], resp.Embeddings[2])); paraphrase <= other {
		t.Errorf("the paraphrases score %.3f together, and up to %.3f with an unrelated sentence; want the paraphrases higher", paraphrase, other)
	}

	// nomic's task prefixes are not words to this model: they are stripped. A string alone is
	// an input too.
	for _, prefix := range []string{"search_query: ", "search_document: "} {
		got, err := client.Embed(ctx, &api.EmbedRequest{Model: Model, Input: prefix + rise})
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Embeddings) != 1 || !near(got.Embeddings[0], resp.Embeddings[0]) {
			t.Errorf("%q: the vector differs from that of the text without the prefix", prefix)
		}
	}

	// Ollama cuts a vector to the dimensions asked for and makes it unit length again.
	cut, err := client.Embed(ctx, &api.EmbedRequest{Model: Model, Input: []string{rise}, Dimensions: 64})
	if err != nil {
		t.Fatal(err)
	}
	if len(cut.Embeddings) != 1 || len(cut.Embeddings[0]) != 64 || math.Abs(norm(cut.Embeddings[0])-1) > 1e-5 {
		t.Errorf("dimensions 64: got %d vectors, the first of %d dimensions", len(cut.Embeddings), len(cut.Embeddings[0]))
	}

	// An empty text adds no row to the model's sparse input, which would shift the rows after
	// it: each text must still get its own vector.
	empty, err := client.Embed(ctx, &api.EmbedRequest{Model: Model, Input: []string{rise, "", taller}})
	if err != nil {
		t.Fatal(err)
	}
	if len(empty.Embeddings) != 3 || !near(empty.Embeddings[0], resp.Embeddings[0]) || !near(empty.Embeddings[2], resp.Embeddings[1]) {
		t.Errorf("with an empty text between two others, the others' vectors moved or went missing")
	}

	_, err = client.Embed(ctx, &api.EmbedRequest{Model: "nomic-embed-text", Input: []string{rise}})
	var status api.StatusError
	if !errors.As(err, &status) || status.StatusCode != http.StatusNotFound ||
		status.ErrorMessage != `model "nomic-embed-text" not found, try pulling it first` {
		t.Errorf("an unknown model: %#v, want Ollama's 404 with its words", err)
	}

	// Stopped and started again on the same cache, it answers from the cache alone.
	s.Stop()
	if embedded, cached, ok := s.Counts(); !ok || embedded != 4 {
		t.Errorf("the first run embedded %d texts and took %d from the cache (logged: %v); want the 4 distinct texts", embedded, cached, ok)
	}
	again, client := start(t, cacheDir)
	warm, err := client.Embed(ctx, &api.EmbedRequest{Model: Model, Input: []string{rise, taller, unrelated}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range warm.Embeddings {
		if !slices.Equal(warm.Embeddings[i], resp.Embeddings[i]) {
			t.Errorf("vector %d from the cache differs from the one the model gave", i)
		}
	}
	again.Stop()
	if embedded, cached, _ := again.Counts(); embedded != 0 || cached != 3 {
		t.Errorf("a run over the same texts embedded %d and took %d from the cache; want 0 and 3\n%s", embedded, cached, again.Logs())
	}
}

// TestErrorsAsOllama sends the same bad requests to this stand-in and to the Go one
// (shared/ollamatest), which follows Ollama's server code: both must answer with the same
// status and the same body.
func TestErrorsAsOllama(t *testing.T) {
	s, _ := start(t, "")
	reference := ollamatest.NewServer(ollamatest.Options{Model: Model, Dimensions: Dimensions})
	defer reference.Close()
	for _, body := range []string{
		``,
		`{"model": "use-lite", "input": 42}`,
		`{"model": "use-lite", "input": ["a", 1]}`,
		`{"input": "x"}`,
		`{"model": "llama3", "input": "x"}`,
	} {
		wantStatus, want := post(t, reference.URL+"/api/embed", body)
		gotStatus, got := post(t, s.URL+"/api/embed", body)
		if gotStatus != wantStatus || got != want {
			t.Errorf("%s: got %d %s, want %d %s", body, gotStatus, got, wantStatus, want)
		}
	}
	// No input is a valid request, answered as Ollama's EmbedHandler answers it: no vectors and
	// no durations.
	for _, body := range []string{`{"model": "use-lite", "input": []}`, `{"model": "use-lite", "input": ""}`} {
		if status, got := post(t, s.URL+"/api/embed", body); status != http.StatusOK || got != `{"model":"use-lite","embeddings":[]}` {
			t.Errorf("%s: got %d %s, want 200 and no vectors", body, status, got)
		}
	}
	for _, path := range []string{"/", "/nope"} {
		wantStatus, want := get(t, reference.URL+path)
		gotStatus, got := get(t, s.URL+path)
		if gotStatus != wantStatus || got != want {
			t.Errorf("GET %s: got %d %q, want %d %q", path, gotStatus, got, wantStatus, want)
		}
	}
}

func post(t *testing.T, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return read(t, resp)
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	return read(t, resp)
}

func read(t *testing.T, resp *http.Response) (int, string) {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, strings.TrimSpace(string(b))
}

func norm(v []float32) float64 { return math.Sqrt(dot(v, v)) }

func dot(a, b []float32) float64 {
	var sum float64
	for i := range a {
		sum += float64(a[i]) * float64(b[i])
	}
	return sum
}

func cosine(a, b []float32) float64 { return dot(a, b) / (norm(a) * norm(b)) }

func near(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(float64(a[i]-b[i])) > 1e-6 {
			return false
		}
	}
	return true
}
