package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/shared/jsonrpc"
)

// stdioSession runs serveStdio over mcp-go's StdioServer with one tool, slow, which answers
// "finished" once release is closed, or "cancelled" when its context ends first. It returns
// the pipe to the server's stdin, the server's answers line by line, and what serveStdio
// returned.
func stdioSession(t *testing.T, ctx context.Context, release <-chan struct{}, logs io.Writer, limit time.Duration) (stdin io.WriteCloser, answers <-chan string, arrived <-chan struct{}, done <-chan error) {
	t.Helper()
	s := server.NewMCPServer("test", "1", server.WithToolCapabilities(false))
	called := make(chan struct{}, 1)
	s.AddTool(mcp.NewTool("slow"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		called <- struct{}{}
		select {
		case <-release:
			return mcp.NewToolResultText("finished"), nil
		case <-ctx.Done():
			return mcp.NewToolResultText("cancelled"), nil
		}
	})
	in, toServer := io.Pipe()
	fromServer, out := io.Pipe()
	result := make(chan error, 1)
	go func() {
		result <- serveStdio(ctx, server.NewStdioServer(s).Listen, in, out, 1<<20, slog.New(slog.NewTextHandler(logs, nil)), limit)
		out.Close()
	}()
	lines := make(chan string, 10)
	go func() {
		scanner := bufio.NewScanner(fromServer)
		for scanner.Scan() {
			lines <- scanner.Text()
		}
		close(lines)
	}()
	return toServer, lines, called, result
}

const callSlow = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow","arguments":{}}}` + "\n"

// TestStdioDrainsWhenStdinCloses: a client that closes stdin while its request runs still
// gets the answer, and then the server stops.
func TestStdioDrainsWhenStdinCloses(t *testing.T) {
	release := make(chan struct{})
	stdin, answers, arrived, done := stdioSession(t, t.Context(), release, io.Discard, time.Minute)
	io.WriteString(stdin, callSlow)
	receive(t, arrived, "call")
	stdin.Close()
	select {
	case err := <-done:
		t.Fatalf("serveStdio returned (%v) while a request was under way", err)
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	if got := receive(t, answers, "answer"); !strings.Contains(got, `"id":7`) || !strings.Contains(got, "finished") {
		t.Errorf("the request under way got %s; want its answer", got)
	}
	if err := receive(t, done, "return from serveStdio"); err != nil {
		t.Errorf("serveStdio = %v; want nil", err)
	}
}

// TestStdioDrainsOnSignal: told to stop while stdin is still open, the server reads no more
// and answers the request under way before it stops.
func TestStdioDrainsOnSignal(t *testing.T) {
	release := make(chan struct{})
	ctx, stop := context.WithCancel(t.Context())
	stdin, answers, arrived, done := stdioSession(t, ctx, release, io.Discard, time.Minute)
	defer stdin.Close()
	io.WriteString(stdin, callSlow)
	receive(t, arrived, "call")
	stop()
	time.Sleep(50 * time.Millisecond)
	close(release)
	if got := receive(t, answers, "answer"); !strings.Contains(got, "finished") {
		t.Errorf("the request under way got %s; want its answer", got)
	}
	if err := receive(t, done, "return from serveStdio"); err != nil {
		t.Errorf("serveStdio = %v; want nil", err)
	}
}

// TestStdioCancelsAfterTheLimit: a request that outlives the limit is cancelled, and the log
// says so.
func TestStdioCancelsAfterTheLimit(t *testing.T) {
	var logs lockedBuffer
	stdin, answers, arrived, done := stdioSession(t, t.Context(), make(chan struct{}), &logs, 200*time.Millisecond)
	io.WriteString(stdin, callSlow)
	receive(t, arrived, "call")
	stdin.Close()
	if got := receive(t, answers, "answer"); !strings.Contains(got, "cancelled") {
		t.Errorf("the request that outlived the limit got %s; want the answer it gives when cancelled", got)
	}
	receive(t, done, "return from serveStdio")
	if !strings.Contains(logs.String(), "cancelling them") {
		t.Errorf("the log does not say requests were cancelled:\n%s", logs.String())
	}
}

// TestStdioStopsAtOnceWhenIdle: with nothing under way, closing stdin stops the server at
// once, without waiting for the limit.
func TestStdioStopsAtOnceWhenIdle(t *testing.T) {
	stdin, answers, _, done := stdioSession(t, t.Context(), nil, io.Discard, time.Minute)
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":"a","method":"ping"}`+"\n")
	if got := receive(t, answers, "answer"); !strings.Contains(got, `"id":"a"`) {
		t.Errorf("ping got %s", got)
	}
	stdin.Close()
	if err := receive(t, done, "return from serveStdio"); err != nil {
		t.Errorf("serveStdio = %v; want nil", err)
	}
}

func TestIDKey(t *testing.T) {
	for _, tc := range []struct{ request, answer string }{
		{`7`, `7`}, {`7.0`, `7`}, {`"7"`, `"7"`}, {`12345678901234567890`, `12345678901234567168`},
	} {
		a, okA := idKey([]byte(tc.request))
		b, okB := idKey([]byte(tc.answer))
		if !okA || !okB || a != b {
			t.Errorf("id %s and %s: keys %q and %q; want the same", tc.request, tc.answer, a, b)
		}
	}
	if a, _ := idKey([]byte(`7`)); a == func() string { k, _ := idKey([]byte(`"7"`)); return k }() {
		t.Error(`the ids 7 and "7" share a key`)
	}
	if _, ok := idKey([]byte(`null`)); ok {
		t.Error("a null id has a key")
	}
}

// TestLinesAreBounded: a line over the bound is answered with an error that says why, and
// skipped; the lines around it pass, and the bound is per line, not per stream.
func TestLinesAreBounded(t *testing.T) {
	read := func(input string, max int) (passed, answered string) {
		var answers strings.Builder
		in := &drainingInput{src: strings.NewReader(input), check: jsonrpc.NewLines(max), maxLine: max,
			waiting: &unanswered{ids: map[string]int{}, listens: map[string]bool{}, held: map[string][]byte{}},
			answer:  func(line []byte) { answers.Write(line) }, logger: slog.New(slog.DiscardHandler), limit: time.Second}
		got, err := io.ReadAll(in)
		if err != nil {
			t.Fatalf("reading %.40q: %v", input, err)
		}
		return string(got), answers.String()
	}
	ping := func(id int) string { return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id) }
	if passed, answered := read(ping(1)+"\n"+ping(2)+"\n", 40); passed != ping(1)+"\n"+ping(2)+"\n" || answered != "" {
		t.Errorf("lines within the bound: passed %q, answered %q", passed, answered)
	}
	long := `{"jsonrpc":"2.0","id":3,"method":"ping","params":{"pad":"` + strings.Repeat("x", 100) + `"}}`
	passed, answered := read(ping(1)+"\n"+long+"\n"+ping(2)+"\n", 40)
	if passed != ping(1)+"\n"+ping(2)+"\n" {
		t.Errorf("the lines around a long one: passed %q; want both", passed)
	}
	var answer struct {
		ID    json.RawMessage
		Error struct{ Code int }
	}
	if json.Unmarshal([]byte(answered), &answer) != nil || string(answer.ID) != "null" || answer.Error.Code != -32600 ||
		!strings.Contains(answered, "longer than 40 bytes") || strings.Count(answered, "\n") != 1 {
		t.Errorf("a line over the bound was answered %q; want one error with id null that says why", answered)
	}
	if passed, _ := read(strings.Repeat(ping(7)+"\n", 10_000), 40); strings.Count(passed, "\n") != 10_000 {
		t.Errorf("many short lines: %d passed", strings.Count(passed, "\n"))
	}
	if passed, answered := read(ping(1), 40); passed != ping(1)+"\n" || answered != "" {
		t.Errorf("a last line without its newline: passed %q, answered %q", passed, answered)
	}
	if passed, answered := read(strings.Repeat("x", 1<<20), 40); passed != "" || !strings.Contains(answered, "longer than") {
		t.Errorf("a last line too long, without its newline: passed %q, answered %q", passed, answered)
	}
}

// TestStdioListenAcknowledgedFirst: 200 listen requests that grant nothing, which mcp-go
// answers at once from one goroutine while it writes their acknowledgements from another. Each
// acknowledgement still comes before its answer.
func TestStdioListenAcknowledgedFirst(t *testing.T) {
	stdin, answers, _, done := stdioSession(t, t.Context(), nil, io.Discard, time.Minute)
	const n = 200
	go func() {
		for i := range n {
			fmt.Fprintf(stdin, `{"jsonrpc":"2.0","id":%d,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},`+
				`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`+"\n", i+1)
		}
	}()
	acked := map[string]bool{}
	late := 0
	for range 2 * n {
		var m struct {
			ID     json.RawMessage
			Method string
			Params struct {
				Meta struct {
					SubscriptionID json.RawMessage `json:"io.modelcontextprotocol/subscriptionId"`
				} `json:"_meta"`
			}
		}
		line := receive(t, answers, "line")
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		switch {
		case m.Method == ackMethod:
			acked[string(m.Params.Meta.SubscriptionID)] = true
		case !acked[string(m.ID)]:
			late++
			t.Logf("the answer came before the acknowledgement: %s", line)
		}
	}
	if late > 0 {
		t.Errorf("%d of %d listen answers came before their acknowledgement", late, n)
	}
	stdin.Close()
	receive(t, done, "return from serveStdio")
}

// TestStdioSkipsALongLine: a line over the bound gets an error with a null id, and the server
// answers the next line as usual.
func TestStdioSkipsALongLine(t *testing.T) {
	stdin, answers, _, done := stdioSession(t, t.Context(), nil, io.Discard, time.Minute)
	go func() {
		io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"`+strings.Repeat("x", 2<<20)+`"}}`+"\n")
		io.WriteString(stdin, `{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\n")
	}()
	if got := receive(t, answers, "answer"); !strings.Contains(got, `"id":null`) || !strings.Contains(got, "longer than 1048576 bytes") {
		t.Errorf("the long line got %s", got)
	}
	if got := receive(t, answers, "answer"); !strings.Contains(got, `"id":2,"result":{}`) {
		t.Errorf("the next line got %s", got)
	}
	stdin.Close()
	if err := receive(t, done, "return from serveStdio"); err != nil {
		t.Errorf("serveStdio = %v; want nil", err)
	}
}
