//go:build unix

package transcript

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
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
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	root, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, port, _ := net.SplitHostPort(addr)
	// make step copies the sample vault for this address into .run; the copy is the test's.
	t.Cleanup(func() { os.RemoveAll(filepath.Join(root, ".run", "vault-"+port)) })

	// The output goes to a file, not a pipe, so that Wait returns when make does, even if the
	// server outlives it holding the pipe. make gets a process group of its own, which the
	// test ends at the close, so no server outlives a failed test either.
	out, err := os.Create(filepath.Join(t.TempDir(), "make.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd := exec.Command("make", "step", "1", "ADDR="+addr)
	cmd.Dir = root
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	log := func() string {
		data, _ := os.ReadFile(out.Name())
		return string(data)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	for deadline := time.Now().Add(3 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		if conn, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			conn.Close()
			break
		}
		select {
		case err := <-exited:
			t.Fatalf("make step 1 ADDR=%s ended before it listened (%v):\n%s", addr, err, log())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("make step 1 ADDR=%s did not listen within 3 minutes:\n%s", addr, log())
		}
	}

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		t.Fatalf("make step 1 still runs 30 s after SIGTERM:\n%s", log())
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			return // the port is free
		}
		conn.Close()
		if time.Now().After(deadline) {
			t.Fatalf("make is gone, but something still listens on %s 10 s later: the server outlived make, and holds the port\n%s",
				addr, log())
		}
	}
}
