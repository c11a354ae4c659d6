package guard

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// server is a wrapped handler served on a real loopback listener, the way a step serves it.
type server struct {
	url  string // http://127.0.0.1:PORT/mcp
	port string
	log  *syncBuffer
}

func serve(t *testing.T, inner http.Handler, cfg Config) server {
	t.Helper()
	return serveWith(t, func(addr net.Addr, logger *slog.Logger) (http.Handler, error) {
		cfg.Addr, cfg.Logger = addr, logger
		return Hostile(inner, cfg)
	})
}

// serveWith serves the handler that wrap builds for the listener's address.
func serveWith(t *testing.T, wrap func(net.Addr, *slog.Logger) (http.Handler, error)) server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	h, err := wrap(ln.Addr(), slog.New(slog.NewTextHandler(io.MultiWriter(logs, t.Output()), nil)))
	if err != nil {
		t.Fatal(err)
	}
	srv := NewServer(h)
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return server{url: "http://" + ln.Addr().String() + "/mcp", port: port, log: logs}
}

// syncBuffer collects the server's log lines, written from its goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// echo stands in for mcp-go: it reads the whole body itself and answers a read error with a
// 400 parse error, as mcp-go does. Otherwise it sends the body back.
func echo(calls *atomic.Int32) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		body, err := io.ReadAll(r.Body)
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"read request body error"}}`)
			return
		}
		w.Write(body)
	})
}

const message = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`

// call sends one request. An empty host leaves the one the URL gives; a nil origin sends none.
type call struct {
	method string
	host   string
	origin []string
	body   io.Reader
	length int64 // Content-Length; -1 sends the body chunked, without one
}

func (c call) do(t *testing.T, url string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(cmpOr(c.method, http.MethodPost), url, cmpOr(c.body, io.Reader(strings.NewReader(message))))
	if err != nil {
		t.Fatal(err)
	}
	if c.host != "" {
		req.Host = c.host
	}
	for _, o := range c.origin {
		req.Header.Add("Origin", o)
	}
	if c.length != 0 {
		req.ContentLength = c.length
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

func cmpOr[T comparable](v, fallback T) T {
	var zero T
	if v == zero {
		return fallback
	}
	return v
}

// checkRefusal checks that resp is a refusal with status, and a JSON-RPC error body with a
// null id that names rule. It returns the error's message.
func checkRefusal(t *testing.T, resp *http.Response, body []byte, status int, rule string) string {
	t.Helper()
	if resp.StatusCode != status {
		t.Fatalf("status %d, want %d; body %s", resp.StatusCode, status, body)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q, want application/json", ct)
	}
	var reply struct {
		JSONRPC string           `json:"jsonrpc"`
		ID      *json.RawMessage `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
			Data    struct {
				Rule string `json:"rule"`
			} `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &reply); err != nil {
		t.Fatalf("body is not JSON: %v\n%s", err, body)
	}
	if !bytes.Contains(body, []byte(`"id":null`)) {
		t.Errorf(`body has no "id": null; a refusal never read the request's id, which JSON-RPC answers with null: %s`, body)
	}
	if reply.JSONRPC != "2.0" || reply.Error.Code != refusalCode || reply.Error.Message == "" {
		t.Errorf("not a JSON-RPC error with code %d and a message: %s", refusalCode, body)
	}
	if reply.Error.Data.Rule != rule {
		t.Errorf("error.data.rule %q, want %q: %s", reply.Error.Data.Rule, rule, body)
	}
	return reply.Error.Message
}

// refusal is a request the wall must refuse, and how.
type refusal struct {
	name   string
	call   call
	status int
	rule   string
	text   string // in the message
}

// hostAndOrigin lists the requests Local refuses, for a server on port p. Hostile must refuse
// them the same way.
func hostAndOrigin(p string) []refusal {
	return []refusal{
		// DNS rebinding: the page's origin and the Host agree, and both are the attacker's.
		{"rebound name", call{host: "evil.example:" + p, origin: []string{"http://evil.example:" + p}}, 403, "host", "DNS rebinding"},
		{"rebound name, no Origin", call{host: "evil.example:" + p}, 403, "host", "evil.example"},
		{"wrong port", call{host: "127.0.0.1:1"}, 403, "host", "127.0.0.1:" + p},
		{"no port", call{host: "127.0.0.1"}, 403, "host", "localhost:" + p},
		{"no port, localhost", call{host: "localhost"}, 403, "host", "[::1]:" + p},
		{"another loopback address", call{host: "127.0.0.2:" + p}, 403, "host", ""},
		{"name that starts like localhost", call{host: "localhost." + p + ".evil.com:" + p}, 403, "host", ""},
		{"GET from a rebound name is a Host refusal", call{method: "GET", host: "evil.example:" + p}, 403, "host", ""},

		{"foreign origin", call{origin: []string{"http://evil.example"}}, 403, "origin", "http://localhost:" + p},
		{"origin with a longer host", call{origin: []string{"http://localhost:" + p + ".evil.com"}}, 403, "origin", ""},
		{"origin with another scheme", call{origin: []string{"https://127.0.0.1:" + p}}, 403, "origin", ""},
		{"origin with another port", call{origin: []string{"http://localhost:1"}}, 403, "origin", ""},
		{"origin without the port", call{origin: []string{"http://localhost"}}, 403, "origin", ""},
		{"origin with a path", call{origin: []string{"http://localhost:" + p + "/"}}, 403, "origin", ""},
		{"origin with a user", call{origin: []string{"http://localhost:" + p + "@evil.example"}}, 403, "origin", ""},
		{"null origin", call{origin: []string{"null"}}, 403, "origin", `"null"`},
		{"empty origin", call{origin: []string{""}}, 403, "origin", ""},
		{"two origins", call{origin: []string{"http://localhost:" + p, "http://evil.example"}}, 403, "origin", "2 Origin headers"},
		{"GET from a foreign page is an Origin refusal", call{method: "GET", origin: []string{"http://evil.example"}}, 403, "origin", ""},
		{"a foreign page's preflight is an Origin refusal", call{method: "OPTIONS", origin: []string{"http://evil.example"}}, 403, "origin", ""},
	}
}

func TestRefusals(t *testing.T) {
	var calls atomic.Int32
	srv := serve(t, echo(&calls), Config{})
	p := srv.port
	tests := append([]refusal{
		{"GET", call{method: "GET"}, 405, "method", "POST"},
		{"DELETE", call{method: "DELETE"}, 405, "method", "POST"},
		{"PUT", call{method: "PUT"}, 405, "method", "POST"},
		{"OPTIONS, a browser's preflight", call{method: "OPTIONS", origin: []string{"http://localhost:" + p}}, 405, "method", "POST"},
	}, hostAndOrigin(p)...)
	checkRefusals(t, srv, &calls, tests)
}

// checkRefusals sends each request to srv and checks its refusal, and that it never reached
// the inner handler, whose calls are counted.
func checkRefusals(t *testing.T, srv server, calls *atomic.Int32, tests []refusal) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := calls.Load()
			resp, body := tt.call.do(t, srv.url)
			if msg := checkRefusal(t, resp, body, tt.status, tt.rule); !strings.Contains(msg, tt.text) {
				t.Errorf("message does not mention %q: %s", tt.text, msg)
			}
			if allow := resp.Header.Get("Allow"); (tt.status == 405) != (allow == "POST") {
				t.Errorf("status %d with Allow %q; want Allow: POST on 405 only", tt.status, allow)
			}
			if calls.Load() != before {
				t.Error("the refused request reached the inner handler")
			}
		})
	}
}

// extraOrigins are the origins TestAllowed and TestLocal add to the server's own.
var extraOrigins = []string{"http://localhost:6274", "HTTPS://Example.COM:443"}

// allowed lists requests that pass Host and Origin on a server on port p that allows
// extraOrigins, by name.
func allowed(p string) map[string]call {
	return map[string]call{
		"no Origin, a program":         {},
		"host localhost":               {host: "localhost:" + p},
		"host [::1]":                   {host: "[::1]:" + p},
		"host in capitals":             {host: "LOCALHOST:" + p},
		"own page":                     {origin: []string{"http://localhost:" + p}},
		"own page by address":          {origin: []string{"http://127.0.0.1:" + p}},
		"own page by IPv6 address":     {origin: []string{"http://[::1]:" + p}},
		"own page, host in capitals":   {origin: []string{"http://LocalHost:" + p}},
		"added origin":                 {origin: []string{"http://localhost:6274"}},
		"added origin, default port":   {origin: []string{"https://example.com"}},
		"added origin, host localhost": {host: "localhost:" + p, origin: []string{"http://localhost:6274"}},
	}
}

func TestAllowed(t *testing.T) {
	var calls atomic.Int32
	srv := serve(t, echo(&calls), Config{Origins: extraOrigins})
	checkAllowed(t, srv, &calls, allowed(srv.port))
}

// checkAllowed sends each request to srv and checks that it reached the inner handler once,
// unchanged, and that nothing was logged as refused.
func checkAllowed(t *testing.T, srv server, calls *atomic.Int32, tests map[string]call) {
	t.Helper()
	for name, c := range tests {
		t.Run(name, func(t *testing.T) {
			before := calls.Load()
			resp, body := c.do(t, srv.url)
			if resp.StatusCode != http.StatusOK || string(body) != message {
				t.Fatalf("status %d, body %s; want 200 and the request's body back", resp.StatusCode, body)
			}
			if calls.Load() != before+1 {
				t.Error("the inner handler was not called once")
			}
		})
	}
	if logs := srv.log.String(); logs != "" {
		t.Errorf("allowed requests were logged as refused:\n%s", logs)
	}
}

// A server on port 80 is called without a port: clients leave the default one out.
func TestDefaultPort(t *testing.T) {
	var calls atomic.Int32
	h, err := Hostile(echo(&calls), Config{
		Addr:   &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 80},
		Logger: slog.New(slog.NewTextHandler(t.Output(), nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		host, origin string
		status       int
	}{
		{"localhost", "", 200},
		{"127.0.0.1", "", 200},
		{"[::1]", "", 200},
		{"localhost:80", "", 200},
		{"localhost", "http://localhost", 200},
		{"localhost", "http://[::1]", 200},
		{"localhost", "http://localhost:80", 403}, // no browser writes the default port
		{"localhost:3000", "", 403},
		{"evil.example", "", 403},
	}
	for _, tt := range tests {
		req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(message))
		req.Host = tt.host
		if tt.origin != "" {
			req.Header.Set("Origin", tt.origin)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != tt.status {
			t.Errorf("Host %q, Origin %q: status %d, want %d; %s", tt.host, tt.origin, rec.Code, tt.status, rec.Body)
		}
	}
}

func TestBodyLimit(t *testing.T) {
	var calls atomic.Int32
	srv := serve(t, echo(&calls), Config{})
	exact := bytes.Repeat([]byte("a"), DefaultMaxBody)
	over := bytes.Repeat([]byte("a"), DefaultMaxBody+1)

	for _, chunked := range []bool{false, true} {
		name, length := "Content-Length", int64(0)
		if chunked {
			name, length = "chunked", -1
		}
		t.Run(name, func(t *testing.T) {
			before := calls.Load()
			resp, body := call{body: bytes.NewReader(exact), length: length}.do(t, srv.url)
			if resp.StatusCode != http.StatusOK || !bytes.Equal(body, exact) {
				t.Fatalf("a body of exactly the limit: status %d, %d bytes back; want 200 and all %d", resp.StatusCode, len(body), len(exact))
			}
			resp, body = call{body: bytes.NewReader(over), length: length}.do(t, srv.url)
			checkRefusal(t, resp, body, http.StatusRequestEntityTooLarge, "body")
			if calls.Load() != before+1 {
				t.Error("the oversized body reached the inner handler")
			}
		})
	}
}

// A body announced as too large is refused before a byte of it is read: the client below
// sends only its headers, and still gets its answer.
func TestBodyLimitAnnounced(t *testing.T) {
	var calls atomic.Int32
	srv := serve(t, echo(&calls), Config{})
	conn, err := net.Dial("tcp", strings.TrimPrefix(strings.TrimSuffix(srv.url, "/mcp"), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second)) // a failure guard: the answer comes at once
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n",
		srv.port, DefaultMaxBody+1)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer before the body was sent: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	checkRefusal(t, resp, body, http.StatusRequestEntityTooLarge, "body")
}

func TestConcurrencyLimit(t *testing.T) {
	entered := make(chan struct{})
	release := make(chan struct{})
	held := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entered <- struct{}{}
		<-release
	})
	srv := serve(t, held, Config{MaxInFlight: 3})
	type result struct {
		resp *http.Response
		body []byte
		err  error
	}
	send := func(results chan<- result) {
		resp, err := http.Post(srv.url, "application/json", strings.NewReader(message))
		if err != nil {
			results <- result{err: err}
			return
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		results <- result{resp, body, err}
	}

	held3 := make(chan result, 3)
	for range 3 {
		go send(held3)
		<-entered
	}

	// Three requests are held inside; a fourth finds no slot, or gets in, which is the bug.
	fourth := make(chan result, 1)
	go send(fourth)
	select {
	case r := <-fourth:
		if r.err != nil {
			t.Fatal(r.err)
		}
		checkRefusal(t, r.resp, r.body, http.StatusServiceUnavailable, "busy")
		if got := r.resp.Header.Get("Retry-After"); got != "1" {
			t.Errorf("Retry-After %q, want 1", got)
		}
	case <-entered:
		t.Error("a fourth request reached the inner handler while three were held")
	}

	close(release)
	for range 3 {
		switch r := <-held3; {
		case r.err != nil:
			t.Error(r.err)
		case r.resp.StatusCode != http.StatusOK:
			t.Errorf("a held request ended with status %d, want 200", r.resp.StatusCode)
		}
	}
	// The slots are free again.
	go func() { <-entered }()
	if resp, body := (call{}).do(t, srv.url); resp.StatusCode != http.StatusOK {
		t.Errorf("after the others finished: status %d, want 200; %s", resp.StatusCode, body)
	}
}

// A refusal is logged with its rule and the request's headers, never its body.
func TestRefusalLog(t *testing.T) {
	var calls atomic.Int32
	srv := serve(t, echo(&calls), Config{})
	secret := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"content":"my diary"}}`
	call{host: "evil.example:" + srv.port, body: strings.NewReader(secret)}.do(t, srv.url)

	logs := srv.log.String()
	for _, want := range []string{"request refused", "rule=host", "status=403", "host=evil.example:" + srv.port} {
		if !strings.Contains(logs, want) {
			t.Errorf("log lacks %q:\n%s", want, logs)
		}
	}
	if strings.Contains(logs, "my diary") {
		t.Errorf("log contains the request body:\n%s", logs)
	}
}

func TestHostileConfig(t *testing.T) {
	loopback := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 3000}
	tests := []struct {
		name string
		cfg  Config
		want string // in the error
	}{
		{"no address", Config{}, "ln.Addr()"},
		{"port 0", Config{Addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)}}, "port 0"},
		{"LAN address", Config{Addr: &net.TCPAddr{IP: net.IPv4(192, 168, 1, 5), Port: 3000}}, "no authentication"},
		{"all interfaces", Config{Addr: &net.TCPAddr{Port: 3000}}, "every network interface"},
		{"origin without scheme", Config{Addr: loopback, Origins: []string{"localhost:6274"}}, "http://localhost:6274"},
		{"origin with a path", Config{Addr: loopback, Origins: []string{"http://localhost:6274/"}}, "not an origin"},
		{"negative limit", Config{Addr: loopback, MaxBody: -1}, "negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Hostile(http.NotFoundHandler(), tt.cfg)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one mentioning %q", err, tt.want)
			}
		})
	}
}

func TestCanonicalOrigin(t *testing.T) {
	for in, want := range map[string]string{
		"http://localhost:6274":   "http://localhost:6274",
		"HTTP://LocalHost:6274":   "http://localhost:6274",
		"https://example.com:443": "https://example.com",
		"http://example.com:443":  "http://example.com:443",
		"http://[::1]:80":         "http://[::1]",
		"http://[::1]:6274":       "http://[::1]:6274",
	} {
		if got, err := canonicalOrigin(in); got != want || err != nil {
			t.Errorf("canonicalOrigin(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "null", "localhost", "localhost:6274", "http://", "http://localhost:6274/", "http://localhost:6274?x", "http://a@localhost:6274", "http://localhost:6274#x"} {
		if got, err := canonicalOrigin(in); err == nil {
			t.Errorf("canonicalOrigin(%q) = %q, want an error", in, got)
		}
	}
}

// slowClient opens a connection and sends a POST whose body announces length bytes and then
// arrives a byte every interval, as a stuck or hostile client would send it.
func slowClient(t *testing.T, srv server, length int, interval time.Duration) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", "127.0.0.1:"+srv.port)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n",
		srv.port, length)
	go func() {
		for range length {
			if _, err := conn.Write([]byte(" ")); err != nil {
				return // the server gave up on it, or the test ended
			}
			time.Sleep(interval)
		}
	}()
	return conn
}

// Clients that send their bodies a byte at a time hold no slot while they do: as many of them
// as there are slots leave the server answering everyone else, and each is cut off once its
// body has taken longer than BodyTimeout.
func TestSlowBodiesHoldNoSlot(t *testing.T) {
	var calls atomic.Int32
	srv := serve(t, echo(&calls), Config{BodyTimeout: 2 * time.Second})
	var slow []net.Conn
	for range DefaultMaxInFlight {
		slow = append(slow, slowClient(t, srv, 1000, 50*time.Millisecond))
	}
	// Long enough for the server to be reading every slow body.
	time.Sleep(300 * time.Millisecond)

	for i := range 3 {
		if resp, body := (call{}).do(t, srv.url); resp.StatusCode != http.StatusOK {
			t.Fatalf("request %d while %d bodies trickle in: status %d, %s; want 200", i, len(slow), resp.StatusCode, body)
		}
	}
	for i, conn := range slow {
		conn.SetReadDeadline(time.Now().Add(10 * time.Second)) // a failure guard: the answer comes after BodyTimeout
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("slow client %d got no answer: %v", i, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		checkRefusal(t, resp, body, http.StatusRequestTimeout, "body")
	}
	if calls.Load() != 3 {
		t.Errorf("the inner handler ran %d times, want 3: a slow body reached it", calls.Load())
	}
}

// startBody opens a connection and sends the first 600 bytes of a body of 1,000, which the
// server reads into a buffer of 1,001 bytes. The caller closes the connection.
func startBody(t *testing.T, srv server) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", "127.0.0.1:"+srv.port)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%s\r\nContent-Length: 1000\r\n\r\n%s", srv.port, strings.Repeat(" ", 600))
	return conn
}

// waitUntilBusy sends small requests until one is refused as busy, which happens once the
// server has read what the test sent before, and returns the refusal's message.
func waitUntilBusy(t *testing.T, srv server) string {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		resp, body := (call{}).do(t, srv.url)
		if resp.StatusCode == http.StatusServiceUnavailable {
			return checkRefusal(t, resp, body, http.StatusServiceUnavailable, "busy")
		}
		if time.Now().After(deadline) {
			t.Fatalf("a small body was still read while the others held the budget: status %d", resp.StatusCode)
		}
	}
}

// Bodies share a budget of MaxInFlight × MaxBody bytes: one that holds it all leaves no room
// for another until it is done.
func TestArrivingBodiesAreBounded(t *testing.T) {
	var calls atomic.Int32
	srv := serve(t, echo(&calls), Config{MaxBody: 1000, MaxInFlight: 1})
	conn := startBody(t, srv)
	defer conn.Close()
	// Once the server has read those 600 bytes, the budget is spent.
	waitUntilBusy(t, srv)

	// The first body ends and is served; its bytes go back to the budget.
	io.WriteString(conn, strings.Repeat(" ", 400))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("the first body, once complete: status %d, want 200", resp.StatusCode)
	}
	if resp, body := (call{}).do(t, srv.url); resp.StatusCode != http.StatusOK {
		t.Errorf("after the first body was served: status %d, %s; want 200", resp.StatusCode, body)
	}
}

// A body counts against the budget until its request is answered, not only while it arrives:
// with one request in flight holding half the budget and one body arriving holding the rest,
// a third body is refused for want of memory, though a slot is free.
func TestBodiesCountUntilAnswered(t *testing.T) {
	release := make(chan struct{})
	var started sync.WaitGroup
	started.Add(1)
	blocked := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		if r.Header.Get("X-Test") == "hold" {
			started.Done()
			<-release
		}
		w.Write([]byte("{}"))
	})
	srv := serve(t, blocked, Config{MaxBody: 1000, MaxInFlight: 2}) // a budget of 2 × 1,001 bytes
	defer close(release)

	// A: a whole body of 1,000 bytes, whose handler then waits. It holds one slot, and the
	// 1,001 bytes its body was read into.
	go func() {
		req, _ := http.NewRequest(http.MethodPost, srv.url, strings.NewReader(strings.Repeat(" ", 1000)))
		req.Header.Set("X-Test", "hold")
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	started.Wait()

	// B: a body still arriving, read into 1,001 bytes. With A's, that is the whole budget.
	conn := startBody(t, srv)
	defer conn.Close()

	// C, small, finds no room once the server has read B's 600 bytes; if A's body had gone back
	// to the budget when it was read, C would be served.
	if msg := waitUntilBusy(t, srv); !strings.Contains(msg, "bodies") {
		t.Errorf("refused for %q; want the budget of bodies, not the slots", msg)
	}
}

// GET and DELETE are how MCP clients ask whether the server streams or keeps sessions: 405 is
// their answer, and no warning. Any other method still warns.
func TestProtocolMethodsAreNoWarning(t *testing.T) {
	var calls atomic.Int32
	srv := serve(t, echo(&calls), Config{})
	for _, method := range []string{http.MethodGet, http.MethodDelete} {
		resp, body := call{method: method, body: http.NoBody}.do(t, srv.url)
		checkRefusal(t, resp, body, http.StatusMethodNotAllowed, "method")
	}
	if logs := srv.log.String(); logs != "" {
		t.Errorf("GET and DELETE were logged:\n%s", logs)
	}
	resp, body := call{method: http.MethodPut}.do(t, srv.url)
	checkRefusal(t, resp, body, http.StatusMethodNotAllowed, "method")
	if logs := srv.log.String(); !strings.Contains(logs, "level=WARN") || !strings.Contains(logs, "method=PUT") {
		t.Errorf("PUT was not logged as a warning:\n%s", logs)
	}
}
