package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"strings"
	"sync"
	"time"

	"vaultmcp/shared/embed"
	"vaultmcp/shared/links"
	"vaultmcp/shared/markdown"
	"vaultmcp/shared/progress"
	"vaultmcp/shared/store"
	"vaultmcp/shared/vault"
	"vaultmcp/shared/watch"
)

// index is what the tools search with: the database, the embedder its vectors came from, and
// the state and settings that shape an answer.
type index struct {
	embedder embed.Embedder
	db       *store.Store
	graph    *links.Stored         // who links to whom, kept in the index so that a restart finds it there
	failed   failures              // notes that could not be indexed, and why
	floor    *floor                // vector matches scoring at or below it are chance
	ranking  string                // how search ranks: rankHybrid, rankKeyword or rankVector
	coverage coverage              // how much of the vault the index holds while it catches up
	noticing func() watch.Noticing // how the watcher notices edits: events, or polling and why
	backlog  func() int            // how many changes the watcher noticed wait to be indexed
	caughtUp caughtUp              // when the index last matched the disk
	// How long a search may wait, from the start, for the catch-up at start-up: over stdio,
	// startupWait; over HTTP, none (see coverage.awaitStartup).
	startupWait time.Duration

	compaction *store.Compaction // how the index keeps its size while the watcher writes it
}

// failures are the notes that could not be indexed. The watcher's worker writes them while
// searches read them, so a mutex guards the map.
type failures struct {
	mu    sync.Mutex
	notes map[string]error
}

// set records why path failed, or forgets it when err is nil.
func (f *failures) set(path string, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err == nil {
		delete(f.notes, path)
		return
	}
	f.notes[path] = err
}

// forget drops the failures of the paths gone reports true for.
func (f *failures) forget(gone func(path string) bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	maps.DeleteFunc(f.notes, func(path string, _ error) bool { return gone(path) })
}

// retrying reports whether some failure is the server's, which it tries again: then the index
// is not what the disk holds, and index_status says "retrying" rather than "ready".
func (f *failures) retrying() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, err := range f.notes {
		if !fileFault(err) {
			return true
		}
	}
	return false
}

// has reports whether path failed.
func (f *failures) has(path string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	_, ok := f.notes[path]
	return ok
}

// stale reports whether the note at path is gone from the vault but still in the index.
func (f *failures) stale(path string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return errors.Is(f.notes[path], errStale)
}

// snapshot returns a copy of the failures, to read without holding the lock.
func (f *failures) snapshot() map[string]error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return maps.Clone(f.notes)
}

// pendingNote is a note read and parsed, waiting for the vectors of its chunks.
type pendingNote struct {
	record   store.Note
	sections []store.Section // one per chunk: what gets embedded
	links    links.Source    // what its links are read from: the same version
}

// startupWait is how long, at most, a search over stdio waits from the start for the catch-up
// at start-up: long enough for a new index of a few hundred notes, or a restart's few changed
// notes, and well within the time a client gives a call and the server gives the calls under
// way when stdin closes, as it does at once after a one-shot such as
// `printf '…' | vaultmcp -transport stdio`.
const startupWait = 5 * time.Second

// batchChunks is how many chunks go to the embedder at a time. The embedder splits them
// into requests itself; a batch this size keeps it busy and lets us report progress.
const batchChunks = 256

// openIndex opens the index database and makes it ready for the embedder the configuration
// asks for. An index built by the same embedder is kept as it is, and the catch-up brings it
// up to date; any other is emptied, with the reason recorded in it, and the catch-up then fills
// it again. An old index is never searched with a new model's query vectors: their distances
// would mean nothing. Opening the database takes its lock: a second server on the same index
// stops here.
func openIndex(ctx context.Context, cfg config, notes *vault.Vault, logger *slog.Logger) (_ *index, err error) {
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
	// The watcher writes the index while it is served, for as long as the server runs: every
	// edit leaves the slots of its old vectors dead, and searches keep the write-ahead log
	// from starting again (see store.KeepCompact). A write that fails says why in words, for
	// index_status and the log, while the worker tries again.
	compaction := db.KeepCompact()
	db.ExplainWriteErrors()
	embedder, err := chooseEmbedder(ctx, cfg, db, logger)
	if err != nil {
		return nil, err
	}
	identity := store.Embedder{Name: embedderName(embedder), Model: embedder.Model(), Dimension: embedder.Dimensions()}
	err = db.CheckEmbedder(ctx, identity)
	if errors.Is(err, store.ErrRebuild) {
		// A first build is news; throwing away an index is a warning.
		log := logger.Warn
		if built, _ := db.Embedder(ctx); built.Name == "" {
			log = logger.Info
		}
		log("building the index: every note will be embedded", "why", err)
		err = db.Rebuild(ctx, identity, err.Error())
	}
	if err != nil {
		return nil, err
	}
	// The graph keeps where each link is, and reads its line from the note when asked.
	graph, err := links.NewStored(ctx, db, func(path string) (string, error) {
		_, content, err := notes.ReadNote(path)
		return string(content), err
	})
	if err != nil {
		return nil, err
	}
	ix := &index{
		embedder: embedder, db: db, graph: graph,
		failed: failures{notes: map[string]error{}}, compaction: compaction,
		floor: &floor{logger: logger, fixed: cfg.search.minScore}, ranking: cfg.search.ranking,
	}
	if cfg.transport == "stdio" {
		ix.startupWait = startupWait
	}
	var minScore any = ix.floor
	if ix.ranking == rankKeyword {
		minScore = "none: keyword ranking has no vector scores to cut" // -min-score is ignored too
	}
	logger.Info("search", "rank", ix.ranking, "min_score", minScore)
	return ix, nil
}

// chooseEmbedder picks the embedder that -embedder, -model and -dimensions ask for, with one
// exception for auto: an index that Ollama built keeps Ollama even while Ollama is down.
// Falling back to the offline embedder would empty the index, and the next start with Ollama
// up would empty it again: two full rebuilds for a morning's outage. Meanwhile search says why
// it fails, the other tools work, and notes that changed are retried until Ollama answers.
func chooseEmbedder(ctx context.Context, cfg config, db *store.Store, logger *slog.Logger) (embed.Embedder, error) {
	built, err := db.Embedder(ctx)
	if err != nil {
		return nil, err
	}
	if cfg.embedder == "auto" && built.Name == "ollama" && built.Model == cfg.model {
		// Asked for the length the index holds, Ollama gives it, cut or not.
		ollama := embed.NewOllama(cfg.ollama, cfg.model,
			embed.WithDimensions(built.Dimension), embed.WithShortVectors(built.Dimension))
		if err := ollama.Check(ctx); err != nil {
			logger.Warn("Ollama is not answering; the index it built is kept, and search fails until Ollama is back", "err", err)
			if cfg.dimensions > 0 && cfg.dimensions != built.Dimension {
				logger.Warn("-dimensions (VAULTMCP_DIMENSIONS) IGNORED while Ollama is down: the index keeps the length it was built with; it takes effect at the next start that finds Ollama",
					"dimensions", cfg.dimensions, "index", built.Dimension)
			}
			return ollama, nil
		}
	}
	return embed.ChooseModel(ctx, cfg.embedder, cfg.model, cfg.ollama, logger, embed.WithShortVectors(cfg.dimensions))
}

// indexNotes reads, embeds and stores the notes at paths, a batch at a time. A note is
// either wholly in the index or not at all, and a process killed half-way leaves the batches
// before it indexed and the rest as they were. A note that cannot be read or embedded is
// recorded in failed and the rest go on. It returns early, with ctx's error, when ctx ends.
//
// Three things overlap, so that the model, the slow part, waits for the rest as little as it
// can. Two batches at most are embedded or waiting for the writer: while the writer waits for
// one, the requests of the next fill the slots the first leaves idle while its last request
// runs (the embedder bounds the requests in flight over both); while it writes one, the next
// two are embedded; and meanwhile the notes of another are read. Batches are written in order,
// so a long write (a note of a thousand sections) can still leave the model idle once the two
// after it are embedded. Batches that are embedded by the
// time the writer is free are written together, in one transaction: a model faster than the
// database waits for fewer commits.
//
// The links of links.paths need no model. Another goroutine reads and parses those notes (see
// readLinks), and the writer, the one goroutine that writes the index here, stores them
// whenever it waits for a batch's vectors, and the rest once the last batch is stored.
func (l *live) indexNotes(ctx context.Context, paths []string, links *linkWork, report *progress.Reporter) error {
	// Batches reach the writer in order, each as a channel that will hold it once embedded.
	queued := make(chan chan embeddedBatch, maxBatches)
	// A batch holds a place from before it is embedded until the writer takes it. More
	// batches in flight would not make the model faster: their requests would take turns in
	// the embedder's slots, and each batch would be ready later.
	places := make(chan struct{}, maxBatches)
	linked := l.readLinks(ctx, links)
	var writer sync.WaitGroup
	writer.Go(func() {
		var held chan embeddedBatch // taken from queued, not embedded yet when it was looked at
		for {
			next := held
			if held = nil; next == nil {
				var ok bool
				if next, ok = <-queued; !ok {
					break
				}
			}
			batches := []embeddedBatch{l.awaitBatch(ctx, next, &linked, links)}
			for chunks := batches[0].chunks; chunks < writeChunks && held == nil; {
				var more chan embeddedBatch
				select {
				case more = <-queued:
				default:
				}
				if more == nil {
					break // none queued, or the queue is closed
				}
				select {
				case b := <-more:
					batches = append(batches, b)
					chunks += b.chunks
				default:
					held = more
				}
			}
			// Taken, the batches give up their places: the next are embedded while these are
			// written.
			for range batches {
				<-places
			}
			l.store(ctx, batches, report)
		}
		if linked != nil {
			for b := range linked {
				l.storeLinks(ctx, links, b)
			}
			l.linksStored(ctx, links)
		}
	})
	defer writer.Wait()
	defer close(queued)

	var batch []pendingNote
	chunks := 0
	flush := func() {
		if len(batch) == 0 {
			return
		}
		var texts []string
		for _, n := range batch {
			for _, s := range n.sections {
				texts = append(texts, s.Text)
			}
		}
		next := make(chan embeddedBatch, 1)
		places <- struct{}{} // waits while two batches are embedded or waiting to be written
		queued <- next
		go func(notes []pendingNote) {
			vectors, err := l.ix.embedder.EmbedDocuments(ctx, texts)
			next <- embeddedBatch{notes: notes, vectors: vectors, err: err, chunks: len(texts)}
		}(batch)
		batch, chunks = nil, 0
	}

	for _, path := range paths {
		if ctx.Err() != nil {
			break
		}
		n, err := readNote(l.notes, path)
		if err != nil {
			l.ix.unreadable(ctx, path, err)
			continue
		}
		// catchUp stores the links (see readLinks). The note's text and whole parse, which
		// they are read from, would otherwise wait here with its chunks for their vectors.
		n.links.Content, n.links.Parsed = "", markdown.Note{}
		batch = append(batch, n)
		chunks += len(n.sections)
		if chunks >= batchChunks {
			flush()
		}
	}
	flush()
	return ctx.Err()
}

// maxBatches is how many batches may be embedded or waiting to be written at a time.
const maxBatches = 2

// writeChunks is about how many chunks the writer stores in one transaction, at most, when
// several batches are embedded by the time it is free.
const writeChunks = maxBatches * batchChunks

// awaitBatch waits for the batch next will hold, and meanwhile stores the links that
// readLinks has read. Once every note's links are stored it sets *linked to nil.
func (l *live) awaitBatch(ctx context.Context, next chan embeddedBatch, linked *<-chan linkBatch, work *linkWork) embeddedBatch {
	for {
		select { // the vectors first, if both are ready
		case b := <-next:
			return b
		default:
		}
		select {
		case b := <-next:
			return b
		case b, ok := <-*linked:
			if !ok {
				*linked = nil // a nil channel is never ready
				l.linksStored(ctx, work)
				continue
			}
			l.storeLinks(ctx, work, b)
		}
	}
}

// embeddedBatch is a batch of notes with their vectors (or the error that kept them from
// having any), on its way to the database.
type embeddedBatch struct {
	notes   []pendingNote
	vectors [][]float32 // every section of every note, in order
	err     error
	chunks  int
}

// store writes batches in one transaction (see store.PutNotes) and records which notes
// failed. The count of notes up to date grows once the batches are committed, so that
// search_vault and index_status, which both read it, agree with the database's own count.
func (l *live) store(ctx context.Context, batches []embeddedBatch, report *progress.Reporter) {
	var entries []store.Entry
	for _, b := range batches {
		if b.err != nil {
			continue
		}
		for _, n := range b.notes {
			entries = append(entries, store.Entry{Note: n.record, Sections: n.sections, Vectors: b.vectors[:len(n.sections)]})
			b.vectors = b.vectors[len(n.sections):]
		}
	}
	var errs []error
	if len(entries) > 0 {
		errs = l.ix.db.PutNotes(ctx, entries)
	}
	stored := 0
	for _, b := range batches {
		for _, n := range b.notes {
			err := b.err
			if err == nil {
				err, errs = errs[0], errs[1:]
			}
			l.ix.failed.set(n.record.Path, err)
			if err == nil {
				stored++
			}
		}
	}
	l.ix.coverage.indexed(stored)
	for _, b := range batches {
		if b.err != nil && ctx.Err() == nil { // a server stopping cancels its embedding: no failure
			l.logger.Error("embedding failed; these notes are not searchable yet", "notes", len(b.notes), "err", b.err)
		}
		report.Done(len(b.notes), b.chunks)
	}
}

// readNote reads and parses a note into what the index stores about it: its record and
// sections, and the source of its links, of the same version, the content hash. The note's
// state (size, times, identity) is read before its content, and the moment noted: an edit
// after that moment shows in the state, unless it came so soon after the last that the state
// cannot show it, which the catch-up then checks (see reconcile.Compute).
func readNote(notes *vault.Vault, path string) (pendingNote, error) {
	seen := time.Now()
	_, info, err := notes.Stat(path)
	if err != nil {
		return pendingNote{}, err
	}
	_, content, err := notes.ReadNote(path)
	if err != nil {
		return pendingNote{}, err
	}
	text := string(content)
	note, err := parseNote(path, text)
	if err != nil {
		return pendingNote{}, err
	}
	stamp := vault.StampOf(info)
	record := store.Note{
		Path:   path,
		Title:  note.Title,
		Size:   int64(len(content)),
		MTime:  stamp.MTime,
		CTime:  stamp.CTime,
		FileID: stamp.File,
		Seen:   seen,
		Hash:   contentHash(content),
	}
	if note.Frontmatter.Fields != nil {
		fields, err := json.Marshal(note.Frontmatter.Fields)
		if err == nil {
			record.Frontmatter = string(fields)
		}
	}
	// A tag or heading is a slice of the note's text, which would keep the whole text in
	// memory for as long as the record and sections wait to be stored: they get copies.
	for _, t := range note.Tags {
		record.Tags = append(record.Tags, strings.Clone(t.Name))
	}
	record.Aliases = note.Aliases
	var sections []store.Section
	for _, s := range note.Sections {
		heading := strings.Clone(s.Heading)
		for _, text := range s.Chunks {
			sections = append(sections, store.Section{Heading: heading, Line: s.Line, Text: text})
		}
	}
	links := links.Source{Path: path, Content: text, Parsed: note, Version: record.Hash}
	return pendingNote{record: record, sections: sections, links: links}, nil
}

// parseNote is markdown.Parse that survives a bug in the parser. A note that made it panic
// would stop the server, and stop it again at every start, when the catch-up reads the note
// again; instead it is one note left out of the index, which index_status lists until the
// note changes. The parser is fuzzed (make check): this is for the bug the fuzzer has not found.
func parseNote(path, text string) (note markdown.Note, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w (%v)", errParse, r)
		}
	}()
	return parseMarkdown(path, text), nil
}

// parseMarkdown is the parser parseNote runs; a test puts one that panics in its place.
var parseMarkdown = markdown.Parse

// errParse is the failure of a note the parser failed on.
var errParse = errors.New("the parser failed on this note, a bug in vaultmcp (please report it); the note is left out of the index until it changes")

// contentHash is what the index records to recognise a note's content: the catch-up compares
// it when a note's size or time changed, and finds renamed notes by it.
func contentHash(content []byte) string {
	sum := sha256.Sum256(content)
	return hex.EncodeToString(sum[:])
}

// embedderName is the kind of embedder, recorded in the index beside its model.
func embedderName(e embed.Embedder) string {
	if e.Model() == embed.OfflineModel {
		return "offline"
	}
	return "ollama"
}
