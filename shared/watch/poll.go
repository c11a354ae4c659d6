package watch

import (
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

// Polling's pace. A full pass walks the vault and stats every note; the interval between two
// is pollCostShare passes, so full passes take 1/pollCostShare of one core, 0.5%: at 50,000
// notes, half a second every 100 s. In between, every quickEvery, a quick pass stats only the
// folders and the notes that changed lately (hot for hotFor), in well under a millisecond. A
// note made, deleted or renamed changes its folder's time, which sends the quick pass to a
// full one; an edit to a note being worked on is seen by the quick pass. Only the first edit
// of a note left alone for an hour waits for the next full pass.
const (
	pollCostShare = 200
	minPollEvery  = 2 * time.Second
	maxPollEvery  = 5 * time.Minute
	quickEvery    = 2 * time.Second
	hotFor        = time.Hour
)

// Noticing says how a Watcher notices changes, for a status report.
type Noticing struct {
	Mode  Mode          // Events or Poll: what it does now
	Every time.Duration // the polling interval; 0 with events
	Why   string        // why it polls; "" with events
}

func (n Noticing) String() string {
	if n.Mode != Poll {
		return "file events"
	}
	return fmt.Sprintf("polling every %v: %s", n.Every, n.Why)
}

// stamp is what a pass compares: a note whose size or time differ has changed.
type stamp struct {
	size  int64
	mtime time.Time
}

// polling is the state of a Watcher that polls.
type polling struct {
	mu     sync.Mutex // guards now and ticker, which Noticing and Close use from other goroutines
	now    Noticing
	ticker *time.Ticker // nil while events are used; only Run's goroutine sets it after New

	stamps   map[string]stamp     // the notes at the last look
	folders  map[string]time.Time // every folder and its time, at the last full pass
	hot      map[string]time.Time // notes that changed lately, and when
	lastFull time.Time
	quick    time.Duration // between two quick passes: quickEvery
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
// once, with the reason and the interval, which it sets from the time one pass takes.
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
	every := w.pollEvery
	if every == 0 {
		every = min(max(pollCostShare*pass, minPollEvery), maxPollEvery)
	}
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
	w.poll.now = Noticing{Mode: Poll, Every: every, Why: why}
	tick := min(w.poll.quick, every)
	if w.poll.ticker == nil {
		w.poll.ticker = time.NewTicker(tick)
	} else {
		w.poll.ticker.Reset(tick)
	}
	w.poll.mu.Unlock()
	// Asked for, it is news; forced by the system, it is a warning: edits show seconds late.
	level := slog.LevelWarn
	if w.mode == Poll {
		level = slog.LevelInfo
	}
	w.log.Log(context.Background(), level, "not using file events: "+why+"; polling the vault instead",
		"every", every, "pass", pass.Round(time.Millisecond), "notes", len(stamps))
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
// made, removed or renamed in it; otherwise it looks at the notes that changed lately.
func (w *Watcher) pollOnce() {
	now := time.Now()
	if now.Sub(w.poll.lastFull) >= w.Noticing().Every || w.foldersChanged() {
		w.fullPass(now)
		return
	}
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
