package watch

import (
	"cmp"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"vaultmcp/shared/vault"
)

// Mode says how a Watcher notices changes.
type Mode string

const (
	// Auto uses the system's file events, and polls instead when they cannot be had: the
	// vault needs more watches than the process can spare, adding one fails, or the vault is
	// on a file system that does not report changes made elsewhere.
	Auto Mode = "auto"
	// Events uses file events only, and fails where they cannot be had.
	Events Mode = "events"
	// Poll compares every note's size and modification time with the last pass, over and
	// over: for file systems that send no events (network mounts, a Windows disk seen from
	// WSL 2), or by choice.
	Poll Mode = "poll"
)

// ParseMode reads a Mode from its name, as a flag or a setting gives it.
func ParseMode(name string) (Mode, error) {
	switch m := Mode(name); m {
	case Auto, Events, Poll:
		return m, nil
	}
	return "", fmt.Errorf("unknown watch mode %q: use auto, events or poll", name)
}

// Polling's pace. A full pass walks the vault and stats every note. In between, a quick pass
// stats the folders and the notes that changed lately (hot for hotFor). A note made, deleted
// or renamed changes its folder's time, and so does an editor's save through a temporary
// file: the quick pass then lists that folder again and stats its notes (a folder pass),
// rather than the whole vault. An edit in place to a note being worked on is seen by the
// quick pass. Only the first edit in place of a note left alone for an hour waits for the next
// full pass.
//
// Each kind of pass is paced by the time it took the last time, so that polling stays within
// one percent of one core however large the vault, however warm the file cache and however
// often notes are saved: full passes get 1/fullShare of a core (0.4%: at 50,000 notes, a
// quarter of a second every minute), folder passes as much again (a folder of 100 notes takes
// a millisecond, so they run at every quick pass; one folder holding a whole vault waits as a
// full pass does), and quick passes 1/quickShare (0.1%: 100 folders take a quarter of a
// millisecond).
const (
	fullShare    = 250
	quickShare   = 1000
	minPollEvery = 2 * time.Second
	maxPollEvery = 5 * time.Minute
	quickEvery   = 2 * time.Second // the least time between two quick passes
	hotFor       = time.Hour
)

// paced is the time to wait after a pass that took took, for passes to take 1/share of a
// core, kept within least and most.
func paced(took time.Duration, share int, least, most time.Duration) time.Duration {
	wait := time.Duration(share) * took
	return min(max(wait.Round(time.Second), least), most) // whole seconds read better in a log
}

// Noticing says how a Watcher notices changes, for a status report.
type Noticing struct {
	Mode  Mode          // Events or Poll: what it does now; "" when it notices nothing (see Trouble)
	Every time.Duration // between two full passes when polling; 0 with events
	Quick time.Duration // between two quick passes when polling; 0 with events
	Why   string        // why it polls; "" with events
	// Trouble says why changes may go unnoticed, in words for the user: the vault folder is
	// gone from its path, part of the vault could not be watched, a pass failed, or the
	// Watcher stopped. "" while every change is noticed.
	Trouble string
}

func (n Noticing) String() string {
	switch n.Mode {
	case Events:
		return "file events"
	case Poll:
		return fmt.Sprintf("polling every %v (folders and recent edits every %v): %s", n.Every, n.Quick, n.Why)
	}
	return "none"
}

// polling is the state of a Watcher that polls.
type polling struct {
	mu     sync.Mutex // guards now, ticker and tick, which Noticing and Close use from other goroutines
	now    Noticing
	ticker *time.Ticker  // nil while events are used; only Run's goroutine sets it after New
	tick   time.Duration // the ticker's period: the shorter of the two intervals

	stamps      map[string]vault.Stamp     // the notes at the last look
	byFolder    map[string]map[string]bool // the same notes, by folder, for a folder pass
	racy        map[string][32]byte        // notes whose Stamp was racy at the last look, and their content's hash
	folders     map[string]time.Time       // every folder and its time, at the last look
	hot         map[string]time.Time       // notes that changed lately, and when
	lastFull    time.Time
	nextFolders time.Time     // the earliest time for the next folder pass
	quick       time.Duration // the least time between two quick passes: quickEvery
	rereading   time.Duration // spent reading racy notes, in all: see sum
}

// Noticing says how the Watcher notices changes now. It is safe to call at any time.
func (w *Watcher) Noticing() Noticing {
	w.poll.mu.Lock()
	defer w.poll.mu.Unlock()
	return w.poll.now
}

// cannotWatch reports whether err from adding a watch, or from starting a watcher, means the
// system has no more to give: descriptors (EMFILE, ENFILE: kqueue holds one for every file,
// and inotify_init says EMFILE when the user's inotify instances are used up) or inotify
// watches (ENOSPC).
func cannotWatch(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) || errors.Is(err, syscall.ENOSPC)
}

// startPolling stops watching with events and polls the whole vault instead. It says so
// once, with the reason and the interval, which the time of this first pass sets.
func (w *Watcher) startPolling(why string) error {
	for f := range w.folders {
		_ = w.fsw.Remove(w.abs(f)) // only a Watcher with events watches folders
	}
	clear(w.folders)
	start := time.Now()
	stamps, folders, err := w.snapshot(".")
	if err != nil {
		return err
	}
	pass := time.Since(start)
	w.poll.folders, w.poll.lastFull = folders, start
	w.poll.stamps, w.poll.byFolder = make(map[string]vault.Stamp, len(stamps)), map[string]map[string]bool{}
	w.poll.hot, w.poll.racy = map[string]time.Time{}, map[string][32]byte{}
	for p, s := range stamps {
		w.remember(p, s, start)
	}
	if w.running.Load() && w.lost == nil {
		// Turned to polling while running: a note that came or went since the last event
		// is a change, which no event will report now. (A vault folder back from elsewhere
		// gets a Rescan instead.)
		for p := range stamps {
			if !w.notes[p] {
				w.pend(p)
			}
		}
		for p := range w.notes {
			if _, ok := stamps[p]; !ok {
				w.pend(p)
			}
		}
	}
	clear(w.notes)
	for p := range stamps {
		w.notes[p] = true
	}
	w.poll.mu.Lock()
	if w.poll.ticker == nil {
		w.poll.ticker = time.NewTicker(w.poll.quick)
	}
	w.poll.now = Noticing{Mode: Poll, Quick: w.poll.quick, Why: why}
	w.poll.mu.Unlock()
	w.pace(pass, 0)
	n := w.Noticing()
	// Asked for, it is news; forced by the system, it is a warning: edits show seconds late.
	level := slog.LevelWarn
	if w.mode == Poll {
		level = slog.LevelInfo
	}
	w.log.Log(context.Background(), level, "not using file events: "+why+"; polling the vault instead",
		"every", n.Every, "quick_every", n.Quick, "pass", pass.Round(time.Millisecond), "notes", len(stamps))
	return nil
}

// ticks is the polling clock, or nil (never) while events are used.
func (w *Watcher) ticks() <-chan time.Time {
	if w.poll.ticker == nil {
		return nil
	}
	return w.poll.ticker.C
}

// pollOnce runs a full pass when one is due. Otherwise it passes over the folders whose time
// says that notes were made, removed, renamed or saved through a temporary file in them, when
// folder passes are due, and looks at the notes that changed lately. Then it sets the time to
// the next pass from the time this one took.
func (w *Watcher) pollOnce() {
	start, reread := time.Now(), w.poll.rereading
	// took is the time since began, less the time spent rereading racy notes meanwhile.
	took := func(began time.Time) time.Duration {
		return time.Since(began) - (w.poll.rereading - reread)
	}
	if !w.vaultThere() {
		w.lose()
		return
	}
	if start.Sub(w.poll.lastFull) >= w.Noticing().Every {
		w.fullPass(start)
		w.pace(took(start), 0)
		return
	}
	var folderPasses time.Duration
	if changed := w.changedFolders(); len(changed) > 0 && !start.Before(w.poll.nextFolders) {
		began := time.Now()
		for _, f := range changed {
			w.folderPass(f, start)
		}
		folderPasses = took(began)
		w.poll.nextFolders = began.Add(min(fullShare*folderPasses, maxPollEvery))
		reread = w.poll.rereading
	}
	began := time.Now()
	w.quickPass(start)
	w.pace(0, took(began))
}

// vaultThere reports whether the vault folder is still where it was: polling goes through the
// folder held open, which follows it wherever it is moved.
func (w *Watcher) vaultThere() bool {
	there, err := os.Stat(w.dir)
	if err != nil {
		return false
	}
	held, err := w.root.Stat(".")
	return err == nil && os.SameFile(there, held)
}

// pace sets the time between two full passes from the time the last full one took, and
// between two quick passes from the last quick one (0: unchanged), unless PollEvery fixed it.
func (w *Watcher) pace(full, quick time.Duration) {
	w.poll.mu.Lock()
	defer w.poll.mu.Unlock()
	n := &w.poll.now
	// A clock too coarse to time a tiny vault's pass (Windows ticks in half milliseconds) gives
	// 0; the first pass sets an interval all the same, which paced keeps at least minPollEvery.
	if full > 0 || n.Every == 0 {
		n.Every = cmp.Or(w.pollEvery, paced(full, fullShare, minPollEvery, maxPollEvery))
	}
	if quick > 0 {
		n.Quick = paced(quick, quickShare, w.poll.quick, maxPollEvery)
	}
	if tick := min(n.Quick, n.Every); tick != w.poll.tick {
		w.poll.ticker.Reset(tick)
		w.poll.tick = tick
	}
}

// quickPass looks again at the notes that changed within hotFor, and at those whose Stamp was
// racy at the last look.
func (w *Watcher) quickPass(now time.Time) {
	for p, at := range w.poll.hot {
		if now.Sub(at) > hotFor {
			delete(w.poll.hot, p)
			continue
		}
		w.look(p, now)
	}
	// Left out of the pace, as sum is: see there.
	began, before := time.Now(), w.poll.rereading
	for p := range w.poll.racy {
		if _, hot := w.poll.hot[p]; !hot {
			w.look(p, now)
		}
	}
	w.poll.rereading = before + time.Since(began) // the sums within included once
}

// look stats the note at p and compares it with the last look.
func (w *Watcher) look(p string, now time.Time) {
	s, ok := w.stampOf(p, nil)
	w.compare(p, s, ok, now)
}

// compare holds the note at p until it is quiet when its Stamp s differs from the last look
// (ok false: it is gone), or when the last look's Stamp was racy and its content has changed
// since: a second write within the same tick of the file system's clock leaves the Stamp as
// it was (see vault.Stamp.Racy).
func (w *Watcher) compare(p string, s vault.Stamp, ok bool, now time.Time) {
	old, had := w.poll.stamps[p]
	sum, racy := w.poll.racy[p]
	switch {
	case !ok:
		delete(w.poll.racy, p)
		if had {
			delete(w.poll.stamps, p)
			if notes := w.poll.byFolder[path.Dir(p)]; notes != nil {
				delete(notes, p)
			}
			w.changedByPolling(p, now)
		}
		return
	case !had || !old.Same(s):
		w.changedByPolling(p, now)
	case !racy:
		return // unchanged, as most notes are at most passes: nothing to write down
	case sum != w.sum(p):
		w.changedByPolling(p, now)
	}
	w.remember(p, s, now)
}

// remember records the Stamp s of the note at p, seen at now, and the hash of its content
// while s is racy.
func (w *Watcher) remember(p string, s vault.Stamp, now time.Time) {
	if _, had := w.poll.stamps[p]; !had {
		folder := path.Dir(p)
		if w.poll.byFolder[folder] == nil {
			w.poll.byFolder[folder] = map[string]bool{}
		}
		w.poll.byFolder[folder][p] = true
	}
	w.poll.stamps[p] = s
	if s.Racy(now) {
		w.poll.racy[p] = w.sum(p)
	} else {
		delete(w.poll.racy, p)
	}
}

// sum hashes the content of the note at p; a note that cannot be read gives the zero sum,
// which differs from any content's. The time it takes is left out of the passes' pace: it is
// work that changes bring, a read for each note changed within the last moments, as the
// consumer's own reindexing is, and a vault just written whole (a clone, an unpacked backup)
// must not slow polling down for minutes after.
func (w *Watcher) sum(p string) [32]byte {
	start := time.Now()
	defer func() { w.poll.rereading += time.Since(start) }()
	f, err := w.root.FS().Open(p)
	if err != nil {
		return [32]byte{}
	}
	defer f.Close()
	h := sha256.New()
	// No more than a note may hold: a larger file is refused by the reader anyway.
	if _, err := io.Copy(h, io.LimitReader(f, vault.MaxNoteSize+1)); err != nil {
		return [32]byte{}
	}
	return [32]byte(h.Sum(nil))
}

// changedFolders returns the folders whose time differs from the last look, or that are
// gone, parents before their children.
func (w *Watcher) changedFolders() []string {
	var changed []string
	for f, at := range w.poll.folders {
		info, err := w.root.Stat(filepath.FromSlash(f))
		if err != nil || !info.ModTime().Equal(at) {
			changed = append(changed, f)
		}
	}
	slices.Sort(changed)
	return changed
}

// fullPass compares every note on disk with the last look, and holds every note that
// appeared, went or changed until it is quiet, as an event would. A folder moved shows as its
// notes gone from one place and new in another.
func (w *Watcher) fullPass(now time.Time) {
	stamps, folders, err := w.snapshot(".")
	if err != nil {
		w.log.Error("polling the vault failed; trying again at the next pass", "err", err)
		w.trouble(fmt.Sprintf("polling the vault failed (%v); it is tried again at every pass", err))
		return
	}
	w.trouble("")
	for p := range w.poll.stamps {
		if _, ok := stamps[p]; !ok {
			w.compare(p, vault.Stamp{}, false, now)
		}
	}
	for p, s := range stamps {
		w.compare(p, s, true, now)
	}
	w.poll.folders, w.poll.lastFull = folders, now
}

// folderPass looks again at folder f, whose time changed: it compares the notes in it with
// the last look, lists any folder new in it whole, and drops any folder gone from it, so that
// what a person does in one folder costs that folder, not the vault.
func (w *Watcher) folderPass(f string, now time.Time) {
	info, err := w.root.Stat(filepath.FromSlash(f))
	if err != nil || !info.IsDir() {
		w.dropFolder(f, now)
		return
	}
	entries, err := fs.ReadDir(w.root.FS(), f)
	if err != nil {
		return // tried again at the next pass, or seen by the next full one
	}
	w.poll.folders[f] = info.ModTime()
	here := map[string]bool{}
	for _, d := range entries {
		p := path.Join(f, d.Name())
		switch {
		case !w.visible(p):
		case d.IsDir():
			here[p] = true
			if _, known := w.poll.folders[p]; !known {
				// New here: made, moved in, or the new name of a renamed one.
				stamps, folders, err := w.snapshot(p)
				if err != nil {
					continue
				}
				maps.Copy(w.poll.folders, folders)
				for q, s := range stamps {
					w.compare(q, s, true, now)
				}
			}
		case w.isNote(p):
			here[p] = true
			s, ok := w.stampOf(p, d)
			w.compare(p, s, ok, now)
		}
	}
	for p := range w.poll.byFolder[f] {
		if !here[p] {
			w.compare(p, vault.Stamp{}, false, now)
		}
	}
	for g := range w.poll.folders {
		if g != f && path.Dir(g) == f && !here[g] {
			w.dropFolder(g, now)
		}
	}
}

// dropFolder forgets folder f and the folders below it, gone from the disk, and every note
// they held is a change.
func (w *Watcher) dropFolder(f string, now time.Time) {
	prefix := f + "/"
	for g := range w.poll.folders {
		if g == f || strings.HasPrefix(g, prefix) {
			delete(w.poll.folders, g)
			delete(w.poll.byFolder, g)
		}
	}
	for p := range w.poll.stamps {
		if strings.HasPrefix(p, prefix) {
			w.compare(p, vault.Stamp{}, false, now)
		}
	}
}

// changedByPolling holds p until it is quiet, as an event would, and keeps an eye on it in
// the quick passes.
func (w *Watcher) changedByPolling(p string, now time.Time) {
	w.poll.hot[p] = now
	w.pend(p)
}

// stampOf stats the note at p, through a link if it is one (d, when not nil, is its entry in
// its folder's listing, which spares a stat for a plain file), and reports whether it is a
// note: a regular file, or a link to one inside the vault.
func (w *Watcher) stampOf(p string, d fs.DirEntry) (vault.Stamp, bool) {
	var info fs.FileInfo
	var err error
	if d != nil && d.Type().IsRegular() {
		info, err = d.Info()
	} else {
		info, err = fs.Stat(w.root.FS(), p) // a link's target, inside the vault
	}
	if err != nil || !info.Mode().IsRegular() {
		return vault.Stamp{}, false
	}
	return vault.StampOf(info), true
}

// snapshot lists every note under the folder top ("." for the vault) with its Stamp, as
// vault.NoteInfos does, and every folder with its time.
func (w *Watcher) snapshot(top string) (map[string]vault.Stamp, map[string]time.Time, error) {
	stamps, folders := map[string]vault.Stamp{}, map[string]time.Time{}
	err := fs.WalkDir(w.root.FS(), top, func(p string, d fs.DirEntry, err error) error {
		switch {
		case p == top && err != nil:
			return err
		case err != nil:
			return fs.SkipDir // unreadable, or gone while we looked
		case p != "." && !w.visible(p):
			if d.IsDir() {
				return fs.SkipDir
			}
		case d.IsDir():
			if info, err := d.Info(); err == nil {
				folders[p] = info.ModTime()
			}
		case w.isNote(p):
			if s, ok := w.stampOf(p, d); ok {
				stamps[p] = s
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("listing the vault's notes: %w", err)
	}
	return stamps, folders, nil
}
