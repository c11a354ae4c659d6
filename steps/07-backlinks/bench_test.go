package main

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"vaultmcp/shared/embed"
	"vaultmcp/shared/markdown"
	"vaultmcp/shared/ollamatest"
	"vaultmcp/shared/store"
	"vaultmcp/shared/testvaults"
	"vaultmcp/shared/vault"
)

// BenchmarkIndexing indexes a real vault through the real Ollama client and the stand-in,
// which adds a delay per request and per input the way a model on a laptop would. It reports
// the whole indexing (read, parse, embed, write) against the pure embedding of the same
// sections in the same batches, the lower bound: their ratio is what our code costs on top.
// It also reports the one-request-per-section approach, for comparison.
func BenchmarkIndexing(b *testing.B) {
	notes, err := vault.Open(testvaults.Dir(b, "data-engineering-wiki"))
	if err != nil {
		b.Fatal(err)
	}
	defer notes.Close()
	texts := allChunks(b, notes)

	ollama := ollamatest.NewServer(ollamatest.Options{Latency: 5 * time.Millisecond, InputLatency: time.Millisecond})
	defer ollama.Close()
	batched := embed.NewOllama(ollama.Client(), "")
	oneByOne := embed.NewOllama(ollama.Client(), "", embed.WithBatchSize(1), embed.WithParallel(1))
	ctx := context.Background()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))

	db, err := store.Open(ctx, filepath.Join(b.TempDir(), "index.db"), store.Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()

	var indexing, embedding, perSection time.Duration
	for b.Loop() {
		start := time.Now()
		if _, err := buildIndex(ctx, notes, batched, db, searchConfig{ranking: rankHybrid}, logger); err != nil {
			b.Fatal(err)
		}
		indexing += time.Since(start)

		start = time.Now()
		for i := 0; i < len(texts); i += batchChunks {
			if _, err := batched.EmbedDocuments(ctx, texts[i:min(i+batchChunks, len(texts))]); err != nil {
				b.Fatal(err)
			}
		}
		embedding += time.Since(start)

		start = time.Now()
		if _, err := oneByOne.EmbedDocuments(ctx, texts); err != nil {
			b.Fatal(err)
		}
		perSection += time.Since(start)
	}
	b.ReportMetric(float64(len(texts)), "sections")
	b.ReportMetric(indexing.Seconds()/embedding.Seconds(), "index/embed")
	b.ReportMetric(perSection.Seconds()/embedding.Seconds(), "one-by-one/embed")
}

// allChunks returns every chunk of every note: what indexing embeds.
func allChunks(b *testing.B, notes *vault.Vault) []string {
	paths, err := notes.Notes()
	if err != nil {
		b.Fatal(err)
	}
	var texts []string
	for _, p := range paths {
		_, content, err := notes.ReadNote(p)
		if err != nil {
			b.Fatal(err)
		}
		for _, s := range markdown.Parse(p, string(content)).Sections {
			texts = append(texts, s.Chunks...)
		}
	}
	return texts
}
