package embed_test

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"vaultmcp/shared/embed"
	"vaultmcp/shared/ollamatest"
)

func TestChooseAutoUsesOllamaWhenItAnswers(t *testing.T) {
	server := ollamatest.NewServer(ollamatest.Options{})
	defer server.Close()
	var log bytes.Buffer
	e, err := embed.Choose(t.Context(), "auto", server.Client(), slog.New(slog.NewTextHandler(&log, nil)))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := e.(*embed.Ollama); !ok {
		t.Fatalf("auto with Ollama up chose %T, want *embed.Ollama", e)
	}
	if strings.Contains(log.String(), "WARN") {
		t.Errorf("auto with Ollama up warned:\n%s", log.String())
	}
}

func TestChooseAutoFallsBackLoudly(t *testing.T) {
	client, address := deadClient(t)
	noModel := ollamatest.NewServer(ollamatest.Options{Fail: ollamatest.UnknownModel})
	defer noModel.Close()

	for name, c := range map[string]struct {
		server *ollamatest.Server
		fix    string
	}{
		"nothing listening": {nil, "ollama serve"},
		"model missing":     {noModel, "ollama pull nomic-embed-text"},
	} {
		t.Run(name, func(t *testing.T) {
			client := client
			if c.server != nil {
				client = c.server.Client()
			}
			var log bytes.Buffer
			e, err := embed.Choose(t.Context(), "auto", client, slog.New(slog.NewTextHandler(&log, nil)))
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := e.(*embed.Offline); !ok {
				t.Fatalf("chose %T, want *embed.Offline", e)
			}
			for _, s := range []string{"level=WARN", "OFFLINE EMBEDDER", "not its meaning", c.fix, "https://ollama.com"} {
				if !strings.Contains(log.String(), s) {
					t.Errorf("the log does not say %q:\n%s", s, log.String())
				}
			}
			if c.server == nil && !strings.Contains(log.String(), address) {
				t.Errorf("the log does not say which address was tried (%s):\n%s", address, log.String())
			}
		})
	}
}

func TestChooseOllamaFailsWithTheFix(t *testing.T) {
	client, _ := deadClient(t)
	e, err := embed.Choose(t.Context(), "ollama", client, slog.New(slog.DiscardHandler))
	if e != nil || !errors.Is(err, embed.ErrUnreachable) || !strings.Contains(err.Error(), "ollama serve") {
		t.Errorf("Choose(ollama) with nothing listening = %v, %v; want ErrUnreachable saying `ollama serve`", e, err)
	}
}

func TestChooseOffline(t *testing.T) {
	// No client at all: offline must not go near the network.
	e, err := embed.Choose(t.Context(), "offline", nil, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := e.(*embed.Offline); !ok {
		t.Errorf("chose %T, want *embed.Offline", e)
	}
}

func TestChooseUnknownMode(t *testing.T) {
	_, err := embed.Choose(t.Context(), "openai", nil, slog.New(slog.DiscardHandler))
	if err == nil || !strings.Contains(err.Error(), "auto, ollama or offline") {
		t.Errorf("Choose(openai) = %v, want an error listing the choices", err)
	}
}

func TestChooseModelMeasuresItsDimensions(t *testing.T) {
	server := ollamatest.NewServer(ollamatest.Options{Model: "all-minilm", Dimensions: 384})
	defer server.Close()
	logger := slog.New(slog.DiscardHandler)
	e, err := embed.ChooseModel(t.Context(), "ollama", "all-minilm", server.Client(), logger)
	if err != nil {
		t.Fatal(err)
	}
	if e.Model() != "all-minilm" || e.Dimensions() != 384 {
		t.Fatalf("chose %s with %d dimensions, want all-minilm with 384", e.Model(), e.Dimensions())
	}
	v, err := e.EmbedQuery(t.Context(), "sourdough")
	if err != nil || len(v) != 384 {
		t.Fatalf("EmbedQuery = %d dimensions, %v; want 384", len(v), err)
	}

	// A model Ollama does not have fails with the fix, before anything is measured.
	_, err = embed.ChooseModel(t.Context(), "ollama", "no-such-model", server.Client(), logger)
	if !errors.Is(err, embed.ErrModelMissing) || !strings.Contains(err.Error(), "ollama pull no-such-model") {
		t.Fatalf("a missing model: %v, want ErrModelMissing naming `ollama pull no-such-model`", err)
	}
}
