// Package steptest starts a step's server inside a test, the way main would: each step's
// main calls run(ctx, args, getenv, stdin, stdout, stderr), so a test can call it too, on a
// free loopback port, with an environment of its own, and stop it by cancelling ctx.
package steptest

import (
	"bufio"
	"context"
	"io"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// Run is a step's run function.
type Run func(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error

// Env returns a getenv that knows only the given variables, given as name, value pairs.
func Env(pairs ...string) func(string) string {
	return func(name string) string {
		for i := 0; i+1 < len(pairs); i += 2 {
			if pairs[i] == name {
				return pairs[i+1]
			}
		}
		return ""
	}
}

// Start runs the program with args on a free port and returns its MCP endpoint; it is
// stopped when the test ends.
func Start(tb testing.TB, run Run, getenv func(string) string, args ...string) string {
	tb.Helper()
	url, stop := Launch(tb, run, getenv, args...)
	tb.Cleanup(stop)
	return url
}

// Launch runs the program with args on a free port and returns its MCP endpoint, and stop,
// which cancels it as Ctrl-C would and waits until run has returned, failing the test if run
// returned an error. stop may be called more than once.
func Launch(tb testing.TB, run Run, getenv func(string) string, args ...string) (url string, stop func()) {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	logs, logWriter := io.Pipe()
	done := make(chan error, 1)
	go func() {
		args := append([]string{"step", "-addr", "127.0.0.1:0"}, args...) // a later -addr wins
		done <- run(ctx, args, getenv, strings.NewReader(""), io.Discard, logWriter)
		logWriter.Close()
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				tb.Errorf("run returned %v", err)
			}
		})
	}
	select {
	case url := <-URLFrom(logs):
		return url, stop
	case <-time.After(time.Minute): // the first start of a step with an index compiles SQLite, slowly under -race
		stop()
		tb.Fatal("the server did not log its url")
		return "", nil
	}
}

var listening = regexp.MustCompile(`url=(\S+)`)

// URLFrom reads a server's log and sends the URL it listens on, once. It reads on to the end,
// so the server never blocks writing its log.
func URLFrom(logs io.Reader) <-chan string {
	urls := make(chan string, 1)
	go func() {
		scanner := bufio.NewScanner(logs)
		for scanner.Scan() {
			if m := listening.FindStringSubmatch(scanner.Text()); m != nil {
				select {
				case urls <- m[1]:
				default:
				}
			}
		}
	}()
	return urls
}
