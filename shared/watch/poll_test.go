package watch

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	"vaultmcp/shared/vault"
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

// TestAutoPollsWithoutAWatcher: when the system refuses a watcher at all (inotify_init's
// EMFILE: the user's inotify instances, or the process's descriptors, are used up), an Auto
// watcher polls, and says why and what to raise. Events fails, as it did before.
func TestAutoPollsWithoutAWatcher(t *testing.T) {
	t.Parallel()
	refuse := func() (*fsnotify.Watcher, error) {
		return nil, fmt.Errorf("couldn't initialize inotify: %w", syscall.EMFILE)
	}
	v := newTestVault(t, testDebounce, "Old.md", "Folder/a.md", "Folder/Sub/b.md")
	v.mkdirAll("Moved")
	v.opts = Options{PollEvery: testPollEvery, newWatcher: refuse}
	v.watch()
	n := v.w.Noticing()
	if n.Mode != Poll || !strings.Contains(n.Why, "the system refused a file watcher (couldn't initialize inotify: too many open files)") {
		t.Errorf("Noticing() = %+v, want polling because the system refused a watcher", n)
	}
	if runtime.GOOS == "linux" && !strings.Contains(n.Why, "fs.inotify.max_user_instances") {
		t.Errorf("Noticing().Why = %q does not say which limit to raise", n.Why)
	}
	changesByPolling(t, v)

	if _, err := New(v.dir, Options{Mode: Events, newWatcher: refuse}); !errors.Is(err, syscall.EMFILE) {
		t.Errorf("New with Events and no watcher to be had: %v, want the error", err)
	}
}

// TestPollMakesNoWatcher: a Watcher asked to poll takes no inotify instance, a resource
// every program of the user shares.
func TestPollMakesNoWatcher(t *testing.T) {
	t.Parallel()
	made := false
	w, err := New(t.TempDir(), Options{Mode: Poll, newWatcher: func() (*fsnotify.Watcher, error) {
		made = true
		return fsnotify.NewWatcher()
	}})
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	if made {
		t.Error("a Watcher that polls made a file watcher")
	}
}

// TestPollingFolderPass: a folder whose time changed is listed again, and only it: a save
// through a temporary file, a new folder and a removed one show within a quick pass, while an
// edit in place to a note nobody touched lately, in a folder where nothing else happens, waits
// for the full pass (which here never comes) and so proves that the vault was not walked.
func TestPollingFolderPass(t *testing.T) {
	t.Parallel()
	v := newTestVault(t, testDebounce, "Quiet/Old.md", "Folder/a.md", "Folder/b.md", "Gone/c.md")
	v.opts = Options{Mode: Poll, PollEvery: time.Hour, quick: testPollEvery}
	v.watch()
	// Left alone long enough that polling no longer keeps its hash (see TestPollingRacyStamp).
	time.Sleep(vault.RacyWindow + 5*testPollEvery)
	v.quiet()
	v.write("Quiet/Old.md", "# Old, edited in place")
	v.write("Folder/b.md.tmp", "# b, saved through a temporary file")
	v.rename("Folder/b.md.tmp", "Folder/b.md")
	v.expect(updated("Folder/b.md"))
	v.write("New/Deeper/d.md", "# d")
	v.expect(updated("New/Deeper/d.md"))
	v.removeAll("Gone")
	v.expect(removed("Gone/c.md"))
	v.rename("New", "Folder/New")
	v.expect(removed("New/Deeper/d.md"), updated("Folder/New/Deeper/d.md"))
	v.quiet() // Old.md's edit is still unseen
}

// TestPollingSeesTimesPutBack: a rewrite of the same size whose time is put back, as touch -r
// and some sync tools do, changes the note's change time, which polling compares too.
func TestPollingSeesTimesPutBack(t *testing.T) {
	t.Parallel()
	v := newTestVault(t, testDebounce, "Note.md")
	if vault.StampOf(statOf(t, v.path("Note.md"))).CTime.IsZero() {
		t.Skip("this system gives no change time with a stat")
	}
	v.opts = Options{Mode: Poll, PollEvery: time.Hour, quick: testPollEvery}
	v.watch()
	v.write("Note.md", "# Note, version 1") // makes the note hot: the quick pass looks at it
	v.expect(updated("Note.md"))
	before := statOf(t, v.path("Note.md"))
	// Until a pass records the note well after its write, polling compares its content at
	// every look (see TestPollingRacyStamp), which would see the rewrite without the change
	// time. Wait for such a pass; this also lets the clock of the change time move on.
	time.Sleep(vault.RacyWindow + 10*testPollEvery)
	v.write("Note.md", "# Note, version 2")
	if err := os.Chtimes(v.path("Note.md"), before.ModTime(), before.ModTime()); err != nil {
		t.Fatal(err)
	}
	v.expect(updated("Note.md"))
}

// TestPollingRacyStamp: a Stamp taken within the racy window of its note's last write may
// hide a second write in the same tick (see vault.Stamp.Racy): polling keeps the hash of such
// a note and compares it at the next look. The Stamps are given, as a clock tick cannot be
// made to order.
func TestPollingRacyStamp(t *testing.T) {
	t.Parallel()
	v := newTestVault(t, testDebounce, "Note.md", "Calm.md")
	v.opts = Options{Mode: Poll, PollEvery: time.Hour}
	w, err := New(v.dir, v.opts)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	pended := func() []string {
		var paths []string
		for p := range w.pending.deadline {
			paths = append(paths, p)
		}
		slices.Sort(paths)
		clear(w.pending.deadline)
		w.pending.queue = nil
		return paths
	}
	now := time.Now()
	stamp := vault.Stamp{Size: 9, MTime: now.Add(-time.Millisecond)}
	w.remember("Note.md", stamp, now)                                   // racy: written a moment before
	w.remember("Calm.md", stamp, now.Add(vault.RacyWindow+time.Second)) // looked at well after its write
	v.write("Note.md", "# changed")                                     // the same Stamp, as within one tick
	v.write("Calm.md", "# changed")
	later := now.Add(time.Second)
	w.compare("Note.md", stamp, true, later)
	w.compare("Calm.md", stamp, true, later)
	if got := pended(); !slices.Equal(got, []string{"Note.md"}) {
		t.Errorf("after a second write hidden by the same Stamp, pending %v, want [Note.md]", got)
	}
	// Once the note's content is known at a Stamp no longer racy, it is not read again.
	w.compare("Note.md", stamp, true, now.Add(time.Hour))
	w.compare("Note.md", stamp, true, now.Add(2*time.Hour))
	if got := pended(); len(got) != 0 {
		t.Errorf("pending %v, want nothing once the Stamp is no longer racy", got)
	}
	if _, racy := w.poll.racy["Note.md"]; racy {
		t.Error("the note's hash is still kept once its Stamp is no longer racy")
	}
}

func statOf(t *testing.T, name string) os.FileInfo {
	t.Helper()
	info, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	return info
}
