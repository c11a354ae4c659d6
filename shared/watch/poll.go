package watch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"sync"
	"syscall"
	"time"
)

// Mode says how a Watcher notices changes.
type Mode string

const (
	// Auto uses the system's file events, and polls instead when they cannot be had: the
	// vault needs more watches than the process can spare, or adding one fails.
	Auto Mode = "auto"
	// Events uses file events only, and fails where they cannot be had.
	Events Mode = "events"
	// Poll compares every note's size and modification time with the last pass, over and
	// over: for file systems that send no events (network mounts, a Windows disk seen from
	// WSL 2), or by choice.
	Poll Mode = "poll"
)

// Polling's pace: a pass costs what one walk-and-stat of the vault costs, and the interval
// is pollCostShare times that, so polling takes at most 1/pollCostShare of one core: 0.5%.
// A change shows within the interval and the debounce window; for a vault whose pass takes
// longer than 10 ms, that is longer than minPollEvery.
const (
	pollCostShare = 200
	minPollEvery  = 2 * time.Second
	maxPollEvery  = time.Minute
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
	ticker *time.Ticker     // nil while events are used; only Run's goroutine sets it after New
	stamps map[string]stamp // the notes at the last pass
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
	stamps, err := w.stamps()
	if err != nil {
		return err
	}
	pass := time.Since(start)
	every := w.pollEvery
	if every == 0 {
		every = min(max(pollCostShare*pass, minPollEvery), maxPollEvery)
	}
	w.poll.stamps = stamps
	clear(w.notes)
	for p := range stamps {
		w.notes[p] = true
	}
	w.poll.mu.Lock()
	w.poll.now = Noticing{Mode: Poll, Every: every, Why: why}
	if w.poll.ticker == nil {
		w.poll.ticker = time.NewTicker(every)
	} else {
		w.poll.ticker.Reset(every)
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

// pollOnce compares the notes on disk with the last pass, and holds every note that
// appeared, went or changed size or time until it is quiet, as an event would. A folder
// moved shows as its notes gone from one place and new in another.
func (w *Watcher) pollOnce() {
	stamps, err := w.stamps()
	if err != nil {
		w.log.Error("polling the vault failed; trying again at the next pass", "err", err)
		return
	}
	for p, s := range stamps {
		if old, ok := w.poll.stamps[p]; !ok || old != s {
			w.pend(p)
		}
	}
	for p := range w.poll.stamps {
		if _, ok := stamps[p]; !ok {
			w.pend(p)
		}
	}
	w.poll.stamps = stamps
}

// stamps lists every note in the vault with its size and time, as vault.NoteInfos does.
func (w *Watcher) stamps() (map[string]stamp, error) {
	stamps := map[string]stamp{}
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
		return nil, fmt.Errorf("listing the vault's notes: %w", err)
	}
	return stamps, nil
}
