package main

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
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
	watcher *watch.Watcher // how many changes it holds, for how far behind the disk the index is
	events  *noteEvents    // tells clients what changed
	logger  *slog.Logger
	changes chan watch.Change // from the watcher
	retries chan string       // notes to try again, from their retry timers

	finished atomic.Int64    // changes from the watcher applied so far; see backlog
	attempts map[string]int  // failed attempts per note, for the backoff; only the worker uses it
	retrying map[string]bool // notes whose next try is scheduled; likewise
}

// Backoff for a note whose embedding failed: 1 s, 2 s, 4 s … up to a minute between tries.
// A failed note is never dropped: an index that silently goes stale is the commonest complaint
// about servers like this one.
const (
	firstRetry = time.Second
	maxRetry   = time.Minute
)

func newLive(notes *vault.Vault, ix *index, watcher *watch.Watcher, events *noteEvents, logger *slog.Logger) *live {
	l := &live{
		notes: notes, ix: ix, watcher: watcher, events: events, logger: logger,
		changes: make(chan watch.Change, 64), retries: make(chan string, 64),
		attempts: map[string]int{}, retrying: map[string]bool{},
	}
	ix.backlog = l.backlog
	return l
}

// run applies changes until ctx ends.
func (l *live) run(ctx context.Context) {
	l.ix.caughtUp.look(l.ix.current())
	for {
		select {
		case <-ctx.Done():
			return
		case c := <-l.changes:
			l.apply(ctx, c)
			l.finished.Add(1)
		case path := <-l.retries:
			delete(l.retrying, path)
			l.apply(ctx, watch.Change{Op: watch.Updated, Path: path})
		}
		l.ix.caughtUp.applied(l.ix.current())
	}
}

// backlog is how many changes the watcher has noticed that are not in the index yet: those it
// holds, and those it sent that the worker has not finished.
func (l *live) backlog() int {
	done := l.finished.Load() // first: see watch.Watcher.Waiting
	return l.watcher.Waiting() + int(l.watcher.Sent()-done)
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
		l.logger.Warn("the watcher lost events; comparing the index with the disk")
		l.rescan(ctx)
	}
}

// retryLater tries the note again after a growing delay, unless trying again cannot help (see
// fileFault): then index_status shows the reason until the note changes again. The retry is
// an update whatever failed: it finds the note as it is on disk, and removes it from the
// index if it is gone. A note has one retry scheduled at most, with its own backoff: more
// failures of the same note while it waits (more saves while Ollama is down) change nothing,
// since the retry reads the note as it is then.
func (l *live) retryLater(ctx context.Context, path string, err error) {
	if fileFault(err) {
		// Not the server's failure but the file's, for the user to see and fix.
		l.logger.Warn("cannot index a note; index_status lists it", "path", path, "err", err)
		return
	}
	if l.retrying[path] {
		return
	}
	l.retrying[path] = true
	l.attempts[path]++
	delay := retryDelay(l.attempts[path])
	l.logger.Error("cannot bring a note up to date in the index; will retry", "path", path, "in", delay, "err", err)
	time.AfterFunc(delay, func() {
		select {
		case l.retries <- path:
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

// fileFault reports whether err is the file's failure rather than the server's, for the user
// to see and fix: trying again cannot help until the note changes.
func fileFault(err error) bool {
	return errors.Is(err, vault.ErrTooLarge) || errors.Is(err, vault.ErrNotNote)
}

func (l *live) succeeded(path string) {
	delete(l.attempts, path)
}

// rescan compares the index with the disk and applies the difference, after the watcher lost
// events: every note is read again, and the content hash decides (see index.update), so an
// edit that kept a note's size and time is not missed; notes gone are removed. Events are
// lost rarely, and reading a vault costs seconds.
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
		l.apply(ctx, watch.Change{Op: watch.Updated, Path: path})
		delete(indexed, path)
	}
	for path := range indexed {
		l.apply(ctx, watch.Change{Op: watch.Removed, Path: path})
	}
}

// caughtUp records when the index last caught up with the disk: every change the watcher
// noticed applied, no note waiting to be tried again, and the watcher noticing every change.
// The worker looks after each change it applies, and index_status at each call, which catches
// a moment the worker's look missed.
type caughtUp struct {
	mu     sync.Mutex
	at     time.Time // zero until it first caught up
	behind bool      // at the last look
}

// applied records a change applied: the index caught up now, if it is current.
func (c *caughtUp) applied(current bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if current {
		c.at = time.Now()
	}
	c.behind = !current
}

// look records whether the index is current, and returns when it last caught up: now, if it
// is current and was behind at the last look.
func (c *caughtUp) look(current bool) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if current && (c.behind || c.at.IsZero()) {
		c.at = time.Now()
	}
	c.behind = !current
	return c.at
}

// current reports whether the index holds every note as the disk has it, as far as the server
// can know: nothing the watcher noticed waits, nothing is retried, and the watcher notices
// every change.
func (ix *index) current() bool {
	return ix.backlog() == 0 && ix.noticing().Trouble == "" && !ix.failed.retrying()
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

// remove takes a note out of the index and the link graph. A failure stays in the failed
// list, to be retried.
func (ix *index) remove(ctx context.Context, path string) error {
	ix.graph.Remove(path)
	err := ix.db.DeleteNote(ctx, path)
	ix.failed.set(path, err)
	return err
}
