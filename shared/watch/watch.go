// Package watch turns file-system events under a vault into a calm stream of note changes:
// this note was updated, this one was removed, and, when events were lost, rescan.
//
// Raw events are not fit to act on, for three reasons, and a Watcher deals with each:
//
//   - fsnotify watches one folder, not the folders below it. A Watcher adds every folder at
//     start and each new folder as it appears, and lists a new folder at once: a folder moved
//     into the vault, or made with mkdir -p and filled straight away, holds notes that no
//     event will ever mention.
//   - Most events are not about notes: Obsidian's settings, editors' swap files,
//     attachments. Only the paths vault.Notes would list come out; ignore.go has the rules
//     and the editors' files they leave out.
//   - One save is several events (an editor writes a temp file and renames it over the
//     note; a sync tool writes in chunks). A path's events are held until the path has been
//     quiet for the debounce window, and then the disk says what happened: the note is
//     there (Updated), it is not (Removed), or its name now holds something else, such as a
//     named pipe (NotNote).
//
// A rename comes out as Removed for the old path and Updated for the new one. Linux pairs
// the two halves of a rename, but fsnotify does not pass the pairing on, and a note moved in
// from outside the vault has no old path at all. A consumer that keeps each note's content
// hash can pair them itself: an Updated note whose hash it already holds is a rename, and
// needs no new embeddings. Package reconcile matches notes by hash the same way. The two
// changes come in no fixed order (usually the Removed first), so pairing them takes a store
// that finds vectors by content hash, or a moment's delay before deleting.
//
// A Watcher only says what changed. Acting on it (reindexing, one job at a time) is the
// consumer's business: it receives changes from a channel, one at a time, as slowly as it
// likes, while the Watcher keeps reading events and merges the changes still waiting.
package watch

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"vaultmcp/shared/vault"
)

// DefaultDebounce is the quiet time a path needs before its change comes out.
//
// The events of one save come within milliseconds of each other (a temp file renamed over
// the note, vim's backup dance, a sync tool writing in chunks), so half a second gathers
// them with a wide margin, and an edit reaches the consumer half a second after the save.
// While someone types, Obsidian saves about every 2 s, and each save comes out as a change
// of its own: a window long enough to merge them would hold back every edit as long.
const DefaultDebounce = 500 * time.Millisecond

// Op says what happened to a note.
type Op int

const (
	// Updated: the note exists, and is new or may have new content. Read it again; compare
	// its content hash to skip the work when nothing changed (a save without edits, a touch).
	Updated Op = iota
	// Removed: the note is gone, deleted or renamed. It may name a note the consumer never
	// saw (one created and deleted within the window), so removing must tolerate that.
	Removed
	// Rescan: events were lost, because the system's event queue overflowed or the watcher
	// failed. Path is empty. Compare the index with the disk to catch up.
	Rescan
	// NotNote: the path is named like a note but holds something else, which Why names: a
	// folder, a named pipe, a link that leads outside the vault. Nothing was removed, though a
	// note the consumer holds under that name is gone, as for Removed.
	NotNote
)

func (o Op) String() string {
	switch o {
	case Updated:
		return "updated"
	case Removed:
		return "removed"
	case Rescan:
		return "rescan"
	case NotNote:
		return "not a note"
	}
	return fmt.Sprintf("Op(%d)", int(o))
}

// A Change is what happened to one note once its path had been quiet for the window.
type Change struct {
	Op Op
	// Path is vault-relative with '/', as vault.Notes lists it.
	Path string
	// Why says what a NotNote path holds instead of a note, such as "a named pipe".
	Why string
}

func (c Change) String() string {
	switch {
	case c.Path == "":
		return c.Op.String()
	case c.Why != "":
		return c.Path + " is " + c.Op.String() + ": " + c.Why
	}
	return c.Op.String() + " " + c.Path
}

// Options configure a Watcher. The zero value is ready to use.
type Options struct {
	// Debounce is how long a path must be quiet before its change comes out. Zero means
	// DefaultDebounce.
	Debounce time.Duration
	// Logger is told what the watcher saw and what went wrong. Nil means no logging.
	Logger *slog.Logger
	// Mode says how to notice changes. Zero means Auto.
	Mode Mode
	// PollEvery is the interval between two passes when polling. Zero means one chosen from
	// the time a pass takes.
	PollEvery time.Duration
	// Unservable also reports the notes whose names vault.Notes leaves out, such as "a:b.md"
	// (vault.NoteInfos names them, with the reason), so that a consumer that lists them for
	// the user keeps the list current as they come and go. Hidden paths stay out.
	Unservable bool

	add        func(folder string) error         // in tests, a failure where watches are added
	newWatcher func() (*fsnotify.Watcher, error) // in tests, a failure to start watching
	quick      time.Duration                     // in tests, a shorter quickEvery
}

// A Watcher watches a vault for changes to its notes. Create one with New, start it with Run,
// and stop it with Close.
type Watcher struct {
	dir        string            // the vault folder, absolute
	root       *os.Root          // the vault folder, which settle asks about notes the way vault.Vault does
	fsw        *fsnotify.Watcher // nil when the system refused one, and the Watcher polls
	log        *slog.Logger
	add        func(folder string) error // fsw.Add, or a failure a test injects
	unservable bool                      // report notes with names vault.Notes leaves out

	mode      Mode          // as asked
	pollEvery time.Duration // as asked; 0 to choose
	poll      polling       // how changes are noticed, and the state of polling

	budget     int            // the watches Auto may take; 0 for no bound
	budgetWhat string         // what sets the budget, for the message that says it is spent
	watches    int            // the watches taken
	cost       map[string]int // by folder, the watches it takes (itself, and its files with kqueue)

	// Only Run touches these once New has returned.
	folders map[string]bool // watched folders, vault-relative; "." is the vault
	notes   map[string]bool // the notes last seen on disk, to tell which notes a removed folder held
	links   symlinks        // the notes that are symbolic links, and the notes they lead to
	pending *debouncer      // paths waiting to be quiet
	outbox  outbox          // changes waiting for the consumer
	lost    *Noticing       // while the vault folder is gone from its path: how changes were noticed before

	// What a consumer that wants to know whether it has caught up reads from other goroutines
	// (see Waiting and Sent).
	waiting atomic.Int64 // paths held: waiting to be quiet, or settled and waiting to be sent
	sent    atomic.Int64 // changes sent so far

	running   atomic.Bool
	closeOnce sync.Once
	closeErr  error
}

// New watches the vault in dir, every folder in it, and every folder made in it later.
//
// Every change made after New returns will come out of Run, so a consumer can start
// watching first and then compare its index with the disk, without a gap between the two.
func New(dir string, opts Options) (*Watcher, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("vault folder: %w", err)
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("watching the vault: %w", err)
	}
	window := cmp.Or(opts.Debounce, DefaultDebounce)
	w := &Watcher{
		dir:        abs,
		root:       root,
		log:        cmp.Or(opts.Logger, slog.New(slog.DiscardHandler)),
		mode:       cmp.Or(opts.Mode, Auto),
		pollEvery:  opts.PollEvery,
		unservable: opts.Unservable,
		folders:    make(map[string]bool),
		cost:       make(map[string]int),
		notes:      make(map[string]bool),
		links:      newSymlinks(abs),
		pending:    newDebouncer(window),
		outbox:     outbox{paths: make(map[string]bool)},
	}
	w.poll.quick = cmp.Or(opts.quick, quickEvery)
	newWatcher := opts.newWatcher
	if newWatcher == nil {
		newWatcher = fsnotify.NewWatcher
	}
	if err := w.start(newWatcher, opts.add); err != nil {
		w.Close()
		return nil, err
	}
	w.log.Info("watching the vault", "dir", abs, "noticing", w.Noticing().Mode, "folders", len(w.folders), "notes", len(w.notes), "debounce", window)
	return w, nil
}

// start watches the vault with events, or polls it: as asked, or, in Auto, when the vault
// needs more watches than the budget allows or the system refuses a watcher or a watch.
func (w *Watcher) start(newWatcher func() (*fsnotify.Watcher, error), add func(string) error) error {
	w.poll.now = Noticing{Mode: Events}
	switch w.mode {
	case Poll:
		return w.startPolling("polling was asked for")
	case Auto:
		if fs := eventless(w.dir); fs != "" {
			return w.startPolling(fmt.Sprintf("the vault is on %s, which does not report changes made elsewhere", fs))
		}
		w.budget, w.budgetWhat = watchBudget()
	case Events:
	default:
		return fmt.Errorf("watch mode %q: use auto, events or poll", w.mode)
	}
	fsw, err := newWatcher()
	switch {
	case err != nil && w.mode == Auto && cannotWatch(err):
		return w.startPolling(watcherRefused(err))
	case err != nil:
		return fmt.Errorf("starting the file watcher: %w", err)
	}
	w.fsw, w.add = fsw, add
	if w.add == nil {
		w.add = fsw.Add
	}
	return w.eventsOrPoll(w.watchAll())
}

// watcherRefused says why the system would not give a watcher at all, and what to raise.
func watcherRefused(err error) string {
	why := fmt.Sprintf("the system refused a file watcher (%v)", err)
	if runtime.GOOS == "linux" && errors.Is(err, syscall.EMFILE) {
		// inotify_init says "too many open files" for both of the limits it can hit.
		why += ": the inotify instances each user may have (fs.inotify.max_user_instances, 128 by default) " +
			"or this process's file descriptors are used up; raise the first with sysctl fs.inotify.max_user_instances=512"
	}
	return why
}

// eventsOrPoll turns to polling, in Auto, when watching err says the system cannot give the
// vault the watches it needs. Any other err is returned as it is.
func (w *Watcher) eventsOrPoll(err error) error {
	switch {
	case errors.Is(err, errOverBudget):
		return w.startPolling(fmt.Sprintf("the vault needs more watches than %s (%d)", w.budgetWhat, w.budget))
	case err != nil && w.mode == Auto && cannotWatch(err):
		return w.startPolling(fmt.Sprintf("the system refused a watch (%v)", err))
	}
	return err
}

// Run sends changes on the channel until ctx is cancelled or the Watcher is closed, and then
// returns nil. Changes not yet sent are dropped: a consumer that must not miss them compares
// its index with the disk when it starts again.
//
// Run does not stop on its own: trouble, such as the vault folder moved away (see lose), is
// logged once and shown in Noticing. Linux reports a removed folder only once nothing holds it
// open, and a vault.Vault does; a removed vault shows as the removal of each of its notes.
//
// Run never closes the channel, so other producers (a reconcile at start-up) may send on it
// too. A Watcher runs once.
func (w *Watcher) Run(ctx context.Context, changes chan<- Change) error {
	if !w.running.CompareAndSwap(false, true) {
		return errors.New("watch: Run was called twice; a Watcher runs once")
	}
	defer w.trouble("the file watcher has stopped; changes are noticed again after a restart")
	// One timer serves every waiting path: it is set for the earliest deadline. Since Go
	// 1.23 a timer that is Reset never delivers a stale tick, so it needs no draining.
	timer := time.NewTimer(0)
	defer timer.Stop()
	// Without a watcher (the system refused one) both channels are nil: never ready.
	var events <-chan fsnotify.Event
	var failures <-chan error
	if w.fsw != nil {
		events, failures = w.fsw.Events, w.fsw.Errors
	}
	for {
		w.waiting.Store(int64(len(w.pending.deadline) + len(w.outbox.queue)))
		var wake <-chan time.Time
		if at, ok := w.pending.next(); ok {
			timer.Reset(time.Until(at))
			wake = timer.C
		}
		// Sending on a nil channel blocks forever, so with nothing to send the select below
		// ignores the consumer.
		var send chan<- Change
		next, ok := w.outbox.peek()
		if ok {
			send = changes
		}

		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-events:
			if !ok {
				return nil // closed
			}
			w.handle(ev)
		case err, ok := <-failures:
			if !ok {
				return nil
			}
			w.recover(err)
		case <-w.ticks():
			if w.lost != nil {
				w.lookForVault()
			} else {
				w.pollOnce()
			}
		case now := <-wake:
			for _, p := range w.pending.quiet(now) {
				c := w.settle(p)
				w.log.Debug("note changed", "op", c.Op, "path", c.Path)
				w.outbox.push(c)
			}
		case send <- next:
			w.sent.Add(1) // before the outbox lets it go (see Waiting)
			w.outbox.pop()
		}
	}
}

// Waiting is how many paths the Watcher holds: changed and waiting to be quiet, or settled
// and waiting for the consumer to take them. Sent is how many changes it has sent in all. A
// consumer that counts the changes it has finished with knows how far behind the disk it is:
//
//	done := finished.Load() // first: a change finished after this is still counted below
//	behind := w.Waiting() + int(w.Sent()-done)
//
// A change is counted by Sent before Waiting lets it go, so read in this order nothing is
// missed, though a change may be counted twice for a moment. Events the system has queued
// and the Watcher has not read yet are not counted: no one can count those.
func (w *Watcher) Waiting() int { return int(w.waiting.Load()) }

// Sent is how many changes Run has sent; see Waiting.
func (w *Watcher) Sent() int64 { return w.sent.Load() }

// Close stops watching and releases the vault folder. It may be called more than once, and
// while Run runs, which then returns.
func (w *Watcher) Close() error {
	w.closeOnce.Do(func() {
		w.poll.mu.Lock()
		if w.poll.ticker != nil {
			w.poll.ticker.Stop()
		}
		w.poll.mu.Unlock()
		var err error
		if w.fsw != nil {
			err = w.fsw.Close()
		}
		w.closeErr = errors.Join(err, w.root.Close())
	})
	return w.closeErr
}

// handle turns one event into paths waiting to settle.
func (w *Watcher) handle(ev fsnotify.Event) {
	rel, err := filepath.Rel(w.dir, ev.Name)
	if err != nil || w.lost != nil {
		// Not under the vault (fsnotify names only paths under the watched folders), or the
		// vault folder is gone: its events name paths it no longer has.
		return
	}
	rel = filepath.ToSlash(rel)
	if w.poll.ticker != nil {
		// An event from before polling began: its note is settled as usual, but nothing is
		// watched any more.
		if w.isNote(rel) {
			w.pend(rel)
		}
		return
	}
	gone := ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)
	switch {
	case rel == ".":
		if gone {
			w.lose()
		}
		return
	case !w.visible(rel):
		if ev.Has(fsnotify.Create) {
			if info, err := w.root.Lstat(filepath.FromSlash(rel)); err == nil && info.IsDir() {
				w.leftOut(rel)
			}
		}
		return
	}

	if gone {
		if !w.folders[rel] && filesTakeDescriptors && w.cost[path.Dir(rel)] > 1 {
			w.cost[path.Dir(rel)]-- // the file's descriptor is closed with it
			w.watches--
		}
		w.forget(rel)
	}
	if ev.Has(fsnotify.Create) {
		// A new folder, a folder moved in, or the new name of a renamed one. Lstat, so that a
		// link to a folder is not followed: vault.Notes does not enter those either.
		if info, err := w.root.Lstat(filepath.FromSlash(rel)); err == nil && info.IsDir() {
			w.log.Debug("new folder", "path", rel)
			if err := w.eventsOrPoll(w.scan(rel, w.pend)); err != nil {
				w.unwatched(err)
			}
			return
		}
		if err := w.spend(rel, false); err != nil { // a new file, which kqueue opens too
			if err := w.eventsOrPoll(err); err != nil {
				w.unwatched(err)
				return
			}
		}
	}
	// Any event may have changed a note, a Chmod included: on macOS it is all that truncating
	// a file makes. settle asks the disk what happened. A note that is a link to this path
	// changed with it: its own name has no event.
	if w.isNote(rel) {
		w.pend(rel)
	}
	for link := range w.links.to[rel] {
		w.pend(link)
	}
}

// unwatched records that part of the vault is not watched, with Events, where the system
// refused a watch: the server goes on, and says what it misses.
func (w *Watcher) unwatched(err error) {
	w.log.Error("a new folder is not watched in full; changes in it may be seen only at the next start", "err", err)
	w.trouble(fmt.Sprintf("part of the vault is not watched (%v); changes there are noticed at the next start", err))
}

// pend holds p until it has been quiet for the window. A change for p still waiting for the
// consumer is taken back: it may be out of date, and p will settle again.
func (w *Watcher) pend(p string) {
	w.outbox.drop(p)
	w.pending.add(p, time.Now())
}

// settle asks the disk what became of p, once p has been quiet for the window.
func (w *Watcher) settle(p string) Change {
	name := filepath.FromSlash(p)
	info, err := w.root.Stat(name)
	link, lerr := w.root.Lstat(name)
	isLink := lerr == nil && link.Mode()&fs.ModeSymlink != 0
	w.links.set(p, isLink && err == nil)
	switch {
	case err == nil && info.Mode().IsRegular():
		w.notes[p] = true
		return Change{Op: Updated, Path: p}
	case err == nil:
		// Its name now belongs to a folder or something else that is not a note.
		delete(w.notes, p)
		return Change{Op: NotNote, Path: p, Why: fileKind(info.Mode())}
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		delete(w.notes, p)
		return Change{Op: Removed, Path: p}
	case isLink:
		// A link that leads outside the vault, which os.Root refuses: not a note, as for
		// vault.Notes.
		delete(w.notes, p)
		return Change{Op: NotNote, Path: p, Why: "a link that leads outside the vault"}
	}
	// Something else went wrong, such as "permission denied". The note may well be there:
	// let the consumer read it, which reports the same failure in its own words.
	w.log.Warn("cannot tell whether a note changed; reporting it as updated", "path", p, "err", err)
	return Change{Op: Updated, Path: p}
}

// fileKind names what a file that is not a regular one is, for a NotNote change.
func fileKind(mode fs.FileMode) string {
	switch {
	case mode.IsDir():
		return "a folder"
	case mode&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	case mode&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
}

// leftOut logs a folder that is not watched although it is not hidden: its name is one
// vault.CleanPath refuses, such as one that ends in a dot or a space, which Windows drops.
// vault lists its notes with the reason, for index_status; the log says that their changes
// will not be seen either. A hidden folder (.obsidian, .git) is left out without a word.
func (w *Watcher) leftOut(folder string) {
	name := path.Base(folder)
	if strings.HasPrefix(name, ".") {
		return
	}
	reason := "its name ends in a dot or a space, which Windows drops"
	if _, err := vault.CleanPath(folder); !strings.HasSuffix(name, ".") && !strings.HasSuffix(name, " ") && err != nil {
		reason = err.Error()
	}
	w.log.Warn("not watching a folder whose name no path can send; rename it to have its notes indexed", "folder", folder, "reason", reason)
}

// scan watches the folder top and every folder below it, and calls found with each note in
// them. It watches a folder before listing it, so a note made meanwhile is listed, or makes
// an event, or both, but is never missed. It keeps going past a folder it cannot watch, and
// returns the first such failure.
//
// A folder below top that this process may not read (lost+found, another user's folder) is
// no failure: vault.Notes leaves it out too, so it holds no note to watch. scan logs it and
// goes on.
func (w *Watcher) scan(top string, found func(note string)) error {
	var first error
	fail := func(folder string, err error) {
		switch {
		case folder != top && errors.Is(err, fs.ErrPermission):
			w.log.Info("not watching a folder it may not read", "folder", folder, "err", err)
		case first == nil:
			first = err
		}
	}
	_ = fs.WalkDir(w.root.FS(), top, func(p string, d fs.DirEntry, err error) error {
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil // removed while we looked; its removal makes its own events
		case err != nil:
			fail(p, fmt.Errorf("listing folder %q: %w", p, err))
			return nil
		case !d.IsDir():
			if w.spend(p, false) != nil {
				first = errOverBudget
				return fs.SkipAll
			}
			if w.isNote(p) {
				w.links.set(p, d.Type()&fs.ModeSymlink != 0)
				found(p)
			}
		case p != "." && !w.visible(p):
			w.leftOut(p)
			return fs.SkipDir
		default:
			if w.spend(p, true) != nil {
				first = errOverBudget
				return fs.SkipAll
			}
			if err := w.add(w.abs(p)); err != nil {
				if !errors.Is(err, fs.ErrNotExist) {
					fail(p, watchError(p, err))
				}
				return fs.SkipDir
			}
			w.folders[p] = true
		}
		return nil
	})
	return first
}

// watchError says what to do about a folder that cannot be watched.
func watchError(folder string, err error) error {
	if errors.Is(err, syscall.ENOSPC) {
		// inotify's "no space left on device" means its limit of watched folders, which
		// has nothing to do with disk space.
		return fmt.Errorf("watching folder %q: the system's limit on watched folders is reached; on Linux, raise it with sysctl fs.inotify.max_user_watches=524288: %w", folder, err)
	}
	return fmt.Errorf("watching folder %q: %w", folder, err)
}

// forget handles the removal or renaming of rel, if rel was a watched folder: it stops
// watching rel and the folders below it, and settles every note they held. A folder moved
// out of the vault makes one event, none for its notes.
func (w *Watcher) forget(rel string) {
	if !w.folders[rel] {
		return
	}
	prefix := rel + "/"
	for f := range w.folders {
		if f == rel || strings.HasPrefix(f, prefix) {
			// Linux drops a moved folder's own watch but keeps those below it, still named by
			// their old paths. Remove them, so that the folder's new place (scanned when its
			// Create arrives) is watched under its new paths. The error is that the watch is
			// already gone, with its folder.
			_ = w.fsw.Remove(w.abs(f))
			delete(w.folders, f)
			w.watches -= w.cost[f]
			delete(w.cost, f)
		}
	}
	n := 0
	for note := range w.notes {
		if strings.HasPrefix(note, prefix) {
			w.pend(note)
			n++
		}
	}
	w.log.Debug("folder removed or moved", "path", rel, "notes", n)
}

// recover handles a failure of the watcher: events were lost, so neither the watches nor
// the notes seen can be trusted. It rebuilds both from the disk and tells the consumer to
// do the same with its index.
func (w *Watcher) recover(err error) {
	if errors.Is(err, fsnotify.ErrEventOverflow) {
		w.log.Warn("too many file events at once, some were lost; rescanning the vault", "err", err)
	} else {
		w.log.Warn("the file watcher failed; rescanning the vault", "err", err)
	}
	if err := w.eventsOrPoll(w.watchAll()); err != nil {
		w.log.Error("the vault is not watched in full; changes in it may be seen only at the next start", "err", err)
		w.trouble(fmt.Sprintf("part of the vault is not watched (%v); changes there are noticed at the next start", err))
	} else if w.poll.ticker == nil {
		w.trouble("") // watched in full again
	}
	w.outbox.push(Change{Op: Rescan})
}

// lose handles the vault folder itself moved away or removed: it stops watching, says so once,
// and looks for the folder at every tick of the polling clock (see lookForVault). What is
// pending names paths the vault no longer has; the Rescan sent when the folder is back covers
// them.
func (w *Watcher) lose() {
	before := w.Noticing()
	w.lost = &before
	for f := range w.folders {
		_ = w.fsw.Remove(w.abs(f)) // only a Watcher with events watches folders
	}
	clear(w.folders)
	clear(w.cost)
	w.watches = 0
	w.pending = newDebouncer(w.pending.window)
	w.outbox = outbox{paths: make(map[string]bool)}
	w.log.Warn("the vault folder was moved or removed; changes are not noticed until it is back", "dir", w.dir)
	w.poll.mu.Lock()
	defer w.poll.mu.Unlock()
	w.poll.now = Noticing{Trouble: "the vault folder was moved away or removed; changes are noticed again once it is back where it was"}
	if w.poll.ticker == nil {
		w.poll.ticker = time.NewTicker(w.poll.quick)
	} else {
		w.poll.ticker.Reset(w.poll.quick)
	}
	w.poll.tick = w.poll.quick
}

// lookForVault checks whether the vault folder is back where it was. The same folder (moved
// away and back) is watched again as before, and a Rescan asks the consumer to compare its
// index with the disk. Another folder at the same path is not the one this Watcher, and the
// server's vault.Vault, hold open: that takes a restart, and the log and Noticing say so.
func (w *Watcher) lookForVault() {
	there, err := os.Stat(w.dir)
	if err != nil || !there.IsDir() {
		return
	}
	held, err := w.root.Stat(".")
	if err != nil || !os.SameFile(there, held) {
		if n := w.Noticing(); !strings.Contains(n.Trouble, "another folder") {
			w.log.Error("another folder now stands where the vault folder was; restart the server to serve it", "dir", w.dir)
			w.trouble("another folder now stands where the vault folder was; restart the server to serve it")
		}
		return
	}
	before := *w.lost
	w.log.Info("the vault folder is back; watching it again", "dir", w.dir)
	defer func() { w.lost = nil }() // after startPolling, which then leaves what changed to the Rescan
	var err2 error
	if before.Mode == Poll {
		err2 = w.startPolling(before.Why)
	} else {
		w.poll.mu.Lock()
		w.poll.ticker.Stop()
		w.poll.ticker, w.poll.tick = nil, 0
		w.poll.now = Noticing{Mode: Events}
		w.poll.mu.Unlock()
		err2 = w.eventsOrPoll(w.watchAll())
	}
	if err2 != nil {
		w.log.Error("the vault is not watched in full; changes in it may be seen only at the next start", "err", err2)
		w.trouble(fmt.Sprintf("part of the vault is not watched (%v); changes there are noticed at the next start", err2))
	}
	w.outbox.push(Change{Op: Rescan})
}

// trouble records why changes may go unnoticed, for Noticing, or "" once they no longer may.
func (w *Watcher) trouble(why string) {
	w.poll.mu.Lock()
	defer w.poll.mu.Unlock()
	w.poll.now.Trouble = why
}

// watchAll watches every folder of the vault afresh and lists its notes.
func (w *Watcher) watchAll() error {
	// A folder renamed while events were lost is still watched under its old path; start
	// clean. Events in the moment between are covered by the rescan that follows.
	for f := range w.folders {
		_ = w.fsw.Remove(w.abs(f))
	}
	clear(w.folders)
	clear(w.notes)
	clear(w.cost)
	w.links.clear()
	w.watches = 0
	return w.scan(".", func(note string) { w.notes[note] = true })
}

// abs turns a vault-relative path into one on disk.
func (w *Watcher) abs(rel string) string {
	return filepath.Join(w.dir, filepath.FromSlash(rel))
}

// An outbox holds settled changes until the consumer takes them, so that a slow consumer
// never keeps the Watcher from reading events. It holds at most one change per path.
type outbox struct {
	queue []Change
	paths map[string]bool
}

// push adds c, unless a change for its path already waits (a Rescan, whose path is empty).
func (o *outbox) push(c Change) {
	if o.paths[c.Path] {
		return
	}
	o.paths[c.Path] = true
	o.queue = append(o.queue, c)
}

func (o *outbox) peek() (Change, bool) {
	if len(o.queue) == 0 {
		return Change{}, false
	}
	return o.queue[0], true
}

func (o *outbox) pop() {
	delete(o.paths, o.queue[0].Path)
	o.queue = o.queue[1:]
}

// drop takes back the change for p, if one waits.
func (o *outbox) drop(p string) {
	if !o.paths[p] {
		return
	}
	delete(o.paths, p)
	o.queue = slices.DeleteFunc(o.queue, func(c Change) bool { return c.Path == p })
}
