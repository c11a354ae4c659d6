package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"vaultmcp/shared/embed"
)

// start runs the command with args on a free port and returns the URL it logs.
func start(t *testing.T, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	stderr, logs := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"ollama-standin", "-addr", "127.0.0.1:0"}, args...),
			func(string) string { return "" }, io.Discard, logs)
		logs.Close()
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	})

	lines := bufio.NewScanner(stderr)
	for lines.Scan() {
		if _, after, ok := strings.Cut(lines.Text(), "msg=listening url="); ok {
			go io.Copy(io.Discard, stderr) // keep reading, so logging never blocks
			return strings.Fields(after)[0]
		}
	}
	t.Fatal("the command ended without logging where it listens")
	return ""
}

func client(t *testing.T, rawURL string) *api.Client {
	base, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	return api.NewClient(base, http.DefaultClient)
}

func TestServesOllamasAPI(t *testing.T) {
	ollama := embed.NewOllama(client(t, start(t)), "")
	if err := ollama.Check(t.Context()); err != nil {
		t.Fatal(err)
	}
	vectors, err := ollama.EmbedDocuments(t.Context(), []string{"sourdough", "tomatoes"})
	if err != nil || len(vectors) != 2 {
		t.Fatalf("EmbedDocuments = %d vectors, %v", len(vectors), err)
	}
}

func TestFailFlag(t *testing.T) {
	ollama := embed.NewOllama(client(t, start(t, "-fail", "unknown-model")), "")
	if err := ollama.Check(t.Context()); err == nil || !strings.Contains(err.Error(), "ollama pull nomic-embed-text") {
		t.Errorf("Check against -fail unknown-model: %v", err)
	}

	err := run(t.Context(), []string{"ollama-standin", "-fail", "flaky"}, func(string) string { return "" }, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "wrong-dimension") {
		t.Errorf("-fail flaky: %v, want an error listing the failures", err)
	}
}

func TestListensAtOllamaHost(t *testing.T) {
	for host, want := range map[string]string{
		"":                        "127.0.0.1:11434",
		"http://127.0.0.1:11500":  "127.0.0.1:11500",
		"127.0.0.1:11500":         "127.0.0.1:11500",
		"http://localhost:11500/": "localhost:11500",
	} {
		if got := hostPort(host); got != want {
			t.Errorf("hostPort(%q) = %q, want %q", host, got, want)
		}
	}
}
