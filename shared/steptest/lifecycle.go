package steptest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/shared/jsonrpc"
	"vaultmcp/shared/ollamatest"
)

// SlowToIndex starts the Ollama stand-in, slow enough that indexing takes seconds, points
// OLLAMA_HOST at it, and writes a vault of 300 notes for it.
func SlowToIndex(t *testing.T) (*ollamatest.Server, string) {
	t.Helper()
	ollama := ollamatest.NewServer(ollamatest.Options{InputLatency: 20 * time.Millisecond})
	t.Cleanup(ollama.Close)
	t.Setenv("OLLAMA_HOST", ollama.URL)
	vaultDir := t.TempDir()
	for i := range 300 {
		Write(t, filepath.Join(vaultDir, fmt.Sprintf("Note %03d.md", i)), fmt.Sprintf("# Note %d\n\nword%d", i, i))
	}
	return ollama, vaultDir
}

// WaitForEmbedding waits until the server has sent the stand-in a few notes to embed. It
// fails the test if run returns first.
func WaitForEmbedding(t *testing.T, ollama *ollamatest.Server, done <-chan error, logs *Logs) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); len(ollama.Inputs()) < 10; time.Sleep(10 * time.Millisecond) {
		select {
		case err := <-done:
			t.Fatalf("run returned %v before indexing began; the log:\n%s", err, logs)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("indexing did not begin within a minute; the log:\n%s", logs)
		}
	}
}

// StoppedCleanly waits for run to return, and checks that it returned nil and logged nothing
// at ERROR: stopping is what was asked, so it is no failure.
func StoppedCleanly(t *testing.T, done <-chan error, logs *Logs) {
	t.Helper()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("run stopped = %v; want nil", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("run did not stop within a minute of being told to")
	}
	if errors := logs.Errors(); len(errors) > 0 {
		t.Errorf("stopping logged errors; the first:\n%s", strings.Join(errors, ""))
	}
}

// StartFails runs the program with args, as a second server or a mistyped command would, and
// returns the error it stopped with. A refusal comes at once; a server that starts instead is
// stopped after a while, and fails the test. The error says why, so the log must not add a
// false alarm at ERROR before it.
func StartFails(t *testing.T, run Run, getenv func(string) string, args ...string) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	var logs Logs
	err := run(ctx, append([]string{"vaultmcp"}, args...), getenv, strings.NewReader(""), io.Discard, &logs)
	if err == nil {
		t.Fatalf("run %q started and served; want it refused", args)
	}
	if errors := logs.Errors(); len(errors) > 0 {
		t.Errorf("run %q logged an error before it stopped with %q:\n%s", args, err, strings.Join(errors, ""))
	}
	return err
}

// A Setting is a flag, the environment variable that may give its value instead, and a value
// the program must refuse.
type Setting struct {
	Flag, Env, Bad string
}

// RefusesBadSettings runs the program with each setting's bad value, given once as the flag
// and once as the variable, over a vault of one note, with VAULTMCP_DB naming an index in a
// folder that does not exist. Each run must stop before it does anything: its error names the
// flag, the variable and the value, and neither the vault nor the index's folder gains a file.
func RefusesBadSettings(t *testing.T, run Run, settings []Setting) {
	t.Helper()
	for _, s := range settings {
		for _, asFlag := range []bool{true, false} {
			vaultDir, dbDir := t.TempDir(), filepath.Join(t.TempDir(), "index")
			Write(t, filepath.Join(vaultDir, "Note.md"), "# Note")
			env := map[string]string{"VAULT_PATH": vaultDir, "VAULTMCP_DB": filepath.Join(dbDir, "index.db"), "VAULTMCP_ADDR": "127.0.0.1:0"}
			args := []string{"vaultmcp"}
			given := s.Env + "=" + s.Bad
			if asFlag {
				args = append(args, "-"+s.Flag+"="+s.Bad)
				given = "-" + s.Flag + "=" + s.Bad
			} else {
				env[s.Env] = s.Bad
			}
			var logs Logs
			err := run(t.Context(), args, func(key string) string { return env[key] }, strings.NewReader(""), io.Discard, &logs)
			switch {
			case err == nil:
				t.Errorf("%s: run = nil; want an error", given)
			case !strings.Contains(err.Error(), "-"+s.Flag) || !strings.Contains(err.Error(), s.Env) || !strings.Contains(err.Error(), fmt.Sprintf("%q", s.Bad)):
				t.Errorf("%s: %v; want an error naming -%s, %s and %q", given, err, s.Flag, s.Env, s.Bad)
			}
			if entries, _ := os.ReadDir(vaultDir); len(entries) != 1 {
				t.Errorf("%s: the vault holds %d entries afterwards; want only Note.md", given, len(entries))
			}
			if _, err := os.Stat(dbDir); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("%s: the index's folder was made, or more (%v)", given, err)
			}
			if strings.Contains(logs.String(), "listening") {
				t.Errorf("%s: the server listened before it refused:\n%s", given, logs.String())
			}
		}
	}
}

// A Stdio is a session with a server run over stdin and stdout, as a client that starts the
// server runs it.
type Stdio struct {
	t        *testing.T
	toServer *io.PipeWriter
	answers  *bufio.Scanner
	done     chan error
}

// StartStdio runs the program with args and the variables of getenv on pipes for stdin and
// stdout, its log discarded.
func StartStdio(t *testing.T, run Run, getenv func(string) string, args ...string) *Stdio {
	t.Helper()
	stdin, toServer := io.Pipe()
	fromServer, stdout := io.Pipe()
	s := &Stdio{t: t, toServer: toServer, answers: bufio.NewScanner(fromServer), done: make(chan error, 1)}
	s.answers.Buffer(nil, 1<<20)
	go func() {
		s.done <- run(t.Context(), append([]string{"vaultmcp"}, args...), getenv, stdin, stdout, io.Discard)
		stdout.Close()
	}()
	t.Cleanup(func() { toServer.Close() })
	return s
}

// Send writes one message, a line, to the server's stdin.
func (s *Stdio) Send(message string) {
	s.t.Helper()
	if _, err := io.WriteString(s.toServer, message+"\n"); err != nil {
		s.t.Fatal(err)
	}
}

// Ask sends a request and returns the next line on stdout, which must be a JSON-RPC message.
func (s *Stdio) Ask(request string) map[string]any {
	s.t.Helper()
	s.Send(request)
	if !s.answers.Scan() {
		s.t.Fatalf("no answer to %s: %v", request, s.answers.Err())
	}
	var msg map[string]any
	if err := json.Unmarshal(s.answers.Bytes(), &msg); err != nil {
		s.t.Fatalf("stdout holds something that is not a JSON-RPC message: %q", s.answers.Text())
	}
	return msg
}

// Close closes stdin, as a client that is done does, and checks that the server then stops
// by itself, with no error.
func (s *Stdio) Close() {
	s.t.Helper()
	s.toServer.Close()
	select {
	case err := <-s.done:
		if err != nil {
			s.t.Errorf("run after stdin closed: %v", err)
		}
	case <-time.After(30 * time.Second):
		s.t.Fatal("the server did not stop when stdin closed")
	}
}

// ServeStdio is a step's serveStdio function.
type ServeStdio func(ctx context.Context, mcpServer *server.MCPServer, stdin io.Reader, stdout io.Writer, logger *slog.Logger, checks ...jsonrpc.Option) error

// FinishesOverStdio checks that serveStdio answers a request still running when stdin closes,
// before it returns: a client that closes stdin still wants the answers it asked for. The
// request is a call of a tool that only this test adds, which answers once the test lets it.
func FinishesOverStdio(t *testing.T, serveStdio ServeStdio) {
	t.Helper()
	s := server.NewMCPServer("test", "1", server.WithToolCapabilities(false))
	called, release := make(chan struct{}), make(chan struct{})
	s.AddTool(mcp.NewTool("slow"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		close(called)
		select {
		case <-release:
			return mcp.NewToolResultText("finished"), nil
		case <-ctx.Done():
			return mcp.NewToolResultError("cancelled"), nil
		}
	})
	stdin, toServer := io.Pipe()
	fromServer, stdout := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- serveStdio(t.Context(), s, stdin, stdout, slog.New(slog.DiscardHandler))
		stdout.Close()
	}()
	answers := make(chan string, 1)
	go func() {
		data, _ := io.ReadAll(fromServer)
		answers <- string(data)
	}()
	io.WriteString(toServer, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{}}}`+"\n")
	select {
	case <-called:
	case <-time.After(Patience):
		t.Fatalf("the tool was not called within %v", Patience)
	}
	toServer.Close()
	time.Sleep(100 * time.Millisecond) // long enough for a server that does not wait to stop
	close(release)
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serveStdio after stdin closed = %v; want nil", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serveStdio did not return within 30 s of stdin closing")
	}
	if got := <-answers; !strings.Contains(got, "finished") {
		t.Errorf("the call under way when stdin closed was answered %q; want its answer, finished", got)
	}
}
