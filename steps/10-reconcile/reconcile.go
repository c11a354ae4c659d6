package main

import (
	"context"
	"fmt"
	"math"
	"runtime/debug"
	"strconv"
	"sync"
	"time"

	"vaultmcp/shared/links"
	"vaultmcp/shared/progress"
	"vaultmcp/shared/reconcile"
	"vaultmcp/shared/store"
	"vaultmcp/shared/vault"
	"vaultmcp/shared/watch"
)

// catchUp brings the link graph and the index up to date with the disk: at start-up, and
// again when the watcher has lost events. It runs in the live worker, the one goroutine that
// writes the index, so it never races a change the watcher reports meanwhile; that change
// waits its turn and is applied after.
//
// The work is ordered by cost. Comparing reads no note unless its size or time changed (see
// package reconcile). Deletions, renames and touched notes are a row or two each. Then the slow
// part, embedding the notes that changed, a batch at a time, while the server answers; their
// links need no model and are stored meanwhile, so with a model slower than the database,
// backlinks are complete long before the embedding is. A kill part-way loses nothing but
// time: each note's sections are stored whole or not at all, links stored from another version
// than their note's sections are stored again (see catchUpLinks), and the next start finds the
// rest still to do.
func (l *live) catchUp(ctx context.Context) {
	defer budgetMemory()()
	cov := &l.ix.coverage
	cov.set(phaseComparing, 0, 0)

	start := time.Now()
	plan, onDisk, graph, err := l.plan(ctx)
	if ctx.Err() != nil {
		return // the server is stopping, before it could compare: no failure
	}
	if err != nil {
		l.comparisons++
		delay := retryDelay(l.comparisons)
		l.logger.Error("cannot compare the index with the vault; will retry", "in", delay, "err", err)
		cov.fail(err)
		l.later(ctx, delay, watch.Change{Op: watch.Rescan})
		return
	}
	l.comparisons = 0
	notes := len(onDisk) // onDisk itself, a state a note, is not kept while the notes are embedded
	cov.set(phaseIndexing, notes-len(plan.Embed), notes)

	for _, path := range plan.Delete {
		if err := l.ix.remove(ctx, path); err != nil {
			l.retryLater(ctx, path, err)
		}
	}
	for _, r := range plan.Rename {
		// The rows move, vectors, links and all. The new path's state is recorded too, or the
		// next comparison would read the note again.
		err := l.ix.db.RenameNote(ctx, r.From, r.To)
		if err == nil {
			err = l.ix.db.UpdateState(ctx, r.To, noteState(onDisk[r.To]))
		}
		if err == nil {
			err = l.ix.graph.Rename(ctx, r.From, r.To)
		}
		if err != nil {
			// Retried as two updates: one finds the old path gone and removes it, the other
			// indexes the note at the new one.
			l.ix.failed.set(r.From, fmt.Errorf("%w: %w", errStale, err))
			l.ix.failed.set(r.To, err)
			l.retryLater(ctx, r.From, err)
			l.retryLater(ctx, r.To, err)
		}
	}
	for _, path := range plan.Touch {
		if err := l.ix.db.UpdateState(ctx, path, noteState(onDisk[path])); err != nil {
			l.logger.Error("cannot record a note's new time in the index", "path", path, "err", err)
		}
	}
	if len(plan.Delete)+len(plan.Rename) > 0 {
		graph = l.compareGraph(ctx) // the notes that moved or went took their links along
	}
	links := l.catchUpLinks(ctx, graph, plan.Embed, onDisk)

	report := progress.New(l.logger, "catching up", len(plan.Embed))
	// When ctx ends the server is stopping: notes cut off mid-request count as failed, and
	// the index is not up to date, whatever indexNotes returned.
	if err := l.indexNotes(ctx, plan.Embed, links, report); err != nil || ctx.Err() != nil {
		return
	}
	if links != nil {
		for _, f := range links.failed {
			l.retryLater(ctx, f.path, f.err)
		}
	}
	failed := 0
	failures := l.ix.failed.snapshot()
	for _, path := range plan.Embed {
		if err, ok := failures[path]; ok {
			failed++
			l.retryLater(ctx, path, err)
		}
	}
	cov.set(phaseReady, 0, 0)
	_, sections := report.Counts()
	l.logger.Info("index up to date", "notes", notes, "embedded", len(plan.Embed)-failed, "sections", sections,
		"renamed", len(plan.Rename), "touched", len(plan.Touch), "removed", len(plan.Delete), "failed", failed,
		"took", time.Since(start).Round(time.Millisecond))
}

// catchUpMemory is the memory the Go runtime aims to stay within while a catch-up runs (see
// budgetMemory): about twice what a catch-up of 50,000 notes keeps between large notes, so
// that the collector runs no more often than it would without a budget until one comes.
const catchUpMemory = 56 << 20

// memoryBudget is the limit budgetMemory sets, while at least one catch-up runs in the
// process (tests run several servers in one).
var memoryBudget struct {
	mu       sync.Mutex
	catchUps int
	before   int64 // the limit to go back to
}

// budgetMemory gives Go's collector a budget for a catch-up, and returns the function that
// lifts it. By default the collector lets the heap grow to twice what was live at its last
// pass, so a peak doubles whatever happened to be live then. A catch-up holds a few batches,
// but one note of a few megabytes, parsed, embedded and prepared for the index, is tens of
// megabytes for a moment, and a large vault has more such notes. Under the budget the
// collector runs more often as the heap nears it, and the peak is about what is live. The
// budget is soft: a heap that needs more gets more, and the collector then takes at most about
// half the CPU until it shrinks. So it is lifted once the catch-up is done: serving holds the
// sections' signs (see store.Search), as many as the vault has, and a vault large enough for
// them to fill the budget would pay for a collection at every search. SQLite's memory, in
// WebAssembly, is outside the budget. A GOMEMLIMIT set by the user stands instead.
func budgetMemory() (lift func()) {
	b := &memoryBudget
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.catchUps == 0 {
		if b.before = debug.SetMemoryLimit(-1); b.before != math.MaxInt64 {
			return func() {} // GOMEMLIMIT
		}
		debug.SetMemoryLimit(catchUpMemory)
	}
	b.catchUps++
	return func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		if b.catchUps--; b.catchUps == 0 {
			debug.SetMemoryLimit(b.before)
		}
	}
}

// catchUpLinks works out what the link graph, which the index holds, needs to be up to date
// with the disk: it removes the notes that are gone, and returns the notes whose links must be
// stored, for indexNotes to store while it waits for the model. The graph holds every note the
// rest of the index does, from the same version, so only the notes that changed need reading,
// and the few on which the graph and the index disagree: a note whose links could not be
// stored, or were stored from a version whose embedding failed or was cut short by a stop, or
// one that failed and was deleted while the server was off. Each note's links carry the
// version they were read from (its content hash), as its sections do, so a disagreement shows
// in a comparison of the two versions of every note (store.LinksDisagree), which plan makes
// while it walks the vault.
func (l *live) catchUpLinks(ctx context.Context, graph graphComparison, changed []string, onDisk map[string]reconcile.State) *linkWork {
	work := &linkWork{start: time.Now()}
	if graph.err != nil {
		l.logger.Error("cannot read the link graph; backlinks may be out of date until a restart", "err", graph.err)
		return nil
	}
	for _, path := range graph.onlyLinked {
		if _, ok := onDisk[path]; !ok {
			if err := l.ix.graph.Remove(ctx, path); err != nil {
				l.logger.Error("cannot remove a deleted note's links", "path", path, "err", err)
			}
		}
	}
	// The notes that changed, and then any others: changed itself when there are none, as for
	// a new index, rather than a copy; the full slice expression makes an append copy it.
	work.paths = changed[:len(changed):len(changed)]
	isChanged := make(map[string]bool, len(changed))
	for _, path := range changed {
		isChanged[path] = true
	}
	for _, path := range graph.stale {
		if _, ok := onDisk[path]; ok && !isChanged[path] {
			work.paths = append(work.paths, path)
		}
	}
	work.read = len(work.paths)
	return work
}

// linkWork is the notes whose links the graph still needs after a catch-up's plan.
type linkWork struct {
	paths  []string // to store
	read   int      // in all
	start  time.Time
	failed []failedNote // for catchUp to retry once indexNotes is done
}

type failedNote struct {
	path string
	err  error
}

// linkBatch is the links of a few notes of a linkWork, read and parsed, on their way to the
// writer.
type linkBatch struct {
	paths []string       // the notes it was asked for
	notes []links.Source // those that could be read; a note that cannot is left out, and its own indexing reports why
}

// readLinks reads and parses the notes of work, a batch at a time (see linksBatch), in a
// goroutine of its own, and sends them on the channel it returns, which is closed once they are all sent or ctx
// ends. Reading and parsing take none of the writer's time: it only stores what it is given
// (see storeLinks). A nil work (the graph could not be read) gives a nil channel, which never
// delivers anything.
func (l *live) readLinks(ctx context.Context, work *linkWork) <-chan linkBatch {
	if work == nil {
		return nil
	}
	read := make(chan linkBatch, 1)
	go func() {
		defer close(read)
		for start := 0; start < len(work.paths); {
			var b linkBatch
			size, end := 0, start
			for end < len(work.paths) && end-start < linksBatch && size < linksBatchBytes {
				path := work.paths[end]
				end++
				if _, content, err := l.notes.ReadNote(path); err == nil {
					text := string(content)
					if parsed, err := parseNote(path, text); err == nil { // else indexNotes lists it
						size += len(content)
						b.notes = append(b.notes, links.Source{Path: path, Content: text, Parsed: parsed, Version: contentHash(content)})
					}
				}
			}
			b.paths, start = work.paths[start:end], end
			select {
			case read <- b:
			case <-ctx.Done():
				return
			}
		}
	}()
	return read
}

// storeLinks stores the links of a batch of work's notes in the graph, in one transaction,
// each with the version it was read from.
func (l *live) storeLinks(ctx context.Context, work *linkWork, b linkBatch) {
	if ctx.Err() != nil {
		return
	}
	if err := l.ix.graph.SetMany(ctx, b.notes); err != nil {
		for _, path := range b.paths {
			work.failed = append(work.failed, failedNote{path, err})
		}
	}
}

// linksStored records that every note of work has its links stored, or tried: the graph holds
// every note, and says so in the log and in coverage. A catch-up cut short by a stop says
// nothing.
func (l *live) linksStored(ctx context.Context, work *linkWork) {
	if ctx.Err() != nil {
		return
	}
	l.ix.coverage.linksLoaded()
	l.logger.Info("links up to date", "read", work.read, "took", time.Since(work.start).Round(time.Millisecond))
}

// graphComparison is where the link graph and the rest of the index disagree (see
// catchUpLinks).
type graphComparison struct {
	onlyLinked, stale []string
	err               error
}

func (l *live) compareGraph(ctx context.Context) (g graphComparison) {
	g.onlyLinked, g.stale, g.err = l.ix.db.LinksDisagree(ctx)
	return g
}

// compareGraphWith is compareGraph with the index's states read already.
func (l *live) compareGraphWith(ctx context.Context, states map[string]store.NoteState) (g graphComparison) {
	g.onlyLinked, g.stale, g.err = l.ix.db.LinksDisagreeWith(ctx, states)
	return g
}

// plan compares the disk with the index: a walk of the vault that reads every note's size and
// time, and a read of the notes whose size or time differ. The walk does not depend on the
// index's rows, nor on the comparison of the link graph with them, so the two run at once,
// each turning what it read into the States that Compute compares: on a restart over an
// unchanged vault they are nearly all the work.
func (l *live) plan(ctx context.Context) (reconcile.Plan, map[string]reconcile.State, graphComparison, error) {
	var indexed map[string]reconcile.State
	var statesErr error
	var graph graphComparison
	var reading sync.WaitGroup
	reading.Go(func() {
		var states map[string]store.NoteState
		if states, statesErr = l.ix.db.NoteStates(ctx); statesErr != nil {
			return
		}
		graph = l.compareGraphWith(ctx, states)
		indexed = make(map[string]reconcile.State, len(states))
		for path, st := range states {
			indexed[path] = reconcile.State(st)
		}
	})
	seen := time.Now() // before the walk: see readNote
	infos, skipped, err := l.notes.NoteInfos()
	onDisk := make(map[string]reconcile.State, len(infos))
	for path, info := range infos {
		s := vault.StampOf(info)
		onDisk[path] = reconcile.State{Size: s.Size, MTime: s.MTime, CTime: s.CTime, FileID: s.File, Seen: seen}
	}
	reading.Wait()
	if err != nil {
		return reconcile.Plan{}, nil, graph, fmt.Errorf("list the vault's notes: %w", err)
	}
	if statesErr != nil {
		return reconcile.Plan{}, nil, graph, statesErr
	}
	l.listSkipped(skipped, onDisk)
	return reconcile.Compute(indexed, onDisk, l.hash), onDisk, graph, nil
}

// noteState is what the index records of a note on disk whose content it holds already.
func noteState(s reconcile.State) store.NoteState {
	return store.NoteState(s)
}

// listSkipped records the notes the walk left out, with the reason, so that index_status and
// search_vault name them, and forgets the failures of notes no longer on disk under any name
// (the watcher says nothing of a note it cannot serve when it is renamed).
func (l *live) listSkipped(skipped map[string]error, onDisk map[string]reconcile.State) {
	l.ix.failed.forget(func(path string) bool {
		_, ok := onDisk[path]
		return !ok
	})
	for path, err := range skipped {
		l.ix.failed.set(path, err)
	}
	if len(skipped) > 0 {
		l.logger.Warn("some notes cannot be indexed under their names; index_status lists them with the reason", "notes", len(skipped))
	}
}

// hash reads a note and returns its content hash, as readNote records it.
func (l *live) hash(path string) (string, error) {
	_, content, err := l.notes.ReadNote(path)
	if err != nil {
		return "", err
	}
	return contentHash(content), nil
}

// linksBatch is how many notes' links the writer stores in one transaction: enough to spread
// a commit's cost, few enough that a batch of vectors waits little for the writer. A batch
// also ends once its notes hold linksBatchBytes of Markdown: each is parsed whole, so fifty
// long notes would hold tens of megabytes at once.
const (
	linksBatch      = 50
	linksBatchBytes = 1 << 20
)

// What the index is doing, as index_status reports it (see index.state). The catch-up sets
// the first two, or retrying when a comparison fails; the others follow from the watcher and
// the worker once it is done.
const (
	phaseComparing = "comparing" // with the disk; nothing known yet
	phaseIndexing  = "indexing"  // embedding the notes that changed
	phaseRetrying  = "retrying"  // a comparison or some notes failed, and are tried again
	phaseUnwatched = "unwatched" // the watcher may miss changes, and says why
	phaseUpdating  = "updating"  // changes the watcher noticed wait to be indexed
	phaseReady     = "ready"     // the index holds every note on disk as it is, and nothing else
)

// coverage is how much of the vault the index holds while it catches up: search results miss
// the notes not indexed yet, so search_vault and index_status say how many those are.
type coverage struct {
	mu      sync.Mutex
	phase   string // "" until the first catch-up starts, which counts as comparing
	current int    // notes the index holds as the disk has them
	total   int    // notes on the disk
	links   bool   // the link graph is up to date with the disk: catchUpLinks has finished once
	err     error  // why the latest comparison failed, while it waits to be tried again

	// The catch-up at start-up, which a search over stdio waits for (see awaitStartup):
	// started is when it began, and startup is open while it runs, closed and nil once it
	// has ended, however it ended.
	started time.Time
	startup chan struct{}
}

// beginStartup records that the catch-up at start-up begins, for awaitStartup.
func (c *coverage) beginStartup() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.started, c.startup = time.Now(), make(chan struct{})
}

// endStartup records that the catch-up at start-up has ended: searches wait no longer.
func (c *coverage) endStartup() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.startup != nil {
		close(c.startup)
		c.startup = nil
	}
}

// awaitStartup waits until the catch-up at start-up has ended, or limit has passed since it
// began, or ctx ends, whichever comes first. A client that starts the server over stdio may
// ask its first question a moment later, before a new index holds a single note; a person
// who started an HTTP server, and can watch its log, has limit 0 and never waits. Past the
// limit, search answers with what is indexed and says how far the catch-up got.
func (c *coverage) awaitStartup(ctx context.Context, limit time.Duration) {
	c.mu.Lock()
	done, started := c.startup, c.started
	c.mu.Unlock()
	if limit <= 0 || done == nil {
		return
	}
	wait := time.NewTimer(time.Until(started.Add(limit)))
	defer wait.Stop()
	select {
	case <-done:
	case <-wait.C:
	case <-ctx.Done():
	}
}

// fail records that the comparison with the disk failed, and why.
func (c *coverage) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.phase, c.current, c.total, c.err = phaseRetrying, 0, 0, err
}

// linksLoaded records that the link graph holds every note.
func (c *coverage) linksLoaded() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.links = true
}

// loadingLinks reports whether the link graph is still being filled after a start.
func (c *coverage) loadingLinks() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.links
}

func (c *coverage) set(phase string, current, total int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.phase, c.current, c.total, c.err = phase, current, total, nil
}

// indexed counts n more notes brought up to date.
func (c *coverage) indexed(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.current += n
}

func (c *coverage) get() (phase string, current, total int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.phase == "" {
		return phaseComparing, 0, 0
	}
	return c.phase, c.current, c.total
}

// describe says what search results may miss, or returns "" when the index is caught up.
func (c *coverage) describe() string {
	switch phase, current, total := c.get(); phase {
	case phaseComparing:
		return "the index is being compared with the vault, so notes changed while the server was off may be missing or out of date"
	case phaseIndexing:
		return fmt.Sprintf("indexed %s of %s notes so far; the index is catching up with the vault, and the notes not yet indexed are missing from these results",
			thousands(current), thousands(total))
	case phaseRetrying:
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.err != nil {
			return fmt.Sprintf("the index could not be compared with the vault (%v), so notes changed while the server was off may be missing or out of date; it is tried again in the background", c.err)
		}
	}
	return ""
}

// thousands writes n with commas between groups of three digits: 5,000 reads faster than 5000.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
