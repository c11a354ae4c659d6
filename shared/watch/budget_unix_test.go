//go:build unix

package watch

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestDescriptorBudget takes the path a Mac takes with a large vault: files take descriptors
// (kqueue), and the process may open few. It runs in a child process, whose limit
// (RLIMIT_NOFILE) it lowers, as a shell's default of 256 would be.
func TestDescriptorBudget(t *testing.T) {
	if os.Getenv("WATCH_BUDGET_CHILD") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestDescriptorBudget$", "-test.v")
		cmd.Env = append(os.Environ(), "WATCH_BUDGET_CHILD=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestDescriptorBudget") {
			t.Fatalf("the child with a low descriptor limit: %v\n%s", err, out)
		}
		return
	}
	var limit syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &limit); err != nil {
		t.Fatal(err)
	}
	limit.Cur = descriptorReserve + 40 // a budget of 20 watches
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &limit); err != nil {
		t.Skipf("cannot lower the descriptor limit here: %v", err)
	}
	filesTakeDescriptors = true
	var notes []string
	for i := range 30 {
		notes = append(notes, filepath.ToSlash(filepath.Join(fmt.Sprintf("Folder %d", i%3), fmt.Sprintf("Note %d.md", i))))
	}
	v := newTestVault(t, testDebounce, append(notes, "Folder/a.md", "Folder/Sub/b.md")...)
	v.mkdirAll("Moved")
	v.opts = Options{PollEvery: testPollEvery}
	v.watch()
	if n := v.w.Noticing(); n.Mode != Poll || !strings.Contains(n.Why, "more watches than half the 296 file descriptors") {
		t.Errorf("Noticing() = %+v, want polling for want of descriptors", n)
	}
	changesByPolling(t, v)

	// A vault within the budget is watched with events, until new files spend it.
	small := newTestVault(t, testDebounce, "Folder/a.md", "Folder/Sub/b.md")
	small.opts = Options{PollEvery: testPollEvery}
	small.watch()
	if n := small.w.Noticing(); n.Mode != Events {
		t.Fatalf("Noticing() = %+v for a vault within the budget, want events", n)
	}
	var added []Change
	for i := range 20 {
		note := fmt.Sprintf("Folder/New %d.md", i)
		small.write(note, "# New")
		added = append(added, updated(note))
	}
	small.expect(added...)
	if n := small.w.Noticing(); n.Mode != Poll || !strings.Contains(n.Why, "more watches than") {
		t.Errorf("Noticing() = %+v after 20 new files, want polling for want of descriptors", n)
	}
	small.write("Folder/a.md", "# a, edited")
	small.expect(updated("Folder/a.md"))
}
