package bench

import (
	"context"
	"testing"
	"time"

	"vaultmcp/shared/embed"
	"vaultmcp/shared/ollamatest"
)

// indexNotes is the size of the generated vault that BenchmarkIndexing indexes.
const indexNotes = 1_000

// BenchmarkIndexing starts the last step over a generated vault of 1,000 notes with an empty
// database, and reads from its log how long indexing everything took ("index up to date …
// took=…"): process start and the opening of the database are not counted. The embedder is
// the Ollama stand-in, and the bound is embedding the same texts (every chunk of every note)
// through the same Ollama client and stand-in, with nothing else: no reading, parsing or
// storing.
//
//   - zero-latency: the stand-in answers at once, so the figures are the server's own work
//     (and the stand-in's, which is the same in the bound).
//   - simulated-latency: each request costs perRequest and each input perInput, as a local
//     Ollama might; the time the server spends waiting, and not working, shows here.
//   - one-per-section: why the client batches. The first 500 chunks, with simulated latency,
//     sent one per request and then in the default batches.
func BenchmarkIndexing(b *testing.B) {
	notes, sample := indexNotes, 500
	if testing.Short() {
		notes, sample = 200, 100
	}
	bin := buildLastStep(b)
	vaultDir := generateVault(b, notes)
	texts := vaultChunks(b, vaultDir)
	ollama := ollamatest.NewServer(ollamatest.Options{})
	defer ollama.Close()

	index := func(b *testing.B, request, input time.Duration) {
		ollama.SetLatency(request, input)
		defer ollama.SetLatency(0, 0)
		var took, bound time.Duration
		sections := 0
		for b.Loop() {
			b.StopTimer()
			ollama.Reset() // the stand-in keeps every input it was sent
			bound += embedBound(b, ollama, texts)
			b.StartTimer()
			run := indexFresh(b, bin, vaultDir, "OLLAMA_HOST="+ollama.URL)
			took += run.took
			sections = run.sections
		}
		if sections != len(texts) {
			// The bound would embed other texts than the server does.
			b.Fatalf("the server indexed %d sections, the bound embeds %d", sections, len(texts))
		}
		n := float64(b.N)
		b.ReportMetric(took.Seconds()/n, "index-s")
		b.ReportMetric(bound.Seconds()/n, "embed-bound-s")
		b.ReportMetric(took.Seconds()/bound.Seconds(), "x-bound")
		b.ReportMetric(float64(sections), "sections")
	}
	b.Run("zero-latency", func(b *testing.B) { index(b, 0, 0) })
	b.Run("simulated-latency", func(b *testing.B) { index(b, perRequest, perInput) })

	b.Run("one-per-section", func(b *testing.B) {
		texts := texts[:min(sample, len(texts))]
		ollama.SetLatency(perRequest, perInput)
		defer ollama.SetLatency(0, 0)
		var single, batched time.Duration
		for b.Loop() {
			single += embedTime(b, ollama, texts, embed.WithBatchSize(1))
			batched += embedTime(b, ollama, texts)
		}
		perSection := func(d time.Duration) float64 {
			return float64(d) / float64(time.Millisecond) / float64(b.N*len(texts))
		}
		b.ReportMetric(perSection(single), "per-section-ms")
		b.ReportMetric(perSection(batched), "batched-per-section-ms")
		b.ReportMetric(single.Seconds()/batched.Seconds(), "x-batched")
	})
}

// embedTime embeds texts through an Ollama client made with opts and returns the time.
func embedTime(b *testing.B, ollama *ollamatest.Server, texts []string, opts ...embed.Option) time.Duration {
	client := embed.NewOllama(ollama.Client(), embed.DefaultModel, opts...)
	start := time.Now()
	if _, err := client.EmbedDocuments(context.Background(), texts); err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}
