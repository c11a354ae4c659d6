package guard

import (
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
)

func TestCheckListenAddr(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:3000", "localhost:0", "LOCALHOST:3000", "[::1]:3000", "127.0.0.2:3000", "[::ffff:127.0.0.1]:3000"} {
		if err := CheckListenAddr(addr); err != nil {
			t.Errorf("CheckListenAddr(%q) = %v, want nil", addr, err)
		}
	}
	for addr, why := range map[string]string{
		":3000":               "every network interface",
		"0.0.0.0:3000":        "every network interface",
		"[::]:3000":           "every network interface",
		"192.168.1.5:3000":    "other machines can reach",
		"[2001:db8::1]:3000":  "other machines can reach",
		"example.com:3000":    "a host name",
		"localhost.evil:3000": "a host name",
		"127.1:3000":          "a host name", // not an IP address to netip, so a name
		"127.0.0.1":           "not host:port",
	} {
		err := CheckListenAddr(addr)
		if err == nil {
			t.Errorf("CheckListenAddr(%q) = nil, want a refusal", addr)
			continue
		}
		for _, want := range []string{why, "127.0.0.1:3000"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("CheckListenAddr(%q) = %q, want it to mention %q", addr, err, want)
			}
		}
		if why != "not host:port" && !strings.Contains(err.Error(), "no authentication and no TLS") {
			t.Errorf("CheckListenAddr(%q) = %q, want it to say why", addr, err)
		}
	}
}

// Headers beyond NewServer's MaxHeaderBytes are refused by net/http before the guard runs.
func TestNewServerHeaderLimit(t *testing.T) {
	var calls atomic.Int32
	srv := serve(t, echo(&calls), Config{})
	req, err := http.NewRequest(http.MethodPost, srv.url, strings.NewReader(message))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Padding", strings.Repeat("a", 100<<10))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge || calls.Load() != 0 {
		t.Errorf("100 KiB of headers: status %d, inner handler called %d times; want 431 and 0", resp.StatusCode, calls.Load())
	}
}

func TestNewServerTimeouts(t *testing.T) {
	srv := NewServer(http.NotFoundHandler())
	if srv.ReadHeaderTimeout <= 0 || srv.ReadTimeout <= 0 || srv.WriteTimeout <= 0 || srv.IdleTimeout <= 0 || srv.MaxHeaderBytes <= 0 {
		t.Errorf("a limit is unset: %+v", srv)
	}
	// The embedder gives Ollama 2 minutes for a query; its error must come before the cut.
	if srv.WriteTimeout <= 2*60e9 {
		t.Errorf("WriteTimeout %v is not longer than the embedder's 2 minutes", srv.WriteTimeout)
	}
}
