package store

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestOneStorePerIndex: while one Store has an index open, a second Open of it is refused at
// once, with a message that names the file and says what to do; Close lets it go.
func TestOneStorePerIndex(t *testing.T) {
	path := filepath.Join(t.TempDir(), "index.db")
	first := openIndex(t, path)
	put(t, first, Note{Path: "a.md"}, []float32{1, 0, 0, 0})

	openFails(t, path, Config{}, "the index "+path+" is in use by another vaultmcp server", path+".lock", "stop that server", "its own index with -db or VAULTMCP_DB")
	// The refused Open left the index alone: the first Store still finds its note.
	if hits, err := first.Search(t.Context(), []float32{1, 0, 0, 0}, 1); err != nil || len(hits) != 1 {
		t.Errorf("after a refused second Open, a search = %v, %v; want a.md", hits, err)
	}

	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	second, err := Open(t.Context(), path, Config{})
	if err != nil {
		t.Fatalf("Open after Close: %v", err)
	}
	second.Close()
}

// lockChildEnv tells a child process, started by TestLockEndsWithProcess, which index to hold.
const lockChildEnv = "VAULTMCP_STORE_LOCK_CHILD"

// TestLockChild is TestLockEndsWithProcess's child: it opens the index, says so, and waits to
// be killed.
func TestLockChild(t *testing.T) {
	path := os.Getenv(lockChildEnv)
	if path == "" {
		t.Skip("run by TestLockEndsWithProcess")
	}
	if _, err := Open(t.Context(), path, Config{}); err != nil {
		t.Fatal(err)
	}
	fmt.Println("index open")
	time.Sleep(time.Minute) // killed long before
}

// TestLockEndsWithProcess: a server that is killed, and never calls Close, leaves no lock
// behind. Another process holds the index, and this one cannot open it; once that process is
// killed, it can.
func TestLockEndsWithProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "index.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), lockChildEnv+"="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	if line, err := bufio.NewReader(out).ReadString('\n'); !strings.HasPrefix(line, "index open") {
		t.Fatalf("the child did not open the index: %q, %v", line, err)
	}

	openFails(t, path, Config{}, "in use by another vaultmcp server")
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	s, err := Open(t.Context(), path, Config{})
	if err != nil {
		t.Fatalf("Open after the holder was killed: %v", err)
	}
	s.Close()
}
