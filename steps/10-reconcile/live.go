package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"vaultmcp/shared/links"
	"vaultmcp/shared/store"
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
	retries chan watch.Change // notes, or a comparison, to try again, from their retry timers

	finished    atomic.Int64    // changes from the watcher applied so far; see backlog
	attempts    map[string]int  // failed attempts per note, for the backoff; only the worker uses it
	retrying    map[string]bool // notes whose next try is scheduled; likewise
	comparisons int             // failed comparisons of the index with the disk in a row, likewise
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
		changes: make(chan watch.Change, 64), retries: make(chan watch.Change, 64),
		attempts: map[string]int{}, retrying: map[string]bool{},
	}
	ix.backlog = l.backlog
	return l
}

// run catches up with the disk, then applies changes until ctx ends. The watcher holds the
// changes it sees meanwhile, merged by path, so none is lost while the catch-up runs.
func (l *live) run(ctx context.Context) {
	l.catchUp(ctx)
	l.ix.caughtUp.applied(l.ix.current())
	l.ix.coverage.endStartup()
	l.emptyLogIfIdle(ctx)
	for {
		select {
		case <-ctx.Done():
			return
		case c := <-l.changes:
			l.apply(ctx, c)
			l.finished.Add(1)
		case c := <-l.retries:
			delete(l.retrying, c.Path)
			l.apply(ctx, c)
		}
		l.ix.caughtUp.applied(l.ix.current())
		l.emptyLogIfIdle(ctx)
	}
}

// emptyLogIfIdle empties the index's write-ahead log when no change is waiting to be written:
// otherwise the log stays beside the index until the next write, at the size it reached.
func (l *live) emptyLogIfIdle(ctx context.Context) {
	if l.backlog() == 0 {
		l.ix.db.EmptyLog(ctx)
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
	if c.Op != watch.Rescan {
		if why := vault.Unservable(c.Path); why != nil {
			// A note no tool call can name (the watcher reports these too): index_status lists
			// it, with what to rename, for as long as it is there.
			if c.Op == watch.Updated {
				l.ix.failed.set(c.Path, why)
			} else {
				l.ix.failed.set(c.Path, nil)
			}
			return
		}
	}
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

// retryLater tries the note again after a growing delay, unless trying again cannot help
// (see fileFault): then index_status shows the reason until the note changes again. The retry
// is an update whatever failed: one finds the note as it is on disk, and removes it from the
// index if it is gone. A note has one retry scheduled at most, with its own backoff: more
// failures of the same note while it waits (more saves while Ollama is down) change nothing,
// since the retry reads the note as it is then.
func (l *live) retryLater(ctx context.Context, path string, err error) {
	if ctx.Err() != nil {
		return // the server is stopping, which is what failed the note; the next start retries
	}
	if fileFault(err) {
		l.logger.Warn("cannot index a note; index_status lists it", "path", path, "err", err)
		return
	}
	if l.retrying[path] {
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
	l.retrying[c.Path] = true
	time.AfterFunc(delay, func() {
		select {
		case l.retries <- c:
		case <-ctx.Done():
		}
	})
}

// fileFault reports whether err is the file's failure rather than the server's, for the user
// to see and fix: trying again cannot help until the note changes.
func fileFault(err error) bool {
	return errors.Is(err, vault.ErrTooLarge) || errors.Is(err, vault.ErrNotNote) ||
		errors.Is(err, vault.ErrInvalidPath) || errors.Is(err, fs.ErrPermission) || errors.Is(err, errParse)
}

func (l *live) succeeded(path string) {
	delete(l.attempts, path)
}

// update indexes the note at path again: its sections, vectors and links, all from the same
// version of the note, in one transaction. It returns how many sections it embedded, or -1
// when the note was unchanged and nothing was done.
func (ix *index) update(ctx context.Context, notes *vault.Vault, path string) (int, error) {
	n, err := readNote(notes, path)
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
		if ix.failed.has(path) {
			// Its links may be those of a version whose embedding failed (see below): store
			// them again from this one, the version of its sections.
			if err := ix.graph.SetMany(ctx, []links.Source{n.links}); err != nil {
				ix.failed.set(path, err)
				return 0, err
			}
		}
		ix.failed.set(path, nil) // what failed before is what the index holds now
		return -1, nil
	}
	texts := make([]string, len(n.sections))
	for i, s := range n.sections {
		texts[i] = s.Text
	}
	vectors, err := ix.embedder.EmbedDocuments(ctx, texts)
	if err != nil {
		// Links need no model: stored alone, they follow the note while the model is away.
		// Until a retry stores the sections, the two are of different versions, which the
		// catch-up of the next start also sees (store.LinksDisagree).
		err = errors.Join(err, ix.graph.SetMany(ctx, []links.Source{n.links}))
	} else {
		err = ix.db.PutNotes(ctx, []store.Entry{{
			Note: n.record, Sections: n.sections, Vectors: vectors, Links: ix.graph.Setting(n.links),
		}})[0]
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
// can know: the state index_status calls ready.
func (ix *index) current() bool {
	return ix.state() == phaseReady
}

// state is what index_status reports the index is doing: the catch-up's phase until it is
// done, and then ready, unless the watcher may miss changes (unwatched), a note waits to be
// tried again (retrying), or changes the watcher noticed wait to be indexed (updating).
func (ix *index) state() string {
	switch phase, _, _ := ix.coverage.get(); {
	case phase != phaseReady:
		return phase
	case ix.noticing().Trouble != "":
		return phaseUnwatched
	case ix.failed.retrying():
		return phaseRetrying
	case ix.backlog() > 0:
		return phaseUpdating
	}
	return phaseReady
}
