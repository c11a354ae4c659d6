package main

import (
	"bytes"
	"context"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"vaultmcp/scripts/transcript"
	"vaultmcp/shared/steptest"
)

// TestNoServerSaysHowToStartIt: with no server to check, check-step says what starts one
// where it looks, and from step 4 on, with the embedder the transcripts show, which needs no
// Ollama.
func TestNoServerSaysHowToStartIt(t *testing.T) {
	const atDefault = "http://127.0.0.1:3000/mcp"
	for n, want := range map[int]string{
		1: "make step 1", 3: "make step 3", 4: "make step 4 EMBEDDER=offline", 10: "make step 10 EMBEDDER=offline",
	} {
		if got := startCommand(n, atDefault); got != want {
			t.Errorf("startCommand(%d, %s) = %q, want %q", n, atDefault, got, want)
		}
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	err = run(context.Background(), []string{"check-step", "-mcp", "http://" + addr + "/mcp", "4"}, os.Getenv, &bytes.Buffer{}, &bytes.Buffer{})
	want := "start it first with `make step 4 EMBEDDER=offline ADDR=" + addr + "` in another terminal"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("check-step -mcp http://%s/mcp 4 = %v, want it to say %q", addr, err, want)
	}
}

// The run transcript of TestStopLeavesTheVault: it writes a note, waits until the test lets
// it go on (or stops it), reads the note back, and removes it.
const writesAndRemoves = `## writes a note
$ printf 'x' > "$VAULT_COPY/Inbox/Run note.md" && touch "$VAULT_COPY/../wrote" && while [ ! -e "$VAULT_COPY/../write-done" ]; do sleep 0.02; done

## waits
$ touch "$VAULT_COPY/../waiting" && while [ ! -e "$VAULT_COPY/../go" ]; do sleep 0.02; done

## reads the note, then removes it
$ cat "$VAULT_COPY/Inbox/Run note.md"
x
$ rm "$VAULT_COPY/Inbox/Run note.md"`

// TestStopLeavesTheVault: however a run ends, the vault holds the files it held before: a run
// that passes removes its note itself; stopped by Ctrl-C before it starts, in the middle of
// the command that writes the note, between sections or in a later command, or stopped by a
// section that fails before its rm, it has the note removed for it. A note the reader saves
// meanwhile, which the transcript does not name, stays.
func TestStopLeavesTheVault(t *testing.T) {
	sections, err := transcript.Parse(strings.NewReader(writesAndRemoves))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		// stop is called as the run goes: with each marker the transcript touches, then
		// with "" once more after it ended. It returns the markers to touch and whether
		// to interrupt the run.
		stop        func(marker string) (touch []string, interrupt bool)
		wantErr     bool
		wantRemoved bool // tidy removed the note, and says so
	}{
		{"passes", func(m string) ([]string, bool) {
			switch m {
			case "wrote":
				return []string{"write-done"}, false
			case "waiting":
				return []string{"go"}, false
			}
			return nil, false
		}, false, false},
		{"interrupted before it starts", func(string) ([]string, bool) { return nil, true }, true, false},
		{"interrupted while it writes", func(m string) ([]string, bool) { return nil, m == "wrote" }, true, true},
		{"interrupted between sections", func(m string) ([]string, bool) {
			if m == "wrote" {
				return []string{"write-done"}, true
			}
			return nil, false
		}, true, true},
		{"interrupted in a later command", func(m string) ([]string, bool) {
			switch m {
			case "wrote":
				return []string{"write-done"}, false
			case "waiting":
				return nil, true
			}
			return nil, false
		}, true, true},
		{"a section fails before its rm", func(m string) ([]string, bool) {
			switch m {
			case "wrote":
				return []string{"write-done"}, false
			case "waiting":
				return []string{"change-note", "go"}, false
			}
			return nil, false
		}, false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			vault := filepath.Join(base, "vault")
			steptest.Write(t, filepath.Join(vault, "Inbox", "Seed swap.md"), "there before")
			before, err := listFiles(vault)
			if err != nil {
				t.Fatal(err)
			}
			ctx, interrupt := context.WithCancel(context.Background())
			defer interrupt()
			var stdout, stderr bytes.Buffer
			done := make(chan error, 1)
			if _, now := tt.stop(""); now {
				interrupt()
			}
			go func() {
				_, err := check(ctx, sections, writesAndRemoves, transcript.Env{MCP: "http://127.0.0.1:1/mcp", Vault: vault}, &stdout, &stderr)
				done <- err
			}()
			seen := map[string]bool{}
			timeout := time.After(30 * time.Second)
		watch:
			for {
				select {
				case err = <-done:
					break watch
				case <-timeout:
					interrupt()
					t.Fatalf("the run did not end; stdout:\n%s\nstderr:\n%s", &stdout, &stderr)
				case <-time.After(10 * time.Millisecond):
				}
				for _, m := range []string{"wrote", "waiting"} {
					if seen[m] || !exists(filepath.Join(base, m)) {
						continue
					}
					seen[m] = true
					touch, now := tt.stop(m)
					for _, name := range touch {
						if name == "change-note" {
							// The reader saves a note of their own, and the run's note changes,
							// so that the section that reads it back fails before its rm.
							steptest.Write(t, filepath.Join(vault, "Inbox", "Mine.md"), "the reader's")
							steptest.Write(t, filepath.Join(vault, "Inbox", "Run note.md"), "changed")
							continue
						}
						steptest.Write(t, filepath.Join(base, name), "")
					}
					if now {
						interrupt()
					}
				}
			}

			if (err != nil) != tt.wantErr {
				t.Errorf("check = %v, want an error: %v", err, tt.wantErr)
			}
			after, err := listFiles(vault)
			if err != nil {
				t.Fatal(err)
			}
			if tt.name == "a section fails before its rm" {
				before["Inbox/Mine.md"] = true // the reader's stays
				if !strings.Contains(stderr.String(), "left in "+vault+", since the transcript does not name them: Inbox/Mine.md") {
					t.Errorf("stderr does not name the note tidy left:\n%s", &stderr)
				}
			}
			if !maps.Equal(after, before) {
				t.Errorf("the vault holds %v after the run, want %v\nstdout:\n%s\nstderr:\n%s", slices.Sorted(maps.Keys(after)), slices.Sorted(maps.Keys(before)), &stdout, &stderr)
			}
			if said := strings.Contains(stderr.String(), "removed what this run wrote into "+vault+" and had not removed yet: Inbox/Run note.md"); said != tt.wantRemoved {
				t.Errorf("stderr says it removed the run's note: %v, want %v\n%s", said, tt.wantRemoved, &stderr)
			}
			if content, err := os.ReadFile(filepath.Join(vault, "Inbox", "Seed swap.md")); err != nil || string(content) != "there before" {
				t.Errorf("the note that was there before = %q, %v", content, err)
			}
		})
	}
}

func exists(name string) bool {
	_, err := os.Stat(name)
	return err == nil
}

// TestInterruptRemovesTheRunsNote: check-step, run on step 8's transcript against a server
// that answers nothing right, gets Ctrl-C's signal while it waits for the watcher to index the
// note its transcript has just written; it removes the note before it exits.
func TestInterruptRemovesTheRunsNote(t *testing.T) {
	if testing.Short() {
		t.Skip("builds check-step and runs step 8's transcript, 10 s of it; `make check` runs it")
	}
	if runtime.GOOS == "windows" {
		t.Skip("Windows cannot send a process os.Interrupt")
	}
	root, err := transcript.Root()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "check-step")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	vault := filepath.Join(t.TempDir(), "vault")
	if err := os.CopyFS(vault, os.DirFS(filepath.Join(root, "sample-vault"))); err != nil {
		t.Fatal(err)
	}
	before, err := listFiles(vault)
	if err != nil {
		t.Fatal(err)
	}
	wrong := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "{}") }))
	defer wrong.Close()

	cmd := exec.Command(bin, "-mcp", wrong.URL+"/mcp", "-vault", vault, "8")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	note := filepath.Join(vault, "Garden", "Kohlrabi.md")
	for deadline := time.Now().Add(time.Minute); !exists(note); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the run never wrote %s; stderr:\n%s", note, &stderr)
		}
	}
	// The section retries its search for 10 s: the run is in the middle of it.
	cmd.Process.Signal(os.Interrupt)
	if err := cmd.Wait(); err == nil {
		t.Error("check-step, interrupted, exits with status 0")
	}
	after, err := listFiles(vault)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(after, before) {
		t.Errorf("after Ctrl-C, the vault holds %v, want the sample vault's %v\nstderr:\n%s", slices.Sorted(maps.Keys(after)), slices.Sorted(maps.Keys(before)), &stderr)
	}
	if !strings.Contains(stderr.String(), "removed what this run wrote into "+vault+" and had not removed yet: Garden/Kohlrabi.md") {
		t.Errorf("stderr does not say what was removed:\n%s", &stderr)
	}
}
