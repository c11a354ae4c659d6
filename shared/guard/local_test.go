package guard

import (
	"bytes"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// serveLocal serves Local(inner) on a real loopback listener, with extraOrigins allowed.
func serveLocal(t *testing.T, inner http.Handler) server {
	t.Helper()
	return serveWith(t, func(addr net.Addr, logger *slog.Logger) (http.Handler, error) {
		return Local(inner, addr, logger, extraOrigins...)
	})
}

// Local refuses what Hostile refuses for Host and Origin, the same way.
func TestLocal(t *testing.T) {
	var calls atomic.Int32
	srv := serveLocal(t, echo(&calls))
	checkRefusals(t, srv, &calls, hostAndOrigin(srv.port))
}

func TestLocalAllowed(t *testing.T) {
	var calls atomic.Int32
	srv := serveLocal(t, echo(&calls))
	checkAllowed(t, srv, &calls, allowed(srv.port))
}

// Local checks Host and Origin and nothing else: the method and the body are next's to judge.
func TestLocalChecksNothingElse(t *testing.T) {
	var calls atomic.Int32
	srv := serveLocal(t, echo(&calls))
	large := bytes.Repeat([]byte("a"), DefaultMaxBody+1)
	for name, c := range map[string]call{
		"GET":                    {method: http.MethodGet, body: strings.NewReader("")},
		"DELETE":                 {method: http.MethodDelete, body: strings.NewReader("")},
		"a body over the bound":  {body: bytes.NewReader(large)},
		"the own page, with GET": {method: http.MethodGet, origin: []string{"http://localhost:" + srv.port}, body: strings.NewReader("")},
	} {
		t.Run(name, func(t *testing.T) {
			before := calls.Load()
			if resp, body := c.do(t, srv.url); resp.StatusCode != http.StatusOK {
				t.Errorf("status %d, want 200 from the inner handler; %.200s", resp.StatusCode, body)
			}
			if calls.Load() != before+1 {
				t.Error("the inner handler was not called once")
			}
		})
	}
}

// A server that listens beyond loopback (steps 2 to 8 let you) still answers only requests
// addressed to a loopback name: what arrives for its network address is refused.
func TestLocalBeyondLoopback(t *testing.T) {
	var calls atomic.Int32
	for _, addr := range []*net.TCPAddr{
		{Port: 3000}, // every interface
		{IP: net.IPv4(192, 168, 1, 5), Port: 3000},
	} {
		h, err := Local(echo(&calls), addr, slog.New(slog.NewTextHandler(t.Output(), nil)))
		if err != nil {
			t.Fatal(err)
		}
		for host, status := range map[string]int{
			"localhost:3000":     200,
			"127.0.0.1:3000":     200,
			"[::1]:3000":         200,
			"192.168.1.5:3000":   403,
			"0.0.0.0:3000":       403,
			"[::]:3000":          403,
			"evil.example:3000":  403,
			"mymachine.lan:3000": 403,
		} {
			req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(message))
			req.Host = host
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != status {
				t.Errorf("listening on %s, Host %q: status %d, want %d; %s", addr, host, rec.Code, status, rec.Body)
			}
		}
	}
}

func TestLocalConfig(t *testing.T) {
	loopback := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 3000}
	tests := []struct {
		name    string
		addr    net.Addr
		origins []string
		want    string // in the error
	}{
		{"no address", nil, nil, "ln.Addr()"},
		{"port 0", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)}, nil, "port 0"},
		{"not TCP", &net.UnixAddr{Name: "/tmp/mcp.sock", Net: "unix"}, nil, "not host:port"},
		{"origin without scheme", loopback, []string{"localhost:6274"}, "http://localhost:6274"},
		{"origin with a path", loopback, []string{"http://localhost:6274/"}, "not an origin"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Local(http.NotFoundHandler(), tt.addr, nil, tt.origins...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one mentioning %q", err, tt.want)
			}
		})
	}
}

func TestCheckOrigin(t *testing.T) {
	for _, ok := range []string{"http://localhost:6274", "https://example.com", "http://[::1]:8080"} {
		if err := CheckOrigin(ok); err != nil {
			t.Errorf("CheckOrigin(%q) = %v; want nil", ok, err)
		}
	}
	for _, bad := range []string{"localhost:6274", "http://localhost:6274/", "null", "", "http://user@localhost"} {
		if err := CheckOrigin(bad); err == nil {
			t.Errorf("CheckOrigin(%q) = nil; want an error", bad)
		}
	}
}
