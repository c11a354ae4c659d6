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

// TestKillingMakeStepFreesThePort stops `make step 1` as `kill` does, with SIGTERM to make
// alone, as a reader or an editor's stop button sends it: the server must stop too, and its
// port be free for the next start. make passes SIGTERM on to the command it runs; a recipe
// that ran the step under `go run` would pass it to go run, which does not pass it on, and
// the server would keep the port.
func TestKillingMakeStepFreesThePort(t *testing.T) {
	root := rootWithMake(t)
	addr, _ := freeAddr(t, root)
	m := startMakeStep(t, root, nil, "step", "1", "ADDR="+addr)

	if err := m.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-m.exited:
	case <-time.After(30 * time.Second):
		t.Fatalf("make step 1 still runs 30 s after SIGTERM:\n%s", m.log())
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			return // the port is free
		}
		conn.Close()
		if time.Now().After(deadline) {
			t.Fatalf("make is gone, but something still listens on %s 10 s later: the server outlived make, and holds the port\n%s",
				addr, m.log())
		}
	}
}

// TestMakeStepCopiesAfreshWithThePastingVariable: chapter 8 has the reader export a variable
// naming the copy `make step` serves, so that the transcript's commands can be pasted by hand.
// The next `make step` must still serve a fresh copy of the sample vault, which chapters 9 and
// 10 rely on: the variable must be one the Makefile does not read. (VAULT, which it does read,
// had it serve the folder as the last run left it.)
func TestMakeStepCopiesAfreshWithThePastingVariable(t *testing.T) {
	root := rootWithMake(t)
	chapter, err := os.ReadFile(filepath.Join(root, "guide", "08-watch.md"))
	if err != nil {
		t.Fatal(err)
	}
	export := regexp.MustCompile("`export (\\w+)=\\.run/vault`").FindSubmatch(chapter)
	if export == nil {
		t.Fatal("guide/08-watch.md no longer exports a variable naming .run/vault for pasting the transcript; keep the chapter and this test together")
	}
	if name := string(export[1]); name != VaultVar {
		t.Errorf("guide/08-watch.md exports %s for the transcript's commands, which read $%s", name, VaultVar)
	}

	// The copy make step makes for this address, named as the chapter names the reader's, and
	// left as a pasted transcript leaves it: with a note the sample vault does not have.
	addr, copyDir := freeAddr(t, root)
	leftOver := filepath.Join(root, copyDir, "Inbox", "Left over.md")
	if err := os.MkdirAll(filepath.Dir(leftOver), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(leftOver, []byte("from the last run\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	startMakeStep(t, root, []string{string(export[1]) + "=" + copyDir}, "step", "1", "ADDR="+addr)
	if _, err := os.Stat(leftOver); err == nil {
		t.Errorf("with %s=%s exported, as chapter 8 has the reader do, make step serves %s as the last run left it, not a fresh copy",
			export[1], copyDir, copyDir)
	}
	if _, err := os.Stat(filepath.Join(root, copyDir, "Home.md")); err != nil {
		t.Errorf("make step made no copy of the sample vault in %s: %v", copyDir, err)
	}
}

// rootWithMake returns the repository's root, and skips the test without make.
func rootWithMake(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	root, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// freeAddr returns a loopback address nothing listens on, and the copy of the sample vault
// make step makes for it (relative to root), which the test's end removes.
func freeAddr(t *testing.T, root string) (addr, copyDir string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr = ln.Addr().String()
	ln.Close()
	_, port, _ := net.SplitHostPort(addr)
	copyDir = ".run/vault-" + port
	t.Cleanup(func() { os.RemoveAll(filepath.Join(root, copyDir)) })
	return addr, copyDir
}

// makeRun is a make started by startMakeStep.
type makeRun struct {
	cmd    *exec.Cmd
	exited chan error
	log    func() string // what make and the server printed so far
}

// startMakeStep runs make with args, and env added to the environment, and returns once the
// server it starts listens on the ADDR among args. make copies the vault just before it starts
// the server, so the copy is made by then.
func startMakeStep(t *testing.T, root string, env []string, args ...string) makeRun {
	t.Helper()
	var addr string
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "ADDR="); ok {
			addr = v
		}
	}
	// The output goes to a file, not a pipe, so that Wait returns when make does, even if the
	// server outlives it holding the pipe. make gets a process group of its own, which the
	// test ends at the close, so no server outlives a failed test either.
	out, err := os.Create(filepath.Join(t.TempDir(), "make.log"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { out.Close() })
	cmd := exec.Command("make", args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	m := makeRun{cmd: cmd, exited: make(chan error, 1), log: func() string {
		data, _ := os.ReadFile(out.Name())
		return string(data)
	}}
	go func() { m.exited <- cmd.Wait() }()
	for deadline := time.Now().Add(3 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		if conn, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			conn.Close()
			return m
		}
		select {
		case err := <-m.exited:
			t.Fatalf("make %s ended before it listened (%v):\n%s", strings.Join(args, " "), err, m.log())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("make %s did not listen within 3 minutes:\n%s", strings.Join(args, " "), m.log())
		}
	}
}
