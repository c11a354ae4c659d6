package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
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

	attempts    map[string]int // failed attempts per note, for the backoff; only the worker uses it
	comparisons int            // failed comparisons of the index with the disk in a row, likewise
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

// run catches up with the disk, then applies changes until ctx ends. The watcher holds the
// changes it sees meanwhile, merged by path, so none is lost while the catch-up runs.
func (l *live) run(ctx context.Context) {
	l.catchUp(ctx)
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
			l.retryLater(ctx, c.Path, err) // as an update, which finds the note gone and removes it
			return
		}
		l.succeeded(c.Path)
		if c.Op == watch.NotNote {
			l.logger.Info("not a note, so not in the index", "path", c.Path, "is", c.Why)
			return
		}
		l.logger.Info("removed", "path", c.Path)
	case watch.Rescan:
		if l.comparisons == 0 { // else this is the retry of a comparison that failed
			l.logger.Warn("the watcher lost events; comparing the index with the disk")
		}
		l.catchUp(ctx)
		l.events.changedAll() // what changed unseen is not known: every listener looks again
	}
}

// retryLater puts the note back in the queue after a growing delay, unless trying again
// cannot help (see fileFault): then index_status shows the reason until the note changes
// again. The retry is an update whatever failed: one finds the note as it is on disk, and
// removes it from the index if it is gone.
func (l *live) retryLater(ctx context.Context, path string, err error) {
	if ctx.Err() != nil {
		return // the server is stopping, which is what failed the note; the next start retries
	}
	if fileFault(err) {
		l.logger.Warn("cannot index a note; index_status lists it", "path", path, "err", err)
		return
	}
	delay := l.backoff(path)
	l.logger.Error("cannot bring a note up to date in the index; will retry", "path", path, "in", delay, "err", err)
	l.later(ctx, delay, watch.Change{Op: watch.Updated, Path: path})
}

// backoff counts a failed attempt for path and returns how long to wait before the next.
func (l *live) backoff(path string) time.Duration {
	l.attempts[path]++
	return retryDelay(l.attempts[path])
}

// retryDelay is how long to wait after the nth failure in a row. The shift stops at 2⁶ s,
// past maxRetry: a note that fails for an hour would otherwise shift firstRetry out of range,
// and retry at once, again and again.
func retryDelay(n int) time.Duration {
	return min(firstRetry<<min(n-1, 6), maxRetry)
}

// later queues c after delay, unless the server stops first.
func (l *live) later(ctx context.Context, delay time.Duration, c watch.Change) {
	time.AfterFunc(delay, func() {
		select {
		case l.changes <- c:
		case <-ctx.Done():
		}
	})
}

// fileFault reports whether err is the file's failure rather than the server's, for the user
// to see and fix: trying again cannot help until the note changes.
func fileFault(err error) bool {
	return errors.Is(err, vault.ErrTooLarge) || errors.Is(err, vault.ErrNotNote) ||
		errors.Is(err, vault.ErrInvalidPath) || errors.Is(err, fs.ErrPermission)
}

func (l *live) succeeded(path string) {
	delete(l.attempts, path)
}

// update indexes the note at path again: its sections, vectors and links. It returns how
// many sections it embedded, or -1 when the note was unchanged and nothing was done.
func (ix *index) update(ctx context.Context, notes *vault.Vault, path string) (int, error) {
	n, err := readNote(ctx, notes, path, ix.graph)
	if errors.Is(err, vault.ErrNotFound) {
		return -1, ix.remove(ctx, path) // gone again before we got to it
	}
	if err != nil {
		ix.unreadable(ctx, path, err)
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

// unreadable records why the note at path could not be read. A file that is no longer a note
// (an image saved over it) leaves the index too: nothing of it may stay searchable.
func (ix *index) unreadable(ctx context.Context, path string, err error) {
	if errors.Is(err, vault.ErrNotNote) {
		err = errors.Join(err, ix.remove(ctx, path))
	}
	ix.failed.set(path, err)
}

// remove takes a note out of the index and the link graph. When that fails, the failure is
// kept as errStale: the note is gone from the vault but not from the index, and search leaves
// it out of its results until a retry succeeds.
func (ix *index) remove(ctx context.Context, path string) error {
	err := errors.Join(ix.graph.Remove(ctx, path), ix.db.DeleteNote(ctx, path))
	if err != nil {
		err = fmt.Errorf("%w: %w", errStale, err)
	}
	ix.failed.set(path, err)
	return err
}

// errStale is the failure of a note that left the vault and could not leave the index.
var errStale = errors.New("gone from the vault, but the index could not remove it")
