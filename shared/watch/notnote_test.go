package watch

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestNotNotes: a path named like a note that comes to hold something else is named for what
// it holds, not reported as removed: a named pipe appearing, and a note replaced by one.
func TestNotNotes(t *testing.T) {
	t.Parallel()
	v := watchVault(t, testDebounce, "Note.md")
	if err := syscall.Mkfifo(v.path("Pipe.md"), 0o644); err != nil {
		t.Skipf("cannot make a named pipe here: %v", err)
	}
	v.expect(Change{Op: NotNote, Path: "Pipe.md", Why: "a named pipe"})
	if err := os.Remove(v.path("Note.md")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(v.path("Note.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	v.expect(Change{Op: NotNote, Path: "Note.md", Why: "a named pipe"})
	if got := (Change{Op: NotNote, Path: "Pipe.md", Why: "a named pipe"}).String(); got != "Pipe.md is not a note: a named pipe" {
		t.Errorf("String() = %q", got)
	}
}

// lockedBuffer collects log lines written from the watcher's goroutine.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestFolderNameEndingInADot: a folder whose name ends in a dot, which Windows drops, is not
// watched, and the log says so and why, whether it was there at the start or appears later;
// a hidden folder is left out without a word.
func TestFolderNameEndingInADot(t *testing.T) {
	t.Parallel()
	v := newTestVault(t, testDebounce, "Drafts./Old.md", ".obsidian/app.json", "Home.md")
	var logs lockedBuffer
	w, err := New(v.dir, Options{Debounce: testDebounce, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go w.Run(ctx, v.changes)
	v.write("Later /New.md", "# new")
	v.write("Home.md", "# seen")
	v.expect(updated("Home.md"))
	for deadline := time.Now().Add(patience); strings.Count(logs.String(), "not watching a folder") < 2; {
		if time.Now().After(deadline) {
			t.Fatalf("the log does not name both folders:\n%s", logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, want := range []string{`folder=Drafts.`, `folder="Later "`, "ends in a dot or a space"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("the log does not say %s:\n%s", want, logs.String())
		}
	}
	if strings.Contains(logs.String(), ".obsidian") {
		t.Errorf("the log names a hidden folder:\n%s", logs.String())
	}
}
