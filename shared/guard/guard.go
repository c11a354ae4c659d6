// Package guard is the wall between the network and a local MCP endpoint.
//
// The server has no authentication and no TLS. It is safe only because nothing but this
// machine can reach it, and this package keeps that true. Local answers only requests that
// are addressed to this server and come from no browser or an allowed page. CheckListenAddr
// refuses to listen anywhere but loopback. NewServer bounds how long a connection may take,
// and how many may be open at once.
// Hostile adds limits to Local: POST only, a bounded body, a few requests at a time.
//
// The browser is the reason for most of it. A page the user visits runs on this machine, so
// it can reach 127.0.0.1, and the Host and Origin checks are what keep it out.
package guard

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"time"
)

// DefaultMaxBody bounds one message: a request body, or a line on stdio. A JSON-RPC message
// for these tools is a few hundred bytes; the bound only stops one from costing unbounded
// memory.
const DefaultMaxBody = 4 << 20

// DefaultMaxInFlight bounds the requests served at once. One user's MCP client sends a few
// at a time, so 16 leaves room for several clients. A flood beyond it is refused at once,
// not queued: a queue would hold the same connections and goroutines, only longer.
const DefaultMaxInFlight = 16

// DefaultBodyTimeout bounds the time a request body may take to arrive. A body of at most
// DefaultMaxBody crosses loopback in milliseconds; a client still sending after 5 s is stuck,
// or trickling bytes on purpose.
const DefaultBodyTimeout = 5 * time.Second

// Config says what Hostile lets through.
type Config struct {
	// Addr is the listener's own address, ln.Addr(), as Local takes it.
	Addr net.Addr
	// Origins lists the browser pages allowed besides the server's own, as Local takes them.
	Origins []string
	// MaxBody is the largest request body in bytes; 0 means DefaultMaxBody.
	MaxBody int64
	// MaxInFlight is how many requests may be served at once; 0 means DefaultMaxInFlight.
	MaxInFlight int
	// BodyTimeout is how long a request body may take to arrive; 0 means DefaultBodyTimeout.
	BodyTimeout time.Duration
	// MaxStreams is how many subscriptions/listen streams may be open at once, besides the
	// MaxInFlight requests; 0 means DefaultMaxStreams.
	MaxStreams int
	// KeepAlive is how long a stream may stay silent before it gets a comment; 0 means
	// DefaultKeepAlive.
	KeepAlive time.Duration
	// Logger gets a line for every refusal; nil means slog.Default().
	Logger *slog.Logger
}

// Hostile puts next behind every check against hostile requests: those from a web page or
// addressed to another name, and those that would take more of the server than a client
// needs. Every request passes these checks in this order, and the first that fails answers
// it, so next sees only requests that passed them all:
//
//  1. Host and Origin (403), as Local checks them.
//  2. Method (405): POST only. This server keeps no sessions, and its only streams answer
//     subscriptions/listen POSTs, so GET and DELETE have nothing to do.
//  3. Body (413, 408): at most MaxBody bytes, arriving within BodyTimeout.
//  4. Concurrency (503): at most MaxInFlight requests go further at once. A request that opens
//     a subscriptions/listen stream, which lasts as long as its client listens, takes none of
//     those slots but one of MaxStreams places of its own (503 with Retry-After when none is
//     free), so that open streams never keep an ordinary request waiting; see serveStream.
//
// Host and Origin come first: they are cheap, and a hostile page learns nothing more, not
// even which methods exist, so its CORS preflight (OPTIONS) gets 403, not 405. The body comes
// before the slot, so a client that sends its body a byte a second holds no slot while it
// does: it holds only the bytes it has sent. Every body counts against one budget of
// MaxInFlight × MaxBody bytes, from its first byte until its request has been answered, so
// the bodies this handler holds, arriving or in flight, never take more than that together;
// a body that would go past it is refused with 503. (What next copies of a body is next's to
// bound.)
//
// Hostile fails when Addr is not a loopback address with a real port, or an origin in Origins
// is not written as a browser would send it.
func Hostile(next http.Handler, cfg Config) (http.Handler, error) {
	if cfg.Addr == nil {
		return nil, errors.New("guard.Config.Addr is nil; pass the listener's address, ln.Addr()")
	}
	if cfg.MaxBody < 0 || cfg.MaxInFlight < 0 || cfg.BodyTimeout < 0 || cfg.MaxStreams < 0 || cfg.KeepAlive < 0 {
		return nil, fmt.Errorf("guard.Config has a negative limit (MaxBody %d, MaxInFlight %d, BodyTimeout %v, MaxStreams %d, KeepAlive %v); use 0 for the default",
			cfg.MaxBody, cfg.MaxInFlight, cfg.BodyTimeout, cfg.MaxStreams, cfg.KeepAlive)
	}
	// The listener's real address is checked too: a "localhost" that resolves to another
	// machine's address is caught here.
	if err := CheckListenAddr(cfg.Addr.String()); err != nil {
		return nil, err
	}
	g := &limits{
		next:        next,
		maxBody:     cmp.Or(cfg.MaxBody, DefaultMaxBody),
		bodyTimeout: cmp.Or(cfg.BodyTimeout, DefaultBodyTimeout),
		slots:       make(chan struct{}, cmp.Or(cfg.MaxInFlight, DefaultMaxInFlight)),
		streams:     make(chan struct{}, cmp.Or(cfg.MaxStreams, DefaultMaxStreams)),
		keepAlive:   cmp.Or(cfg.KeepAlive, DefaultKeepAlive),
		log:         cmp.Or(cfg.Logger, slog.Default()),
	}
	// Room for MaxInFlight bodies of the largest size, each with the one byte more that
	// tells a body at the limit from one over it.
	g.arriving.left = int64(cap(g.slots)) * (g.maxBody + 1)
	return Local(g, cfg.Addr, g.log, cfg.Origins...)
}

// limits is the handler Local passes to: the checks after Host and Origin, each a limit on
// what one request may take (its method, its body, a slot).
type limits struct {
	next        http.Handler
	maxBody     int64
	bodyTimeout time.Duration
	arriving    budget        // bytes of the bodies held: arriving, or of a request not yet answered
	slots       chan struct{} // a request holds one while it is served
	streams     chan struct{} // a listen stream holds one while it is open (streams.go)
	keepAlive   time.Duration
	log         *slog.Logger
}

func (g *limits) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		// Clients ask with GET whether the server streams, and some end a session with
		// DELETE; 405 is the answer the MCP spec gives both. Nothing is wrong, so it is no
		// warning.
		level := slog.LevelWarn
		if r.Method == http.MethodGet || r.Method == http.MethodDelete {
			level = slog.LevelDebug
		}
		w.Header().Set("Allow", http.MethodPost)
		refuseAt(level, g.log, w, r, http.StatusMethodNotAllowed, "method", fmt.Sprintf(
			"method %s is not allowed; send JSON-RPC messages with POST (this server keeps no sessions, and its only streams answer subscriptions/listen POSTs)",
			r.Method))
		return
	}

	body, err := g.readBody(w, r)
	defer func() { g.arriving.give(int64(cap(body))) }()
	if err != nil {
		g.refuseBody(w, r, err)
		return
	}
	if isStream(r, body) {
		opening := body
		g.arriving.give(int64(cap(body)))
		body = nil // given back: a stream holds no part of the budget
		r.Body = whole(opening)
		g.serveStream(w, r, opening)
		return
	}

	select {
	case g.slots <- struct{}{}:
		defer func() { <-g.slots }()
	default:
		w.Header().Set("Retry-After", "1")
		refuse(g.log, w, r, http.StatusServiceUnavailable, "busy", fmt.Sprintf(
			"%d requests are already being served, the most this server takes at once; try again in a second",
			cap(g.slots)))
		return
	}
	r.Body = whole(body)
	g.next.ServeHTTP(w, r)
}

// refuseBody answers a request whose body could not be read, with the reason.
func (g *limits) refuseBody(w http.ResponseWriter, r *http.Request, err error) {
	if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
		refuse(g.log, w, r, http.StatusRequestEntityTooLarge, "body", fmt.Sprintf(
			"the request body is larger than %d bytes, the most this server reads; MCP messages to it are far smaller",
			g.maxBody))
		return
	}
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		refuse(g.log, w, r, http.StatusRequestTimeout, "body", fmt.Sprintf(
			"the request body took longer than %v to arrive; send it all at once", g.bodyTimeout))
	case errors.Is(err, errNoBudget):
		w.Header().Set("Retry-After", "1")
		refuse(g.log, w, r, http.StatusServiceUnavailable, "busy",
			"the server is receiving as many request bodies as it holds at once; try again in a second")
	default:
		refuse(g.log, w, r, http.StatusBadRequest, "body", fmt.Sprintf("could not read the request body: %v", err))
	}
}

// readBody reads the whole body, up to maxBody bytes, within bodyTimeout. mcp-go reads the
// body itself and answers a read error with a JSON-RPC parse error, so a limit wrapped around
// its reader would come out as that, not as 413. Reading it here, and handing next a copy,
// keeps the answer ours; the copy costs at most maxBody.
//
// The memory for the body is taken from the budget as the body grows, so a slow body holds
// only about what it sent. The caller gives back cap(body) once its request is answered; after
// an error, readBody has given back what it took.
func (g *limits) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	// A body that announces its size is refused without reading it.
	if r.ContentLength > g.maxBody {
		return nil, &http.MaxBytesError{Limit: g.maxBody}
	}
	// The server's ReadTimeout covers headers and body, and is long. This deadline is the
	// body's own; net/http lifts it once the body has been read to its end. A ResponseWriter
	// without deadlines (a test's recorder) reads without one.
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(g.bodyTimeout))

	src := http.MaxBytesReader(w, r.Body, g.maxBody)
	var buf []byte
	for {
		if len(buf) == cap(buf) {
			// Double, as io.ReadAll does, but never past what MaxBytesReader lets through.
			size := min(max(512, 2*int64(cap(buf))), g.maxBody+1)
			if !g.arriving.take(size - int64(cap(buf))) {
				g.arriving.give(int64(cap(buf)))
				return nil, errNoBudget
			}
			grown := make([]byte, len(buf), size)
			copy(grown, buf)
			buf = grown
		}
		n, err := src.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		switch {
		case err == io.EOF:
			return buf, nil
		case err != nil:
			g.arriving.give(int64(cap(buf)))
			return nil, err
		}
	}
}

// errNoBudget is readBody's answer when the bodies already held, arriving or in flight, take
// all the memory the limits give them.
var errNoBudget = errors.New("no room for another body")

// A budget is a number of bytes, taken by the requests whose bodies arrive and given back once
// they are answered.
type budget struct {
	mu   sync.Mutex
	left int64
}

// take takes n bytes, or reports false and takes nothing when fewer are left.
func (b *budget) take(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if n > b.left {
		return false
	}
	b.left -= n
	return true
}

func (b *budget) give(n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.left += n
}
