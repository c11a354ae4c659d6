//go:build unix

package transcript

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vaultmcp/shared/ollamatest"
)

// These tests stop each step's program as kill, a terminal or a client stops it, while it is
// answering a request: the request must get its answer, and the program must then exit with
// status 0. Go's http.Server.Shutdown lets the requests under way finish, but only for a
// program that waits for it: Serve returns at once.

// slowSearch is the query of the slow request. Its words are in no note: the stand-in's
// latency, not the vault, makes it slow, and it cannot have been embedded before.
const slowSearch = "drainage ditch culvert"

// TestSIGTERMFinishesRequests sends SIGTERM to each step's server over HTTP while a request is
// under way. From step 4 the request is a search whose query the Ollama stand-in takes two
// seconds to embed. Steps 1 to 3 have no request that takes time, so theirs is a request
// whose body is still arriving when the signal comes: the server has read its headers, so it
// is under way too.
func TestSIGTERMFinishesRequests(t *testing.T) {
	root, steps := stepsUnderTest(t)
	for _, step := range steps {
		t.Run(step.Name, func(t *testing.T) {
			t.Parallel() // each step runs on its own port, vault and stand-in
			if modes(t, root, step)[0] == plain {
				drainHalfSentRequest(t, root, step)
			} else {
				drainSlowSearch(t, root, step)
			}
		})
	}
}

// drainHalfSentRequest sends the headers and half the body of a tools/list request, sends
// SIGTERM, checks that no new connection is accepted, sends the rest, and reads the answer.
func drainHalfSentRequest(t *testing.T, root string, step Step) {
	env, _ := stepEnv(t, root, step, plain)
	srv, err := Start(binary(t, root, step), env)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	addr := strings.TrimSuffix(strings.TrimPrefix(srv.URL, "http://"), "/mcp")
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n%s",
		addr, len(body), body[:10])
	time.Sleep(200 * time.Millisecond) // for the server to read the headers

	exited := make(chan error, 1)
	go func() { exited <- srv.Terminate() }()
	refusesConnections(t, addr)
	io.WriteString(conn, body[10:])
	conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("the request under way when SIGTERM came got no answer: %v\nthe server's log:\n%s", err, srv.Logs())
	}
	answer, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(answer), `"tools"`) {
		t.Errorf("the request under way when SIGTERM came got %s %s; want 200 and the tools", resp.Status, answer)
	}
	exitedCleanly(t, exited, srv.Logs)
}

// drainSlowSearch calls search_vault, sends SIGTERM while the stand-in holds the query's
// embedding, and reads the search's results.
func drainSlowSearch(t *testing.T, root string, step Step) {
	ollama, env := standInEnv(t, root)
	srv, err := Start(binary(t, root, step), env)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	ollama.SetLatency(2*time.Second, 0)

	type answer struct {
		status int
		body   string
		err    error
	}
	answers := make(chan answer, 1)
	go func() {
		call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_vault","arguments":{"query":"` + slowSearch + `"}}}`
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(call))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			answers <- answer{err: err}
			return
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		answers <- answer{resp.StatusCode, string(body), err}
	}()
	waitForQuery(t, ollama)

	exited := make(chan error, 1)
	go func() { exited <- srv.Terminate() }()
	refusesConnections(t, strings.TrimSuffix(strings.TrimPrefix(srv.URL, "http://"), "/mcp"))
	var got answer
	select {
	case got = <-answers:
	case <-time.After(30 * time.Second):
		t.Fatal("the search under way when SIGTERM came got no answer within 30 s")
	}
	if got.err != nil || got.status != http.StatusOK || !isResult(got.body) {
		t.Errorf("the search under way when SIGTERM came got %d %s (%v); want 200 and its results\nthe server's log:\n%s", got.status, got.body, got.err, srv.Logs())
	}
	exitedCleanly(t, exited, srv.Logs)
}

// TestClosedStdinFinishesRequests closes the stdin of each step from 4 on, run over stdio,
// while a search is under way, as a client that is done with the server does: the search
// must still be answered, and the server then exit with status 0. Steps 2 and 3 check the
// same in their own tests, with a tool only the test adds.
func TestClosedStdinFinishesRequests(t *testing.T) {
	root, steps := stepsUnderTest(t)
	for _, step := range steps {
		if modes(t, root, step)[0] == plain {
			continue
		}
		t.Run(step.Name, func(t *testing.T) {
			t.Parallel() // each step runs on its own port, vault and stand-in
			ollama, env := standInEnv(t, root)
			srv, err := StartStdio(binary(t, root, step), env)
			if err != nil {
				t.Fatal(err)
			}
			ollama.SetLatency(2*time.Second, 0)
			if err := srv.send(`{"jsonrpc":"2.0","id":"slow","method":"tools/call","params":{"name":"search_vault","arguments":{"query":"` + slowSearch + `"}}}`); err != nil {
				t.Fatal(err)
			}
			waitForQuery(t, ollama)
			srv.stdin.Close()
			line, id, err := srv.next(30 * time.Second)
			if err != nil || id != `"slow"` || !isResult(line) {
				t.Errorf("the search under way when stdin closed got %s (%v); want its results\nthe server's log:\n%s", line, err, srv.Logs())
			}
			select {
			case <-srv.exited:
				if srv.exit != nil {
					t.Errorf("the server exited with %v after stdin closed; want status 0\nits log:\n%s", srv.exit, srv.Logs())
				}
			case <-time.After(30 * time.Second):
				srv.Stop()
				t.Error("the server did not exit within 30 s of its stdin closing")
			}
		})
	}
}

// standInEnv prepares a step's environment with the real Ollama client talking to a stand-in
// of its own, which it returns so that the test can slow it down.
func standInEnv(t *testing.T, root string) (*ollamatest.Server, []string) {
	t.Helper()
	dir := t.TempDir()
	vault := filepath.Join(dir, "vault")
	if err := os.CopyFS(vault, os.DirFS(filepath.Join(root, "sample-vault"))); err != nil {
		t.Fatal(err)
	}
	ollama := ollamatest.NewServer(ollamatest.Options{})
	t.Cleanup(ollama.Close)
	// A fixed score floor: measured, it would cost the first search sixteen more embeddings,
	// each as slow as the query's.
	return ollama, []string{"VAULT_PATH=" + vault, "VAULTMCP_DB=" + filepath.Join(dir, "data", "index.db"),
		"VAULTMCP_EMBEDDER=ollama", "OLLAMA_HOST=" + ollama.URL, "VAULTMCP_MIN_SCORE=0.17"}
}

// waitForQuery waits until the stand-in has been asked to embed the slow query.
func waitForQuery(t *testing.T, ollama *ollamatest.Server) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		for _, input := range ollama.Inputs() {
			if strings.Contains(input, slowSearch) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("the server did not ask the stand-in to embed the query within 30 s")
		}
	}
}

// refusesConnections checks that the server, told to stop, soon accepts no new connection.
func refusesConnections(t *testing.T, addr string) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			return
		}
		conn.Close()
		if time.Now().After(deadline) {
			t.Error("the server still accepts connections 5 s after SIGTERM")
			return
		}
	}
}

// exitedCleanly waits for the server to exit, and checks its status.
func exitedCleanly(t *testing.T, exited <-chan error, logs func() string) {
	t.Helper()
	if err := <-exited; err != nil {
		t.Errorf("after SIGTERM the server exited with %v; want status 0\nits log:\n%s", err, logs())
	}
	if !strings.Contains(logs(), "stopping") {
		t.Errorf("the log does not say the server is stopping:\n%s", logs())
	}
}

// isResult reports whether body is a JSON-RPC answer with a result that is not a tool error.
func isResult(body string) bool {
	var msg struct {
		Result *struct {
			IsError bool `json:"isError"`
		} `json:"result"`
	}
	return json.Unmarshal([]byte(body), &msg) == nil && msg.Result != nil && !msg.Result.IsError
}
