package main

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"vaultmcp/shared/vault"
	"vaultmcp/shared/watch"
)

// live keeps the index current while the server runs. The watcher says which notes changed;
// live applies those changes one at a time, in one goroutine: a single queue for everything
// that writes the index, so two jobs for the same note can never race.
type live struct {
	notes   *vault.Vault
	ix      *index
	events  *noteEvents // tells clients what changed
	logger  *slog.Logger
	changes chan watch.Change // from the watcher, and from retries

	attempts map[string]int // failed attempts per note, for the backoff; only the worker uses it
}

// Backoff for a note whose embedding failed: 1 s, 2 s, 4 s … up to a minute between tries.
// A failed note is never dropped: an index that silently goes stale is the commonest complaint
// about servers like this one.
const (
	firstRetry = time.Second
	maxRetry   = time.Minute
)

func newLive(notes *vault.Vault, ix *index, events *noteEvents, logger *slog.Logger) *live {
	return &live{notes: notes, ix: ix, events: events, logger: logger, changes: make(chan watch.Change, 64), attempts: map[string]int{}}
}

// run applies changes until ctx ends.
func (l *live) run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case c := <-l.changes:
			l.apply(ctx, c)
		}
	}
}

func (l *live) apply(ctx context.Context, c watch.Change) {
	start := time.Now()
	switch c.Op {
	case watch.Updated:
		_, known, _ := l.ix.db.State(ctx, c.Path)
		sections, err := l.ix.update(ctx, l.notes, c.Path)
		if sections != -1 { // -1: the same text as before, nothing to tell
			l.events.changed(c.Path, !known)
		}
		if err != nil {
			l.retryLater(ctx, c.Path, err)
			return
		}
		l.succeeded(c.Path)
		if sections >= 0 {
			l.logger.Info("reindexed", "path", c.Path, "sections", sections, "took", time.Since(start).Round(time.Millisecond))
		}
	case watch.Removed, watch.NotNote: // a path that holds no note is out of the index, as a removed one
		l.events.changed(c.Path, true)
		if err := l.ix.remove(ctx, c.Path); err != nil {
			l.logger.Error("cannot remove a note from the index", "path", c.Path, "err", err)
			return
		}
		l.succeeded(c.Path)
		if c.Op == watch.NotNote {
			l.logger.Info("not a note, so not in the index", "path", c.Path, "is", c.Why)
			return
		}
		l.logger.Info("removed", "path", c.Path)
	case watch.Rescan:
		l.logger.Warn("the watcher lost events; comparing the index with the disk")
		l.rescan(ctx)
	}
}

// retryLater puts the note back in the queue after a growing delay, unless trying again
// cannot help (a note too large, or not a file): then index_status shows the reason until the
// note changes again.
func (l *live) retryLater(ctx context.Context, path string, err error) {
	if errors.Is(err, vault.ErrTooLarge) || errors.Is(err, vault.ErrNotNote) {
		// Not the server's failure but the file's, for the user to see and fix.
		l.logger.Warn("cannot index a note; index_status lists it", "path", path, "err", err)
		return
	}
	l.attempts[path]++
	delay := retryDelay(l.attempts[path])
	l.logger.Error("cannot index a changed note; will retry", "path", path, "in", delay, "err", err)
	time.AfterFunc(delay, func() {
		select {
		case l.changes <- watch.Change{Op: watch.Updated, Path: path}:
		case <-ctx.Done():
		}
	})
}

// retryDelay is how long to wait after the nth failure in a row. The shift stops at 2⁶ s,
// past maxRetry: a note that fails for an hour would otherwise shift firstRetry out of range,
// and retry at once, again and again.
func retryDelay(n int) time.Duration {
	return min(firstRetry<<min(n-1, 6), maxRetry)
}

func (l *live) succeeded(path string) {
	delete(l.attempts, path)
}

// rescan compares the index with the disk and applies the difference, after the watcher lost
// events: notes whose size or modification time differ are read again, notes gone are removed.
func (l *live) rescan(ctx context.Context) {
	onDisk, err := l.notes.Notes()
	if err != nil {
		l.logger.Error("rescan: cannot list the vault", "err", err)
		return
	}
	indexed, err := l.ix.db.NoteStates(ctx)
	if err != nil {
		l.logger.Error("rescan: cannot read the index", "err", err)
		return
	}
	for _, path := range onDisk {
		_, info, err := l.notes.Stat(path)
		st, known := indexed[path]
		if err == nil && (!known || st.Size != info.Size() || !st.MTime.Equal(info.ModTime())) {
			l.apply(ctx, watch.Change{Op: watch.Updated, Path: path})
		}
		delete(indexed, path)
	}
	for path := range indexed {
		l.apply(ctx, watch.Change{Op: watch.Removed, Path: path})
	}
}

// update indexes the note at path again: its sections, vectors and links. It returns how
// many sections it embedded, or -1 when the note was unchanged and nothing was done.
func (ix *index) update(ctx context.Context, notes *vault.Vault, path string) (int, error) {
	n, err := readNote(notes, path, ix.graph)
	if errors.Is(err, vault.ErrNotFound) {
		return -1, ix.remove(ctx, path) // gone again before we got to it
	}
	if err != nil {
		ix.failed.set(path, err)
		return 0, err
	}
	// Editors save without changes (and touch files); the content hash says when there is
	// nothing to embed.
	if st, ok, err := ix.db.State(ctx, path); err == nil && ok && st.Hash == n.record.Hash {
		ix.failed.set(path, nil) // what failed before is what the index holds now
		return -1, nil
	}
	texts := make([]string, len(n.sections))
	for i, s := range n.sections {
		texts[i] = s.Text
	}
	vectors, err := ix.embedder.EmbedDocuments(ctx, texts)
	if err == nil {
		err = ix.db.PutNote(ctx, n.record, n.sections, vectors)
	}
	ix.failed.set(path, err)
	return len(texts), err
}

// remove takes a note out of the index and the link graph.
func (ix *index) remove(ctx context.Context, path string) error {
	ix.graph.Remove(path)
	ix.failed.set(path, nil)
	return ix.db.DeleteNote(ctx, path)
}
