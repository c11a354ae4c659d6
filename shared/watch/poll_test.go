package watch

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// testPollEvery keeps polling tests quick; a real interval is seconds.
const testPollEvery = 100 * time.Millisecond

// changesByPolling runs the changes of a person's day against a Watcher that polls, and
// checks that each comes out as events would give it.
func changesByPolling(t *testing.T, v *testVault) {
	t.Helper()
	v.quiet()
	v.write("New.md", "# New")
	v.expect(updated("New.md"))
	v.write("New.md", "# New, edited")
	v.expect(updated("New.md"))
	v.rename("New.md", "Renamed.md")
	v.expect(removed("New.md"), updated("Renamed.md"))
	v.removeAll("Renamed.md")
	v.expect(removed("Renamed.md"))
	v.rename("Folder", "Moved/Folder")
	v.expect(removed("Folder/a.md"), removed("Folder/Sub/b.md"), updated("Moved/Folder/a.md"), updated("Moved/Folder/Sub/b.md"))
	v.write(".obsidian/workspace.md", "not a note")
	v.write("Moved/Folder/image.png", "not a note")
	v.quiet()
}

func TestPolling(t *testing.T) {
	t.Parallel()
	v := newTestVault(t, testDebounce, "Old.md", "Folder/a.md", "Folder/Sub/b.md")
	v.mkdirAll("Moved")
	v.opts = Options{Mode: Poll, PollEvery: testPollEvery}
	v.watch()
	if n := v.w.Noticing(); n.Mode != Poll || n.Every != testPollEvery || n.Why != "polling was asked for" {
		t.Errorf("Noticing() = %+v, want polling every %v, as asked", n, testPollEvery)
	}
	changesByPolling(t, v)
}

// TestAutoPollsWhenRefused: a watch the system refuses (EMFILE: no descriptor left) turns an
// Auto watcher to polling, and every change still comes out.
func TestAutoPollsWhenRefused(t *testing.T) {
	t.Parallel()
	v := newTestVault(t, testDebounce, "Old.md", "Folder/a.md", "Folder/Sub/b.md")
	v.mkdirAll("Moved")
	var added atomic.Int32
	v.opts = Options{PollEvery: testPollEvery, add: func(string) error {
		if added.Add(1) > 2 {
			return fmt.Errorf("add: %w", syscall.EMFILE)
		}
		return nil
	}}
	v.watch()
	if n := v.w.Noticing(); n.Mode != Poll || !strings.Contains(n.Why, "the system refused a watch") {
		t.Errorf("Noticing() = %+v, want polling because a watch was refused", n)
	}
	changesByPolling(t, v)
}

// TestEventsDoesNotPoll: with Events, a refused watch fails, as it did before polling.
func TestEventsDoesNotPoll(t *testing.T) {
	t.Parallel()
	v := newTestVault(t, testDebounce, "Folder/a.md")
	_, err := New(v.dir, Options{Mode: Events, add: func(string) error { return syscall.ENOSPC }})
	if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "fs.inotify.max_user_watches") {
		t.Errorf("New with Events and a refused watch: %v, want the error and what to raise", err)
	}
	if _, err := New(v.dir, Options{Mode: "sometimes"}); err == nil {
		t.Error("New with an unknown mode: no error")
	}
}

// TestPollingQuickPasses: between two full passes, a quick pass sees what a person does: a
// note made, renamed or deleted (its folder's time changes), and every edit of a note that
// changed lately. The first edit of a note left alone waits for the next full pass.
func TestPollingQuickPasses(t *testing.T) {
	t.Parallel()
	v := newTestVault(t, testDebounce, "Old.md", "Folder/a.md")
	v.opts = Options{Mode: Poll, PollEvery: time.Hour, quick: testPollEvery}
	v.watch()
	v.quiet()
	v.write("Folder/New.md", "# New")
	v.expect(updated("Folder/New.md"))
	v.write("Folder/New.md", "# New, edited")
	v.expect(updated("Folder/New.md"))
	v.write("Folder/New.md", "# New, edited again")
	v.expect(updated("Folder/New.md"))
	v.rename("Folder/New.md", "Folder/Renamed.md")
	v.expect(removed("Folder/New.md"), updated("Folder/Renamed.md"))
	v.removeAll("Folder/Renamed.md")
	v.expect(removed("Folder/Renamed.md"))
	v.write("Old.md", "# Old, edited in place, unseen until the next full pass")
	v.quiet()
}

// TestPollingPace: each kind of pass waits a multiple of the time it last took, within
// bounds, so polling's share of a core holds as the vault grows or the file cache cools. An
// interval asked for (PollEvery) stays as asked. The Watchers do not run, so that only the
// passes the test describes set the pace.
func TestPollingPace(t *testing.T) {
	t.Parallel()
	polling := func(opts Options) *Watcher {
		w, err := New(newTestVault(t, testDebounce, "Old.md").dir, opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { w.Close() })
		return w
	}
	w := polling(Options{Mode: Poll})
	for _, c := range []struct {
		full, quick time.Duration
		want        Noticing
	}{
		{full: 52 * time.Millisecond, want: Noticing{Every: 13 * time.Second, Quick: quickEvery}},
		{full: 240 * time.Millisecond, want: Noticing{Every: time.Minute, Quick: quickEvery}},
		{quick: 10 * time.Millisecond, want: Noticing{Every: time.Minute, Quick: 10 * time.Second}},
		{full: time.Microsecond, quick: time.Microsecond, want: Noticing{Every: minPollEvery, Quick: quickEvery}},
		{full: 3 * time.Second, want: Noticing{Every: maxPollEvery, Quick: quickEvery}},
	} {
		w.pace(c.full, c.quick)
		if n := w.Noticing(); n.Every != c.want.Every || n.Quick != c.want.Quick {
			t.Errorf("after a full pass of %v and a quick one of %v: every %v, quick every %v; want %v and %v",
				c.full, c.quick, n.Every, n.Quick, c.want.Every, c.want.Quick)
		}
	}
	if got, want := w.Noticing().String(), "polling every 5m0s (folders and recent edits every 2s): polling was asked for"; got != want {
		t.Errorf("Noticing().String() = %q, want %q", got, want)
	}

	// A first pass too quick for the clock to time still sets an interval.
	quick := polling(Options{Mode: Poll})
	quick.poll.now.Every = 0
	quick.pace(0, 0)
	if n := quick.Noticing(); n.Every != minPollEvery {
		t.Errorf("after a first pass timed at 0: every %v, want %v", n.Every, minPollEvery)
	}

	asked := polling(Options{Mode: Poll, PollEvery: 7 * time.Second})
	asked.pace(time.Second, 0)
	if n := asked.Noticing(); n.Every != 7*time.Second {
		t.Errorf("with PollEvery 7s, after a pass of 1s: every %v", n.Every)
	}
}

func TestParseMode(t *testing.T) {
	for _, name := range []string{"auto", "events", "poll"} {
		if m, err := ParseMode(name); err != nil || string(m) != name {
			t.Errorf("ParseMode(%q) = %q, %v", name, m, err)
		}
	}
	for _, name := range []string{"", "bogus", "Poll"} {
		if _, err := ParseMode(name); err == nil || !strings.Contains(err.Error(), "auto, events or poll") {
			t.Errorf("ParseMode(%q) = %v; want an error naming the modes", name, err)
		}
	}
}
