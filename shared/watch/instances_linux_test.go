package watch

import (
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/fsnotify/fsnotify"
)

// TestAutoPollsWhenInotifyIsUsedUp takes away every inotify instance, as a user whose other
// programs hold the 128 that fs.inotify.max_user_instances allows by default: the kernel then
// refuses inotify_init, and an Auto Watcher must poll, and say why. It runs in a child process
// in a user namespace of its own, whose limit (/proc/sys/user/max_inotify_instances) it may set
// to 0 without touching the limit of any other program on the machine.
func TestAutoPollsWhenInotifyIsUsedUp(t *testing.T) {
	const childEnv = "WATCH_NO_INOTIFY_CHILD"
	if os.Getenv(childEnv) == "" {
		t.Parallel()
		cmd := exec.Command(os.Args[0], "-test.run=^TestAutoPollsWhenInotifyIsUsedUp$", "-test.v")
		cmd.Env = append(os.Environ(), childEnv+"=1")
		cmd.SysProcAttr = &syscall.SysProcAttr{
			Cloneflags:  syscall.CLONE_NEWUSER,
			UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}},
			GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}},
		}
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		switch {
		case err != nil && !errors.As(err, &exit):
			t.Skipf("cannot start a process in a user namespace of its own here (%v); the test that injects the failure covers the rest", err)
		case strings.Contains(string(out), "--- SKIP"):
			t.Skipf("the child skipped:\n%s", out)
		case err != nil || !strings.Contains(string(out), "--- PASS: TestAutoPollsWhenInotifyIsUsedUp"):
			t.Fatalf("the child without inotify instances: %v\n%s", err, out)
		}
		return
	}

	if err := os.WriteFile("/proc/sys/user/max_inotify_instances", []byte("0"), 0); err != nil {
		t.Skipf("cannot lower the namespace's limit of inotify instances: %v", err)
	}
	if fsw, err := fsnotify.NewWatcher(); err == nil {
		fsw.Close()
		t.Fatal("with no inotify instance allowed, fsnotify.NewWatcher still succeeds")
	}
	v := newTestVault(t, testDebounce, "Old.md", "Folder/a.md", "Folder/Sub/b.md")
	v.mkdirAll("Moved")
	v.opts = Options{PollEvery: testPollEvery}
	v.watch()
	n := v.w.Noticing()
	want := regexp.MustCompile(`^the system refused a file watcher \(.*too many open files\): .*fs\.inotify\.max_user_instances`)
	if n.Mode != Poll || !want.MatchString(n.Why) {
		t.Errorf("Noticing() = %+v, want polling, because the system refused a watcher", n)
	}
	changesByPolling(t, v)
}
