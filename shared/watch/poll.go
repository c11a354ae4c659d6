package watch

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"path/filepath"
	"sync"
	"syscall"
	"time"
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
// stats only the folders and the notes that changed lately (hot for hotFor). A note made,
// deleted or renamed changes its folder's time, which sends the quick pass to a full one; an
// edit to a note being worked on is seen by the quick pass. Only the first edit of a note left
// alone for an hour waits for the next full pass.
//
// Each kind of pass is paced by the time it took the last time, so that polling stays under
// half a percent of one core however large the vault and however warm the file cache: full
// passes get 1/fullShare of a core (0.4%: at 50,000 notes, a quarter of a second every
// minute), quick passes 1/quickShare (0.1%: 100 folders take a quarter of a millisecond).
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
	Mode  Mode          // Events or Poll: what it does now
	Every time.Duration // between two full passes when polling; 0 with events
	Quick time.Duration // between two quick passes when polling; 0 with events
	Why   string        // why it polls; "" with events
}

func (n Noticing) String() string {
	if n.Mode != Poll {
		return "file events"
	}
	return fmt.Sprintf("polling every %v (folders and recent edits every %v): %s", n.Every, n.Quick, n.Why)
}

// stamp is what a pass compares: a note whose size or time differ has changed.
type stamp struct {
	size  int64
	mtime time.Time
}

// polling is the state of a Watcher that polls.
type polling struct {
	mu     sync.Mutex // guards now, ticker and tick, which Noticing and Close use from other goroutines
	now    Noticing
	ticker *time.Ticker  // nil while events are used; only Run's goroutine sets it after New
	tick   time.Duration // the ticker's period: the shorter of the two intervals

	stamps   map[string]stamp     // the notes at the last look
	folders  map[string]time.Time // every folder and its time, at the last full pass
	hot      map[string]time.Time // notes that changed lately, and when
	lastFull time.Time
	quick    time.Duration // the least time between two quick passes: quickEvery
}

// Noticing says how the Watcher notices changes now. It is safe to call at any time.
func (w *Watcher) Noticing() Noticing {
	w.poll.mu.Lock()
	defer w.poll.mu.Unlock()
	return w.poll.now
}

// cannotWatch reports whether err from adding a watch means the system has no more to give:
// descriptors (EMFILE, ENFILE: kqueue holds one for every file) or inotify watches (ENOSPC).
func cannotWatch(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) || errors.Is(err, syscall.ENOSPC)
}

// startPolling stops watching with events and polls the whole vault instead. It says so
// once, with the reason and the interval, which the time of this first pass sets.
func (w *Watcher) startPolling(why string) error {
	for f := range w.folders {
		_ = w.fsw.Remove(w.abs(f))
	}
	clear(w.folders)
	start := time.Now()
	stamps, folders, err := w.snapshot()
	if err != nil {
		return err
	}
	pass := time.Since(start)
	w.poll.stamps, w.poll.folders, w.poll.hot, w.poll.lastFull = stamps, folders, map[string]time.Time{}, start
	if w.running.Load() {
		// Turned to polling while running: a note that came or went since the last event
		// is a change, which no event will report now.
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

// pollOnce runs a full pass when one is due, or when a folder's time says that notes were
// made, removed or renamed in it; otherwise it looks at the notes that changed lately. Then it
// sets the time to the next pass from the time this one took.
func (w *Watcher) pollOnce() {
	start := time.Now()
	if start.Sub(w.poll.lastFull) >= w.Noticing().Every || w.foldersChanged() {
		w.fullPass(start)
		w.pace(time.Since(start), 0)
		return
	}
	w.quickPass(start)
	w.pace(0, time.Since(start))
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

// quickPass looks again at the notes that changed within hotFor.
func (w *Watcher) quickPass(now time.Time) {
	for p, at := range w.poll.hot {
		if now.Sub(at) > hotFor {
			delete(w.poll.hot, p)
			continue
		}
		var s stamp // zero: gone
		if info, err := fs.Stat(w.root.FS(), p); err == nil && info.Mode().IsRegular() {
			s = stamp{info.Size(), info.ModTime()}
		}
		if s != w.poll.stamps[p] {
			w.changedByPolling(p, now)
			if s == (stamp{}) {
				delete(w.poll.stamps, p)
			} else {
				w.poll.stamps[p] = s
			}
		}
	}
}

// foldersChanged reports whether any folder's time differs from the last full pass.
func (w *Watcher) foldersChanged() bool {
	for f, at := range w.poll.folders {
		info, err := w.root.Stat(filepath.FromSlash(f))
		if err != nil || !info.ModTime().Equal(at) {
			return true
		}
	}
	return false
}

// fullPass compares every note on disk with the last look, and holds every note that
// appeared, went or changed size or time until it is quiet, as an event would. A folder moved
// shows as its notes gone from one place and new in another.
func (w *Watcher) fullPass(now time.Time) {
	stamps, folders, err := w.snapshot()
	if err != nil {
		w.log.Error("polling the vault failed; trying again at the next pass", "err", err)
		return
	}
	for p, s := range stamps {
		if old, ok := w.poll.stamps[p]; !ok || old != s {
			w.changedByPolling(p, now)
		}
	}
	for p := range w.poll.stamps {
		if _, ok := stamps[p]; !ok {
			w.changedByPolling(p, now)
		}
	}
	w.poll.stamps, w.poll.folders, w.poll.lastFull = stamps, folders, now
}

// changedByPolling holds p until it is quiet, as an event would, and keeps an eye on it in
// the quick passes.
func (w *Watcher) changedByPolling(p string, now time.Time) {
	w.poll.hot[p] = now
	w.pend(p)
}

// snapshot lists every note in the vault with its size and time, as vault.NoteInfos does,
// and every folder with its time.
func (w *Watcher) snapshot() (map[string]stamp, map[string]time.Time, error) {
	stamps, folders := map[string]stamp{}, map[string]time.Time{}
	err := fs.WalkDir(w.root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		switch {
		case p == "." && err != nil:
			return err
		case err != nil:
			return fs.SkipDir // unreadable, or gone while we looked
		case p != "." && !visible(p):
			if d.IsDir() {
				return fs.SkipDir
			}
		case d.IsDir():
			if info, err := d.Info(); err == nil {
				folders[p] = info.ModTime()
			}
		case isNote(p):
			info, err := d.Info()
			if err == nil && !info.Mode().IsRegular() {
				info, err = fs.Stat(w.root.FS(), p) // a link's target, inside the vault
			}
			if err == nil && info.Mode().IsRegular() {
				stamps[p] = stamp{info.Size(), info.ModTime()}
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("listing the vault's notes: %w", err)
	}
	return stamps, folders, nil
}
