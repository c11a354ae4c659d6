//go:build unix

package transcript

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRestartRecipe follows chapter 10's "A restart over an edited vault" as a reader does,
// through make step: step 10 on a fresh copy of the sample vault, the chapter's edits while it
// is off, pasted at once, then two starts on the edited copy, each at once. The summary line
// each start logs must hold the counts the chapter quotes.
func TestRestartRecipe(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	root, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	chapter, err := os.ReadFile(filepath.Join(root, "guide", "10-reconcile.md"))
	if err != nil {
		t.Fatal(err)
	}
	section := string(chapter)
	if i := strings.Index(section, "### A restart over an edited vault"); i >= 0 {
		section = section[i:]
	} else {
		t.Fatal(`guide/10-reconcile.md has no section "A restart over an edited vault"; keep the recipe and this test together`)
	}
	edits := regexp.MustCompile("(?s)```sh\n(mv .*?)```").FindStringSubmatch(section)
	text := strings.Join(strings.Fields(section), " ")
	afterEdits := regexp.MustCompile("The summary line counts[^`]*`(notes=\\d+ embedded=\\d+ sections=\\d+ renamed=\\d+ touched=\\d+ removed=\\d+)`").FindStringSubmatch(text)
	onceMore := regexp.MustCompile("Stop and start once more with the same command: `(embedded=\\d+) … (renamed=\\d+ touched=\\d+ removed=\\d+)`").FindStringSubmatch(text)
	if edits == nil || afterEdits == nil || onceMore == nil {
		t.Fatal("guide/10-reconcile.md no longer shows the edits, or the counts after them, as this test reads them; keep the recipe and this test together")
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, port, _ := net.SplitHostPort(addr)
	copyDir := ".run/vault-" + port // what make step makes for this address
	t.Cleanup(func() { os.RemoveAll(filepath.Join(root, copyDir)) })
	// The index of a test of its own, not the reader's one in the cache directory.
	db := filepath.Join(t.TempDir(), "index.db")

	summary := regexp.MustCompile(`msg="index up to date" (notes=\d+ embedded=\d+ sections=\d+ renamed=\d+ touched=\d+ removed=\d+)`)
	start := func(args ...string) string {
		t.Helper()
		out, err := os.Create(filepath.Join(t.TempDir(), "make.log"))
		if err != nil {
			t.Fatal(err)
		}
		defer out.Close()
		cmd := exec.Command("make", append([]string{"step", "10", "EMBEDDER=offline", "ADDR=" + addr}, args...)...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "VAULTMCP_DB="+db)
		cmd.Stdout, cmd.Stderr = out, out
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		for deadline := time.Now().Add(3 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
			log, _ := os.ReadFile(out.Name())
			if m := summary.FindSubmatch(log); m != nil {
				cmd.Process.Signal(syscall.SIGTERM) // as Ctrl-C stops it
				select {
				case <-exited:
				case <-time.After(30 * time.Second):
					t.Fatalf("make step 10 still runs 30 s after SIGTERM:\n%s", log)
				}
				return string(m[1])
			}
			select {
			case err := <-exited:
				t.Fatalf("make step 10 %s ended before its catch-up summary (%v):\n%s", strings.Join(args, " "), err, log)
			default:
			}
			if time.Now().After(deadline) {
				t.Fatalf("make step 10 %s logged no catch-up summary within 3 minutes:\n%s", strings.Join(args, " "), log)
			}
		}
	}

	start() // on a fresh copy, as chapter 10's "Run it" starts it
	script := strings.ReplaceAll(edits[1], ".run/vault/", copyDir+"/")
	if out, err := exec.Command("sh", "-c", "cd \"$1\" && "+script, "sh", root).CombinedOutput(); err != nil {
		t.Fatalf("chapter 10's edits failed: %v\n%s", err, out)
	}
	// No pause here: a reader pastes the next command at once, so whatever wait the counts
	// need must be in the chapter's commands.
	if got := start("VAULT=" + copyDir); got != afterEdits[1] {
		t.Errorf("after chapter 10's edits, the start logs %s; the chapter says %s", got, afterEdits[1])
	}
	got := start("VAULT=" + copyDir)
	for _, want := range []string{onceMore[1], onceMore[2]} {
		if !strings.Contains(got, want) {
			t.Errorf("started once more, step 10 logs %s; the chapter says %s … %s", got, onceMore[1], onceMore[2])
			break
		}
	}
}
