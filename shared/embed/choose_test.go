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

// -dimensions cuts only Ollama's vectors. With auto it is a valid setting that takes effect
// whenever Ollama answers, so a fallback to the offline embedder keeps the server running, but
// says that the setting does nothing on this start, and why.
func TestChooseModelAutoFallbackSaysDimensionsAreIgnored(t *testing.T) {
	client, _ := deadClient(t)
	for cut, ignored := range map[int]bool{300: true, 0: false} {
		var log bytes.Buffer
		e, err := embed.ChooseModel(t.Context(), "auto", embed.DefaultModel, client,
			slog.New(slog.NewTextHandler(&log, nil)), embed.WithShortVectors(cut))
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := e.(*embed.Offline); !ok {
			t.Fatalf("chose %T, want *embed.Offline", e)
		}
		said := strings.Contains(log.String(), "-dimensions")
		if said != ignored {
			t.Errorf("cut to %d: the log names -dimensions: %v, want %v:\n%s", cut, said, ignored, log.String())
		}
		if ignored && !strings.Contains(log.String(), "dimensions=300") {
			t.Errorf("the log does not say which -dimensions is ignored:\n%s", log.String())
		}
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

// WithShortVectors asks Ollama for the first numbers of each vector, for documents, queries
// and the measuring of a model's length alike, and the embedder then expects that length.
// The cut vector points where the whole one's first numbers point: Ollama cuts, then scales.
func TestShortVectorsAreTheFirstNumbersAtUnitLength(t *testing.T) {
	server := ollamatest.NewServer(ollamatest.Options{})
	defer server.Close()
	logger := slog.New(slog.DiscardHandler)
	whole, err := embed.ChooseModel(t.Context(), "ollama", embed.DefaultModel, server.Client(), logger)
	if err != nil {
		t.Fatal(err)
	}
	short, err := embed.ChooseModel(t.Context(), "ollama", embed.DefaultModel, server.Client(), logger, embed.WithShortVectors(256))
	if err != nil {
		t.Fatal(err)
	}
	if whole.Dimensions() != 768 || short.Dimensions() != 256 {
		t.Fatalf("Dimensions = %d and %d, want 768 and 256", whole.Dimensions(), short.Dimensions())
	}
	text := "a sourdough starter needs feeding twice a day"
	w, err := whole.EmbedDocuments(t.Context(), []string{text})
	if err != nil {
		t.Fatal(err)
	}
	s, err := short.EmbedDocuments(t.Context(), []string{text})
	if err != nil {
		t.Fatal(err)
	}
	q, err := short.EmbedQuery(t.Context(), text)
	if err != nil || len(q) != 256 {
		t.Fatalf("EmbedQuery = %d numbers, %v; want 256", len(q), err)
	}
	if len(s[0]) != 256 {
		t.Fatalf("EmbedDocuments gave %d numbers, want 256", len(s[0]))
	}
	if c := embed.Cosine(s[0], w[0][:256]); c < 0.9999 {
		t.Errorf("the cut vector's cosine with the whole one's first 256 numbers is %v, want 1", c)
	}
	if c := embed.Cosine(s[0], s[0]); c < 0.9999 || c > 1.0001 {
		t.Errorf("the cut vector's length² is %v, want 1", c)
	}
	for _, call := range server.Calls() {
		if call.Dimensions != 0 && call.Dimensions != 256 {
			t.Errorf("a request asked for %d dimensions", call.Dimensions)
		}
	}

	// A model of another length is measured cut, and a cut longer than the model changes nothing.
	other := ollamatest.NewServer(ollamatest.Options{Model: "all-minilm", Dimensions: 384})
	defer other.Close()
	for cut, want := range map[int]int{128: 128, 1024: 384} {
		e, err := embed.ChooseModel(t.Context(), "ollama", "all-minilm", other.Client(), logger, embed.WithShortVectors(cut))
		if err != nil {
			t.Fatal(err)
		}
		v, err := e.EmbedQuery(t.Context(), "sourdough")
		if err != nil || e.Dimensions() != want || len(v) != want {
			t.Errorf("cut to %d: Dimensions %d, a query of %d numbers, %v; want %d", cut, e.Dimensions(), len(v), err, want)
		}
	}
}
