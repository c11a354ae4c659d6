package guard

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"vaultmcp/shared/jsonrpc"
)

// DefaultMaxStreams bounds the subscriptions/listen streams open at once. A client keeps one
// open to hear of changes; 16 leaves room for several clients, and for one that reconnects
// before the server has noticed its last stream close.
const DefaultMaxStreams = 16

// DefaultKeepAlive is how long a stream may stay silent before it gets a keep-alive comment.
// Proxies and clients give up on a connection that says nothing for a minute or so; a comment
// every 15 s keeps it open, and tells the server within seconds when the client is gone.
const DefaultKeepAlive = 15 * time.Second

// maxStreamBody bounds the request that opens a stream. Its body stays in memory for as long as
// the stream is open, so it may not hold what an ordinary request may: a filter and a few
// thousand URIs to follow fit easily.
const maxStreamBody = 256 << 10

// streamWriteWait bounds one write to a stream. A client on this machine takes each event at
// once; one that stops reading is stuck or gone, and its stream is closed.
const streamWriteWait = 10 * time.Second

// retryStream is when a client refused a stream may try again, in seconds: streams close when
// their clients leave, not in the second a request takes.
const retryStream = 10

// isStream reports whether a request opens a subscriptions/listen stream: its Mcp-Method
// header says so, as 2026-07-28 requires of every request over HTTP, and its body agrees. A
// header that disagrees with the body is mcp-go's to refuse; here it opens nothing.
func isStream(r *http.Request, body []byte) bool {
	return r.Header.Get("Mcp-Method") == jsonrpc.ListenMethod && jsonrpc.OpensStream(body)
}

// serveStream serves a request that opens a listen stream. A stream lasts as long as its client
// wants notifications, hours perhaps, so it takes no slot, which would keep an ordinary request
// waiting that long: streams have places of their own, MaxStreams of them. Its body holds no
// part of the arriving budget either (ServeHTTP gives it back), only maxStreamBody at most.
func (g *limits) serveStream(w http.ResponseWriter, r *http.Request, body []byte) {
	if len(body) > maxStreamBody {
		refuse(g.log, w, r, http.StatusRequestEntityTooLarge, "body", fmt.Sprintf(
			"a subscriptions/listen request is %d bytes; one that opens a stream may be at most %d, since its body is kept while the stream is open",
			len(body), maxStreamBody))
		return
	}
	select {
	case g.streams <- struct{}{}:
		defer func() { <-g.streams }()
	default:
		w.Header().Set("Retry-After", strconv.Itoa(retryStream))
		refuse(g.log, w, r, http.StatusServiceUnavailable, "streams", fmt.Sprintf(
			"%d subscriptions/listen streams are already open, the most this server keeps at once; close one you no longer read, or try again in %d seconds",
			cap(g.streams), retryStream))
		return
	}

	// The server's WriteTimeout bounds an answer from the start of its request; a stream would
	// be cut by it. Each write to the stream has its own deadline instead (see stream).
	rc := http.NewResponseController(w)
	rc.SetWriteDeadline(time.Time{})
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	s := &stream{w: w, rc: rc, gone: cancel, last: time.Now()}
	stop := s.keepAlive(ctx, g.keepAlive)
	defer stop() // before the handler returns: nothing may write to w after that
	g.next.ServeHTTP(s, r.WithContext(ctx))
}

// stream is the ResponseWriter of a listen stream. It gives each write a deadline, ends the
// request when a write fails (the client left, or stopped reading), and writes a keep-alive
// comment into a stream that has been silent too long.
type stream struct {
	w    http.ResponseWriter
	rc   *http.ResponseController
	gone context.CancelFunc

	mu   sync.Mutex
	sse  bool      // the answer is an event stream, into which comments may go
	last time.Time // when something was last written
}

func (s *stream) Header() http.Header { return s.w.Header() }

// Unwrap lets http.ResponseController reach the connection.
func (s *stream) Unwrap() http.ResponseWriter { return s.w }

func (s *stream) WriteHeader(status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sse = status == http.StatusOK && strings.HasPrefix(s.w.Header().Get("Content-Type"), "text/event-stream")
	s.w.WriteHeader(status)
}

func (s *stream) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.write(p)
}

// write writes p within streamWriteWait. The caller holds s.mu.
func (s *stream) write(p []byte) (int, error) {
	s.rc.SetWriteDeadline(time.Now().Add(streamWriteWait))
	n, err := s.w.Write(p)
	if err == nil {
		err = s.rc.Flush()
	}
	if err != nil {
		s.gone()
	}
	s.last = time.Now()
	return n, err
}

func (s *stream) Flush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.rc.Flush(); err != nil {
		s.gone()
	}
}

// keepAlive writes a comment into the stream whenever it has been silent for every, until ctx
// ends or stop is called; stop returns once it has stopped. SSE clients skip a line that starts
// with a colon.
func (s *stream) keepAlive(ctx context.Context, every time.Duration) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(every / 3)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case now := <-tick.C:
				s.mu.Lock()
				if s.sse && now.Sub(s.last) >= every {
					s.write([]byte(": keep-alive\n\n"))
				}
				s.mu.Unlock()
			}
		}
	}()
	return func() {
		cancel()
		<-done
	}
}
