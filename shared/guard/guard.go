// Package guard is the wall between the network and a local MCP endpoint.
//
// The server has no authentication and no TLS. It is safe only because nothing but this
// machine can reach it, and this package keeps that true. Local answers only requests that
// are addressed to this server and come from no browser or an allowed page. CheckListenAddr
// refuses to listen anywhere but loopback. NewServer bounds how long a connection may take.
// Wrap adds the rest to Local: POST only, a bounded body, a few requests at a time.
//
// The browser is the reason for most of it. A page the user visits runs on this machine, so
// it can reach 127.0.0.1, and the Host and Origin checks are what keep it out.
package guard

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
)

// DefaultMaxBody bounds one message: a request body, or a line on stdio. A JSON-RPC message
// for these tools is a few hundred bytes; the bound only stops one from costing unbounded
// memory.
const DefaultMaxBody = 4 << 20

// DefaultMaxInFlight bounds the requests served at once. One user's MCP client sends a few
// at a time, so 16 leaves room for several clients. A flood beyond it is refused at once,
// not queued: a queue would hold the same connections and goroutines, only longer.
const DefaultMaxInFlight = 16

// Config says what Wrap lets through.
type Config struct {
	// Addr is the listener's own address, ln.Addr(), as Local takes it.
	Addr net.Addr
	// Origins lists the browser pages allowed besides the server's own, as Local takes them.
	Origins []string
	// MaxBody is the largest request body in bytes; 0 means DefaultMaxBody.
	MaxBody int64
	// MaxInFlight is how many requests may be served at once; 0 means DefaultMaxInFlight.
	MaxInFlight int
	// Logger gets a line for every refusal; nil means slog.Default().
	Logger *slog.Logger
}

// Wrap puts next behind the wall. Every request passes these checks in this order, and the
// first that fails answers it, so next sees only requests that passed them all:
//
//  1. Host and Origin (403), as Local checks them.
//  2. Method (405): POST only. This server streams nothing and keeps no sessions, so GET
//     and DELETE have nothing to do.
//  3. Concurrency (503): at most MaxInFlight requests go further at once.
//  4. Body (413): at most MaxBody bytes are read.
//
// Host and Origin come first: they are cheap, and a hostile page learns nothing more, not
// even which methods exist. A request takes its slot before its body is read, so at most
// MaxInFlight bodies are ever in memory.
//
// Wrap fails when Addr is not a loopback address with a real port, or an origin in Origins
// is not written as a browser would send it.
func Wrap(next http.Handler, cfg Config) (http.Handler, error) {
	if cfg.Addr == nil {
		return nil, errors.New("guard.Config.Addr is nil; pass the listener's address, ln.Addr()")
	}
	if cfg.MaxBody < 0 || cfg.MaxInFlight < 0 {
		return nil, fmt.Errorf("guard.Config has a negative limit (MaxBody %d, MaxInFlight %d); use 0 for the default", cfg.MaxBody, cfg.MaxInFlight)
	}
	// The listener's real address is checked too: a "localhost" that resolves to another
	// machine's address is caught here.
	if err := CheckListenAddr(cfg.Addr.String()); err != nil {
		return nil, err
	}
	g := &wall{
		next:    next,
		maxBody: cmp.Or(cfg.MaxBody, DefaultMaxBody),
		slots:   make(chan struct{}, cmp.Or(cfg.MaxInFlight, DefaultMaxInFlight)),
		log:     cmp.Or(cfg.Logger, slog.Default()),
	}
	return Local(g, cfg.Addr, g.log, cfg.Origins...)
}

// wall is the handler Local passes to: the checks after Host and Origin.
type wall struct {
	next    http.Handler
	maxBody int64
	slots   chan struct{} // a request holds one while it is served
	log     *slog.Logger
}

func (g *wall) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		refuse(g.log, w, r, http.StatusMethodNotAllowed, "method", fmt.Sprintf(
			"method %s is not allowed; send JSON-RPC messages with POST (this server streams nothing and keeps no sessions)",
			r.Method))
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

	body, err := g.readBody(w, r)
	if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
		refuse(g.log, w, r, http.StatusRequestEntityTooLarge, "body", fmt.Sprintf(
			"the request body is larger than %d bytes, the most this server reads; MCP messages to it are far smaller",
			g.maxBody))
		return
	}
	if err != nil {
		refuse(g.log, w, r, http.StatusBadRequest, "body", fmt.Sprintf("could not read the request body: %v", err))
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	g.next.ServeHTTP(w, r)
}

// readBody reads the whole body, up to maxBody bytes. mcp-go reads the body itself and
// answers a read error with a JSON-RPC parse error, so a limit wrapped around its reader
// would come out as that, not as 413. Reading it here, and handing next a copy, keeps the
// answer ours; the copy costs at most maxBody.
func (g *wall) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	// A body that announces its size is refused without reading it.
	if r.ContentLength > g.maxBody {
		return nil, &http.MaxBytesError{Limit: g.maxBody}
	}
	return io.ReadAll(http.MaxBytesReader(w, r.Body, g.maxBody))
}
