package ollamatest_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"vaultmcp/shared/embed"
	"vaultmcp/shared/ollamatest"
)

// post sends body to the stand-in's /api/embed as raw JSON and returns the status and body.
func post(t *testing.T, s *ollamatest.Server, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(s.URL+"/api/embed", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, strings.TrimSpace(string(b))
}

func TestEmbedSpeaksOllamasWireFormat(t *testing.T) {
	s := ollamatest.NewServer(ollamatest.Options{})
	defer s.Close()

	for _, body := range []string{
		`{"model": "nomic-embed-text", "input": "search_document: sourdough starter"}`,
		`{"model": "nomic-embed-text:latest", "input": ["search_document: sourdough starter"]}`,
	} {
		status, got := post(t, s, body)
		if status != http.StatusOK {
			t.Fatalf("%s: %d %s", body, status, got)
		}
		var resp api.EmbedResponse
		if err := json.Unmarshal([]byte(got), &resp); err != nil {
			t.Fatal(err)
		}
		if len(resp.Embeddings) != 1 || !slices.Equal(resp.Embeddings[0], embed.Lexical("sourdough starter", 768)) {
			t.Errorf("%s: the vector is not Lexical of the text without its prefix", body)
		}
	}

	for _, c := range []struct{ body, want string }{
		{``, `{"error":"missing request body"}`},
		{`{"model": "nomic-embed-text", "input": 42}`, `{"error":"invalid input type"}`},
		{`{"input": "x"}`, `{"error":"model is required"}`},
		{`{"model": "llama3", "input": "x"}`, `{"error":"model \"llama3\" not found, try pulling it first"}`},
		{`{"model": "nomic-embed-text", "input": "` + strings.Repeat("x", 3000) + `", "truncate": false}`,
			`{"error":"the input length exceeds the context length"}`},
	} {
		if _, got := post(t, s, c.body); got != c.want {
			t.Errorf("%.60s: got %s, want %s", c.body, got, c.want)
		}
	}
	// Ollama cuts an input that is too long unless told not to.
	if status, got := post(t, s, `{"model": "nomic-embed-text", "input": "`+strings.Repeat("x", 3000)+`"}`); status != http.StatusOK {
		t.Errorf("a long input without truncate: %d %s, want it cut and embedded", status, got)
	}
	// An empty list is a valid request (Ollama uses it to load a model).
	if status, got := post(t, s, `{"model": "nomic-embed-text", "input": []}`); status != http.StatusOK || !strings.Contains(got, `"embeddings":[]`) {
		t.Errorf("an empty input: %d %s", status, got)
	}
}

func TestTheOllamaClientWorksWithIt(t *testing.T) {
	s := ollamatest.NewServer(ollamatest.Options{})
	defer s.Close()
	client := s.Client()
	ctx := t.Context()

	if err := client.Heartbeat(ctx); err != nil {
		t.Errorf("Heartbeat: %v", err)
	}
	if v, err := client.Version(ctx); err != nil || v != ollamatest.Version {
		t.Errorf("Version = %q, %v; want %q", v, err, ollamatest.Version)
	}
	list, err := client.List(ctx)
	if err != nil || len(list.Models) != 1 || list.Models[0].Name != "nomic-embed-text:latest" {
		t.Errorf("List = %+v, %v; want nomic-embed-text:latest", list, err)
	}
	resp, err := client.Embed(ctx, &api.EmbedRequest{Model: "nomic-embed-text", Input: []string{"a b", "c d"}})
	if err != nil || len(resp.Embeddings) != 2 || len(resp.Embeddings[0]) != 768 {
		t.Errorf("Embed: %v", err)
	}
	_, err = client.Embed(ctx, &api.EmbedRequest{Model: "llama3", Input: "x"})
	if se, ok := errors.AsType[api.StatusError](err); !ok || se.StatusCode != http.StatusNotFound {
		t.Errorf("Embed with an unknown model: %v, want a StatusError 404", err)
	}
}

func TestFailures(t *testing.T) {
	s := ollamatest.NewServer(ollamatest.Options{})
	defer s.Close()
	client := s.Client()
	embedOne := func(ctx context.Context) (*api.EmbedResponse, error) {
		return client.Embed(ctx, &api.EmbedRequest{Model: "nomic-embed-text", Input: "bread"})
	}

	s.SetFailure(ollamatest.Down, 0)
	if _, err := client.List(t.Context()); err == nil {
		t.Error("List while down succeeded")
	}
	if _, err := embedOne(t.Context()); err == nil {
		t.Error("Embed while down succeeded")
	}

	s.SetFailure(ollamatest.ServerError, 0)
	if _, err := embedOne(t.Context()); !isStatus(err, 500) {
		t.Errorf("Embed with ServerError: %v, want HTTP 500", err)
	}

	s.SetFailure(ollamatest.UnknownModel, 0)
	if list, err := client.List(t.Context()); err != nil || len(list.Models) != 0 {
		t.Errorf("List with UnknownModel = %v, %v; want no models", list, err)
	}
	if _, err := embedOne(t.Context()); !isStatus(err, 404) {
		t.Errorf("Embed with UnknownModel: %v, want HTTP 404", err)
	}

	s.SetFailure(ollamatest.WrongDimension, 0)
	if resp, err := embedOne(t.Context()); err != nil || len(resp.Embeddings[0]) != 384 {
		t.Errorf("Embed with WrongDimension: %v, want a vector of 384", err)
	}

	s.SetFailure(ollamatest.Slow, 0)
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if _, err := embedOne(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Embed with Slow: %v, want the client to give up", err)
	}

	// Two answers, then failures; the countdown counts embed requests only.
	s.SetFailure(ollamatest.ServerError, 2)
	var got []bool
	for range 4 {
		client.List(t.Context())
		_, err := embedOne(t.Context())
		got = append(got, err == nil)
	}
	if want := []bool{true, true, false, false}; !slices.Equal(got, want) {
		t.Errorf("with FailAfter 2, requests succeeded %v, want %v", got, want)
	}

	s.SetFailure(ollamatest.None, 0)
	if _, err := embedOne(t.Context()); err != nil {
		t.Errorf("Embed once healthy again: %v", err)
	}
}

func isStatus(err error, code int) bool {
	se, ok := errors.AsType[api.StatusError](err)
	return ok && se.StatusCode == code
}

func TestLatencyHoldsRequests(t *testing.T) {
	s := ollamatest.NewServer(ollamatest.Options{InputLatency: time.Hour})
	defer s.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	_, err := s.Client().Embed(ctx, &api.EmbedRequest{Model: "nomic-embed-text", Input: "bread"})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("an input that takes an hour: %v, want the client to give up", err)
	}
	s.SetLatency(0, 0)
	if _, err := s.Client().Embed(t.Context(), &api.EmbedRequest{Model: "nomic-embed-text", Input: "bread"}); err != nil {
		t.Errorf("without latency: %v", err)
	}
}

func TestCloseReleasesHeldRequests(t *testing.T) {
	s := ollamatest.NewServer(ollamatest.Options{Fail: ollamatest.Slow})
	done := make(chan error)
	go func() {
		_, err := s.Client().Embed(context.Background(), &api.EmbedRequest{Model: "nomic-embed-text", Input: "bread"})
		done <- err
	}()
	for len(s.Calls()) == 0 {
		time.Sleep(time.Millisecond)
	}
	s.Close() // would wait forever for the held request if Close did not end it
	if err := <-done; err == nil {
		t.Error("a request held by Slow succeeded")
	}
}

func TestCountsWhatItReceives(t *testing.T) {
	s := ollamatest.NewServer(ollamatest.Options{})
	defer s.Close()
	client := s.Client()
	f := false
	client.Embed(t.Context(), &api.EmbedRequest{Model: "nomic-embed-text", Input: []string{"a", "b"}, Truncate: &f})
	client.Embed(t.Context(), &api.EmbedRequest{Model: "other", Input: "c"})

	calls := s.Calls()
	if len(calls) != 2 || calls[0].Truncate == nil || *calls[0].Truncate || calls[1].Truncate != nil || calls[1].Model != "other" {
		t.Errorf("Calls() = %+v", calls)
	}
	if got := s.Inputs(); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("Inputs() = %q, want a, b, c", got)
	}
	if s.MaxInFlight() != 1 {
		t.Errorf("MaxInFlight() = %d after requests one at a time, want 1", s.MaxInFlight())
	}
	s.Reset()
	if len(s.Calls()) != 0 || s.MaxInFlight() != 0 {
		t.Errorf("after Reset: %d calls, %d max in flight", len(s.Calls()), s.MaxInFlight())
	}
}

func TestFailureText(t *testing.T) {
	for text, want := range map[string]ollamatest.Failure{
		"": ollamatest.None, "none": ollamatest.None, "down": ollamatest.Down, "500": ollamatest.ServerError,
		"slow": ollamatest.Slow, "wrong-dimension": ollamatest.WrongDimension, "unknown-model": ollamatest.UnknownModel,
	} {
		var f ollamatest.Failure
		if err := f.UnmarshalText([]byte(text)); err != nil || f != want {
			t.Errorf("UnmarshalText(%q) = %q, %v; want %q", text, f, err, want)
		}
	}
	if text, _ := ollamatest.None.MarshalText(); string(text) != "none" {
		t.Errorf("None.MarshalText() = %q, want none", text)
	}
	var f ollamatest.Failure
	if err := f.UnmarshalText([]byte("flaky")); err == nil || !strings.Contains(err.Error(), "wrong-dimension") {
		t.Errorf("UnmarshalText(flaky) = %v, want an error listing the failures", err)
	}
}
