package guard

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

const listenRequest = `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"resourcesListChanged":true}}}`

// listener stands in for mcp-go: a listen request gets an event stream that opens with an
// acknowledgement and stays open until its context ends; anything else gets "ok". open counts
// the streams open.
func listener(open *atomic.Int32) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if !strings.Contains(string(body), "subscriptions/listen") {
			io.WriteString(w, "ok")
			return
		}
		open.Add(1)
		defer open.Add(-1)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, "event: message\ndata: {\"method\":\"notifications/subscriptions/acknowledged\"}\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
}

// openStream sends a listen request and returns the answer, with the stream's first line read
// when it opened. Cancelling ctx closes the connection.
func openStream(t *testing.T, ctx context.Context, url string) (*http.Response, *bufio.Reader) {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(listenRequest))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Mcp-Method", "subscriptions/listen")
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewReader(resp.Body)
	if resp.StatusCode == http.StatusOK {
		if line, err := lines.ReadString('\n'); err != nil || !strings.HasPrefix(line, "event:") {
			t.Fatalf("the stream opened with %q, %v", line, err)
		}
	}
	return resp, lines
}

// TestStreamsHaveTheirOwnPlaces: with every stream place taken, ordinary requests are still
// served; the next stream is refused with 503, Retry-After and the reason; and a client that
// closes its stream frees its place at once.
func TestStreamsHaveTheirOwnPlaces(t *testing.T) {
	var open atomic.Int32
	srv := serve(t, listener(&open), Config{MaxInFlight: 2, MaxStreams: 3})
	cancels := make([]context.CancelFunc, 3)
	for i := range cancels {
		ctx, cancel := context.WithCancel(t.Context())
		cancels[i] = cancel
		if resp, _ := openStream(t, ctx, srv.url); resp.StatusCode != http.StatusOK {
			t.Fatalf("stream %d: %s", i+1, resp.Status)
		}
	}
	defer func() {
		for _, cancel := range cancels {
			cancel()
		}
	}()

	served := 0
	for range 10 {
		if resp, body := (call{}).do(t, srv.url); resp.StatusCode == http.StatusOK && string(body) == "ok" {
			served++
		}
	}
	if served != 10 {
		t.Errorf("with every stream place taken, %d of 10 ordinary requests were served", served)
	}

	resp, lines := openStream(t, t.Context(), srv.url)
	body, _ := io.ReadAll(lines)
	if msg := checkRefusal(t, resp, body, http.StatusServiceUnavailable, "streams"); !strings.Contains(msg, "3 subscriptions/listen streams are already open") {
		t.Errorf("the refusal says %q", msg)
	}
	if resp.Header.Get("Retry-After") == "" {
		t.Error("the refusal of a stream has no Retry-After")
	}

	const patience = time.Minute // far longer than it takes, even on a busy machine
	cancels[0]()                 // the client goes
	deadline := time.Now().Add(patience)
	for {
		ctx, cancel := context.WithCancel(t.Context())
		resp, _ := openStream(t, ctx, srv.url)
		cancels[0] = cancel
		if resp.StatusCode == http.StatusOK {
			break
		}
		cancel()
		if time.Now().After(deadline) {
			t.Fatalf("%v after a client closed its stream, a new stream still gets %s", patience, resp.Status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestStreamKeepAlive: a silent stream gets comments, and lives past the server's
// WriteTimeout, which bounds ordinary answers.
func TestStreamKeepAlive(t *testing.T) {
	var open atomic.Int32
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h, err := Hostile(listener(&open), Config{Addr: ln.Addr(), KeepAlive: 150 * time.Millisecond, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	srv := NewServer(h)
	srv.WriteTimeout = 200 * time.Millisecond
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })

	resp, lines := openStream(t, t.Context(), "http://"+ln.Addr().String()+"/mcp")
	defer resp.Body.Close()
	time.AfterFunc(5*time.Second, func() { resp.Body.Close() }) // no comment comes: fail, not hang
	comments := 0
	start := time.Now()
	for comments < 4 {
		line, err := lines.ReadString('\n')
		if err != nil {
			t.Fatalf("the stream ended after %v and %d comments: %v", time.Since(start).Round(time.Millisecond), comments, err)
		}
		if line == ": keep-alive\n" {
			comments++
		}
	}
	if elapsed := time.Since(start); elapsed < 400*time.Millisecond {
		t.Errorf("4 comments within %v; want one per 150 ms of silence", elapsed)
	}
}

// TestStreamBodyIsBounded: the request that opens a stream is kept while the stream is open,
// so it is bounded far below an ordinary body.
func TestStreamBodyIsBounded(t *testing.T) {
	var open atomic.Int32
	srv := serve(t, listener(&open), Config{})
	body := `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"pad":"` + strings.Repeat("x", maxStreamBody) + `"}}`
	req, _ := http.NewRequest("POST", srv.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Mcp-Method", "subscriptions/listen")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	answer, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	checkRefusal(t, resp, answer, http.StatusRequestEntityTooLarge, "body")
	if open.Load() != 0 {
		t.Error("the stream opened")
	}
}
