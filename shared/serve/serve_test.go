package serve

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// started runs serveHTTP with handler on a free port and returns its URL, and a channel that
// gets what serveHTTP returned.
func started(t *testing.T, ctx context.Context, handler http.Handler, logs io.Writer, limit time.Duration) (string, <-chan error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		done <- serveHTTP(ctx, &http.Server{Handler: handler}, ln, slog.New(slog.NewTextHandler(logs, nil)), limit)
	}()
	return "http://" + ln.Addr().String(), done
}

// get sends a request and returns the body of its answer, or the error, on a channel.
func get(url string, header http.Header) <-chan string {
	answer := make(chan string, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		req.Header = header
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			answer <- "error: " + err.Error()
			return
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		answer <- string(body)
	}()
	return answer
}

func receive[T any](t *testing.T, c <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(time.Minute): // far longer than it takes, even on a busy machine
		t.Fatalf("no %s within a minute", what)
		panic("unreachable")
	}
}

// TestHTTPDrains: a request under way when the server is told to stop gets its answer; a new
// connection is refused meanwhile; and serveHTTP returns only after the answer.
func TestHTTPDrains(t *testing.T) {
	arrived, release := make(chan struct{}), make(chan struct{})
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		<-release
		if r.Context().Err() != nil {
			io.WriteString(w, "cancelled")
			return
		}
		io.WriteString(w, "the answer")
	})
	ctx, stop := context.WithCancel(t.Context())
	url, done := started(t, ctx, handler, io.Discard, time.Minute)

	answer := get(url, nil)
	receive(t, arrived, "request")
	stop()
	// The listener closes at once: a new connection is refused.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
		if err != nil {
			break
		}
		conn.Close()
		if time.Now().After(deadline) {
			t.Fatal("the stopping server still accepts connections")
		}
	}
	select {
	case err := <-done:
		t.Fatalf("serveHTTP returned (%v) while a request was under way", err)
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	if got := receive(t, answer, "answer"); got != "the answer" {
		t.Errorf("the request under way got %q; want its answer", got)
	}
	if err := receive(t, done, "return from serveHTTP"); err != nil {
		t.Errorf("serveHTTP = %v; want nil", err)
	}
}

// TestHTTPCancelsAfterTheLimit: a request still running when the limit passes is cancelled,
// answers with what it does when cancelled, and the log says so.
func TestHTTPCancelsAfterTheLimit(t *testing.T) {
	arrived := make(chan struct{})
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		<-r.Context().Done()
		io.WriteString(w, "cancelled")
	})
	var logs lockedBuffer
	ctx, stop := context.WithCancel(t.Context())
	url, done := started(t, ctx, handler, &logs, 200*time.Millisecond)
	answer := get(url, nil)
	receive(t, arrived, "request")
	stop()
	if got := receive(t, answer, "answer"); got != "cancelled" {
		t.Errorf("the request that outlived the limit got %q; want the answer it gives when cancelled", got)
	}
	if err := receive(t, done, "return from serveHTTP"); err != nil {
		t.Errorf("serveHTTP = %v; want nil", err)
	}
	if !strings.Contains(logs.String(), "cancelling them") {
		t.Errorf("the log does not say requests were cancelled:\n%s", logs.String())
	}
}

// TestHTTPEndsListenStreams: a subscriptions/listen stream ends as soon as the server stops,
// with its final answer, and does not hold the shutdown until the limit.
func TestHTTPEndsListenStreams(t *testing.T) {
	arrived := make(chan struct{})
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		<-r.Context().Done()
		io.WriteString(w, "stream ended")
	})
	var logs lockedBuffer
	ctx, stop := context.WithCancel(t.Context())
	url, done := started(t, ctx, handler, &logs, time.Minute)
	answer := get(url, http.Header{"Mcp-Method": {"subscriptions/listen"}})
	receive(t, arrived, "request")
	stop()
	if got := receive(t, answer, "answer"); got != "stream ended" {
		t.Errorf("the listen stream got %q; want its final answer", got)
	}
	if err := receive(t, done, "return from serveHTTP"); err != nil {
		t.Errorf("serveHTTP = %v; want nil", err)
	}
	if strings.Contains(logs.String(), "cancelling") {
		t.Errorf("ending a listen stream was logged as cancelling a request:\n%s", logs.String())
	}
}

// TestHTTPListenerFails: a listener that fails is an error, returned at once.
func TestHTTPListenerFails(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
	err = serveHTTP(t.Context(), &http.Server{Handler: http.NotFoundHandler()}, ln, slog.New(slog.DiscardHandler), time.Minute)
	if err == nil {
		t.Error("serveHTTP on a closed listener = nil; want its error")
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	sb strings.Builder
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.sb.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.sb.String()
}
