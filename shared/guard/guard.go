// Package guard is the wall between the network and a local MCP endpoint.
//
// The server has no authentication and no TLS. It is safe only because nothing but this
// machine can reach it, and this package keeps that true. CheckListenAddr refuses to listen
// anywhere but loopback. NewServer bounds how long a connection may take. Wrap answers only
// requests that are addressed to this server, come from no browser or an allowed page, use
// POST, carry a bounded body, and arrive a few at a time.
//
// The browser is the reason for most of it. A page the user visits runs on this machine, so
// it can reach 127.0.0.1, and the Host and Origin checks are what keep it out.
package guard

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// DefaultMaxBody bounds a request body. A JSON-RPC message for these tools is a few hundred
// bytes, and create_note's content has its own limit far below this one. The bound only
// stops a body from costing memory: Wrap holds at most DefaultMaxInFlight of them at once.
const DefaultMaxBody = 4 << 20

// DefaultMaxInFlight bounds the requests served at once. One user's MCP client sends a few
// at a time, so 16 leaves room for several clients. A flood beyond it is refused at once,
// not queued: a queue would hold the same connections and goroutines, only longer.
const DefaultMaxInFlight = 16

// Config says what Wrap lets through.
type Config struct {
	// Addr is the listener's own address, ln.Addr(), taken after net.Listen so that a
	// requested port 0 has become the real port. Hosts and origins must name that port.
	Addr net.Addr
	// Origins lists the browser pages allowed besides the server's own, written the way a
	// browser sends them: "http://localhost:6274" for MCP Inspector.
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
//  1. Host (403): the request names this server, by a loopback name and the listener's
//     port. A page on evil.example whose name now resolves to 127.0.0.1 (DNS rebinding)
//     still sends Host: evil.example, so this check holds even where Origin equals Host.
//  2. Origin (403): a browser names the page a request comes from, and only allowed pages
//     pass. Programs other than browsers send no Origin, and pass.
//  3. Method (405): POST only. This server streams nothing and keeps no sessions, so GET
//     and DELETE have nothing to do.
//  4. Concurrency (503): at most MaxInFlight requests go further at once.
//  5. Body (413): at most MaxBody bytes are read.
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
	addr := cfg.Addr.String()
	// The listener's real address is checked too: a "localhost" that resolves to another
	// machine's address is caught here.
	if err := CheckListenAddr(addr); err != nil {
		return nil, err
	}
	host, port, _ := net.SplitHostPort(addr)
	if port == "0" {
		return nil, fmt.Errorf("guard.Config.Addr %q has port 0; pass the listener's address, ln.Addr(), which has the real port", addr)
	}

	g := &wall{
		next:    next,
		hosts:   map[string]bool{},
		origins: map[string]bool{},
		maxBody: cmp.Or(cfg.MaxBody, DefaultMaxBody),
		slots:   make(chan struct{}, cmp.Or(cfg.MaxInFlight, DefaultMaxInFlight)),
		log:     cfg.Logger,
	}
	if g.log == nil {
		g.log = slog.Default()
	}
	// The listener's own address joins the three names, so a server on 127.0.0.2 answers
	// to 127.0.0.2 as well: it is a loopback address, which no web page's name can become.
	for _, name := range []string{"127.0.0.1", "localhost", "::1", host} {
		authority := net.JoinHostPort(name, port)
		if !g.hosts[authority] {
			g.hostList = append(g.hostList, authority)
		}
		g.hosts[authority] = true
		// Clients leave out the default port: http://localhost/ sends Host: localhost, and
		// its pages have the origin http://localhost.
		if port == "80" {
			authority = strings.TrimSuffix(authority, ":80")
			g.hosts[authority] = true
		}
		g.addOrigin("http://" + authority)
	}
	for _, o := range cfg.Origins {
		canonical, err := canonicalOrigin(o)
		if err != nil {
			return nil, err
		}
		g.addOrigin(canonical)
	}
	return g, nil
}

// wall is the handler Wrap returns.
type wall struct {
	next       http.Handler
	hosts      map[string]bool // allowed Host values, in lower case
	hostList   []string        // the same, in order, for messages
	origins    map[string]bool // allowed Origin values, as browsers write them
	originList []string
	maxBody    int64
	slots      chan struct{} // a request holds one while it is served
	log        *slog.Logger
}

func (g *wall) addOrigin(origin string) {
	if !g.origins[origin] {
		g.origins[origin] = true
		g.originList = append(g.originList, origin)
	}
}

func (g *wall) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !g.hosts[strings.ToLower(r.Host)] {
		g.refuse(w, r, http.StatusForbidden, "host", fmt.Sprintf(
			"Host %q is not allowed; this server answers only requests addressed to %s, which keeps out web pages whose names were rebound to this machine (DNS rebinding)",
			r.Host, strings.Join(g.hostList, ", ")))
		return
	}
	// Browsers send one Origin, in lower case, without a default port. Anything else, "null"
	// included, is not a page this server knows.
	switch origins := r.Header.Values("Origin"); {
	case len(origins) > 1:
		g.refuse(w, r, http.StatusForbidden, "origin", fmt.Sprintf(
			"the request has %d Origin headers; a browser sends one", len(origins)))
		return
	case len(origins) == 1 && !g.origins[strings.ToLower(origins[0])]:
		g.refuse(w, r, http.StatusForbidden, "origin", fmt.Sprintf(
			"Origin %q is not allowed; web pages may call this server only from %s",
			origins[0], strings.Join(g.originList, ", ")))
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		g.refuse(w, r, http.StatusMethodNotAllowed, "method", fmt.Sprintf(
			"method %s is not allowed; send JSON-RPC messages with POST (this server streams nothing and keeps no sessions)",
			r.Method))
		return
	}

	select {
	case g.slots <- struct{}{}:
		defer func() { <-g.slots }()
	default:
		w.Header().Set("Retry-After", "1")
		g.refuse(w, r, http.StatusServiceUnavailable, "busy", fmt.Sprintf(
			"%d requests are already being served, the most this server takes at once; try again in a second",
			cap(g.slots)))
		return
	}

	body, err := g.readBody(w, r)
	if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
		g.refuse(w, r, http.StatusRequestEntityTooLarge, "body", fmt.Sprintf(
			"the request body is larger than %d bytes, the most this server reads; MCP messages to it are far smaller",
			g.maxBody))
		return
	}
	if err != nil {
		g.refuse(w, r, http.StatusBadRequest, "body", fmt.Sprintf("could not read the request body: %v", err))
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

// refusalCode is the JSON-RPC error code of every refusal. The standard codes describe a
// message that was read (parse error, invalid request, unknown method); these requests are
// refused before their message is read, which is what -32000 to -32099 are for: errors the
// server defines. The HTTP status and error.data.rule tell the refusals apart.
const refusalCode = -32000

// refuse answers r with status and a JSON-RPC error naming the rule it broke, and logs it.
// The log names the request, never its body.
func (g *wall) refuse(w http.ResponseWriter, r *http.Request, status int, rule, message string) {
	g.log.Warn("request refused", "rule", rule, "status", status, "reason", message,
		"method", r.Method, "path", r.URL.Path, "host", r.Host, "origin", r.Header.Get("Origin"), "remote", r.RemoteAddr)

	type errorData struct {
		Rule string `json:"rule"`
	}
	type errorObject struct {
		Code    int       `json:"code"`
		Message string    `json:"message"`
		Data    errorData `json:"data"`
	}
	var reply struct {
		JSONRPC string      `json:"jsonrpc"`
		ID      any         `json:"id"` // always null: the request's id was never read
		Error   errorObject `json:"error"`
	}
	reply.JSONRPC = "2.0"
	reply.Error = errorObject{Code: refusalCode, Message: message, Data: errorData{Rule: rule}}
	body, _ := json.Marshal(reply) // cannot fail: strings and an int
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(body, '\n'))
}

// canonicalOrigin checks that an allowed origin is written as a browser sends one (scheme,
// host and port only) and writes it the way a browser would: in lower case, without the
// scheme's default port.
func canonicalOrigin(origin string) (string, error) {
	u, err := url.Parse(origin)
	if err != nil || u.Scheme == "" || u.Host == "" || u.Opaque != "" || u.User != nil ||
		u.Path != "" || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return "", fmt.Errorf("allowed origin %q is not an origin; write a scheme, a host and a port only, like http://localhost:6274", origin)
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if (u.Scheme == "http" && port == "80") || (u.Scheme == "https" && port == "443") {
		port = ""
	}
	if port == "" {
		if strings.Contains(host, ":") {
			host = "[" + host + "]"
		}
		return u.Scheme + "://" + host, nil
	}
	return u.Scheme + "://" + net.JoinHostPort(host, port), nil
}
