package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"

	"vaultmcp/shared/embed"
	"vaultmcp/shared/markdown"
	"vaultmcp/shared/progress"
	"vaultmcp/shared/store"
	"vaultmcp/shared/vault"
)

// index is what the tools search with: the database, the embedder its vectors came from, and
// the state and settings that shape an answer.
type index struct {
	embedder embed.Embedder
	db       *store.Store
	failed   map[string]error // notes that could not be indexed, and why
	floor    *floor           // vector matches scoring at or below it are chance
	ranking  string           // how search ranks: rankHybrid, rankKeyword or rankVector
}

// pendingNote is a note read and parsed, waiting for the vectors of its chunks.
type pendingNote struct {
	record   store.Note
	sections []store.Section // one per chunk: what gets embedded
}

// batchChunks is how many chunks go to the embedder at a time. The embedder splits them
// into requests itself; a batch this size keeps it busy and lets us report progress.
const batchChunks = 256

// openIndex opens the index database at cfg.dbPath and indexes the vault into it with
// embedder. Opening the database takes its lock: a second server on the same index stops
// here. Indexing comes before serving: simple, and nobody searches a half-built index (the
// last step serves while it indexes, and re-embeds only the notes that changed).
func openIndex(ctx context.Context, cfg config, notes *vault.Vault, embedder embed.Embedder, logger *slog.Logger) (_ *index, err error) {
	if err := store.CheckLocation(cfg.vaultDir, cfg.dbPath); err != nil {
		return nil, err
	}
	db, err := store.Open(ctx, cfg.dbPath, store.Config{})
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			db.Close()
		}
	}()
	logger.Info("index", "db", db.Path())
	return buildIndex(ctx, notes, embedder, db, cfg.search, logger)
}

// buildIndex empties the database and indexes every note into it, a batch of notes in one
// transaction (see store.PutNotes): a note is either wholly in the index or not at all. A
// note that cannot be read or embedded is recorded in failed and the rest go on.
func buildIndex(ctx context.Context, notes *vault.Vault, embedder embed.Embedder, db *store.Store, search searchConfig, logger *slog.Logger) (*index, error) {
	identity := store.Embedder{Name: embedderName(embedder), Model: embedder.Model(), Dimension: embedder.Dimensions()}
	if err := db.Reset(ctx, identity); err != nil {
		return nil, err
	}
	paths, err := notes.Notes()
	if err != nil {
		return nil, fmt.Errorf("cannot list the vault's notes: %w", err)
	}
	ix := &index{embedder: embedder, db: db, failed: map[string]error{},
		floor: &floor{logger: logger, fixed: search.minScore}, ranking: search.ranking}
	var minScore any = ix.floor
	if ix.ranking == rankKeyword {
		minScore = "none: keyword ranking has no vector scores to cut" // -min-score is ignored too
	}
	logger.Info("search", "rank", ix.ranking, "min_score", minScore)
	report := progress.New(logger, "indexing", len(paths))

	var batch []pendingNote
	chunks := 0
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		var texts []string
		for _, n := range batch {
			for _, s := range n.sections {
				texts = append(texts, s.Text)
			}
		}
		vectors, err := embedder.EmbedDocuments(ctx, texts)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			for _, n := range batch {
				ix.failed[n.record.Path] = err
			}
			logger.Error("embedding failed; these notes are not searchable", "notes", len(batch), "err", err)
		} else {
			entries := make([]store.Entry, len(batch))
			for i, n := range batch {
				entries[i] = store.Entry{Note: n.record, Sections: n.sections, Vectors: vectors[:len(n.sections)]}
				vectors = vectors[len(n.sections):]
			}
			for i, err := range db.PutNotes(ctx, entries) {
				if err != nil {
					ix.failed[batch[i].record.Path] = err
				}
			}
		}
		report.Done(len(batch), len(texts))
		batch, chunks = nil, 0
		return nil
	}

	for _, path := range paths {
		n, err := readNote(notes, path)
		if err != nil {
			ix.failed[path] = err
			continue
		}
		batch = append(batch, n)
		chunks += len(n.sections)
		if chunks >= batchChunks {
			if err := flush(); err != nil {
				return nil, err
			}
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	report.Finish(len(ix.failed))
	return ix, nil
}

// readNote reads and parses a note into what the index stores about it.
func readNote(notes *vault.Vault, path string) (pendingNote, error) {
	_, info, err := notes.Stat(path)
	if err != nil {
		return pendingNote{}, err
	}
	_, content, err := notes.ReadNote(path)
	if err != nil {
		return pendingNote{}, err
	}
	note := markdown.Parse(path, string(content))
	sum := sha256.Sum256(content)
	record := store.Note{
		Path:  path,
		Title: note.Title,
		Size:  int64(len(content)),
		MTime: info.ModTime(),
		Hash:  hex.EncodeToString(sum[:]),
	}
	if note.Frontmatter.Fields != nil {
		fields, err := json.Marshal(note.Frontmatter.Fields)
		if err == nil {
			record.Frontmatter = string(fields)
		}
	}
	for _, t := range note.Tags {
		record.Tags = append(record.Tags, t.Name)
	}
	record.Aliases = note.Aliases
	var sections []store.Section
	for _, s := range note.Sections {
		for _, text := range s.Chunks {
			sections = append(sections, store.Section{Heading: s.Heading, Line: s.Line, Text: text})
		}
	}
	return pendingNote{record: record, sections: sections}, nil
}

// embedderName is the kind of embedder, recorded in the index beside its model.
func embedderName(e embed.Embedder) string {
	if e.Model() == embed.OfflineModel {
		return "offline"
	}
	return "ollama"
}
