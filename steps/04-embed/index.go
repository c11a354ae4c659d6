package main

import (
	"context"
	"fmt"
	"log/slog"

	"vaultmcp/shared/embed"
	"vaultmcp/shared/markdown"
	"vaultmcp/shared/progress"
	"vaultmcp/shared/vault"
)

// chunk is one piece of a note, embedded and ready to be searched.
type chunk struct {
	Path    string
	Title   string
	Heading string
	Line    int
	Text    string // what was embedded: "Title > Heading" and the section's text
	Vector  []float32
}

// memoryIndex holds every chunk of the vault with its vector. It is built once and only read
// afterwards, so searches need no lock.
type memoryIndex struct {
	embedder embed.Embedder
	chunks   []chunk
	failed   map[string]error // notes that could not be indexed, and why
}

// batchChunks is how many chunks go to the embedder at a time. The embedder splits them
// into requests itself; a batch this size keeps it busy and lets us report progress.
const batchChunks = 256

// buildIndex reads, parses and embeds every note. A note that cannot be read or embedded is
// recorded in failed and the rest go on: one bad note, or Ollama stumbling for a moment,
// must not leave the whole vault unsearchable, nor be forgotten silently.
func buildIndex(ctx context.Context, notes *vault.Vault, embedder embed.Embedder, logger *slog.Logger) (*memoryIndex, error) {
	paths, err := notes.Notes()
	if err != nil {
		return nil, fmt.Errorf("cannot list the vault's notes: %w", err)
	}
	index := &memoryIndex{embedder: embedder, failed: map[string]error{}}
	report := progress.New(logger, "indexing", len(paths))

	var pending []chunk       // chunks waiting for their vectors
	var pendingNotes []string // the notes they come from
	flush := func() error {
		if len(pending) == 0 {
			return nil
		}
		texts := make([]string, len(pending))
		for i, c := range pending {
			texts[i] = c.Text
		}
		vectors, err := embedder.EmbedDocuments(ctx, texts)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			logger.Error("embedding failed; these notes are not searchable", "notes", len(pendingNotes), "err", err)
			for _, p := range pendingNotes {
				index.failed[p] = err
			}
		} else {
			for i := range pending {
				pending[i].Vector = vectors[i]
			}
			index.chunks = append(index.chunks, pending...)
		}
		report.Done(len(pendingNotes), len(pending))
		pending, pendingNotes = nil, nil
		return nil
	}

	for _, path := range paths {
		_, content, err := notes.ReadNote(path)
		if err != nil {
			index.failed[path] = err
			continue
		}
		note := markdown.Parse(path, string(content))
		for _, s := range note.Sections {
			for _, text := range s.Chunks {
				pending = append(pending, chunk{Path: path, Title: note.Title, Heading: s.Heading, Line: s.Line, Text: text})
			}
		}
		pendingNotes = append(pendingNotes, path)
		if len(pending) >= batchChunks {
			if err := flush(); err != nil {
				return nil, err
			}
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	report.Finish(len(index.failed))
	return index, nil
}
