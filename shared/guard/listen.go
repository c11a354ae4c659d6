package guard

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"time"
)

// CheckListenAddr refuses a listen address that other machines could reach. Only loopback
// will do: an IP address in 127.0.0.0/8, ::1, or the name localhost. Any other name is
// refused rather than resolved, because what a name resolves to can change after the check.
func CheckListenAddr(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("listen address %q is not host:port (%v); use a loopback address like 127.0.0.1:3000", addr, err)
	}
	var where string
	ip, err := netip.ParseAddr(host)
	switch {
	case strings.EqualFold(host, "localhost"), err == nil && ip.IsLoopback():
		return nil
	case host == "", err == nil && ip.IsUnspecified():
		where = "every network interface"
	case err == nil:
		where = "an address other machines can reach"
	default:
		where = "a host name, which may resolve to an address other machines can reach"
	}
	return fmt.Errorf("refusing to listen on %q, %s: this server has no authentication and no TLS, "+
		"so anyone who can reach the port could read your notes; "+
		"listen on loopback instead, like 127.0.0.1:3000 or localhost:3000", addr, where)
}

// WriteTimeout is how long NewServer's server gives a request, from the end of its headers,
// to be answered. Whatever bounds the work behind an answer must end before it.
const WriteTimeout = 3 * time.Minute

// NewServer returns a server for h whose every phase of a request has a time limit, so a
// client that stalls, by accident or on purpose, cannot hold a connection forever, and that
// keeps at most DefaultMaxConns connections open, closing idle ones first (see connLimit).
func NewServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler: h,
		// Clients on this machine send their headers at once; 10 s is an eternity for them,
		// and a short leash for one that trickles bytes to keep the connection.
		ReadHeaderTimeout: 10 * time.Second,
		// Headers and body: a body of at most DefaultMaxBody crosses loopback in milliseconds.
		ReadTimeout: 30 * time.Second,
		// From the end of the headers to the end of the answer: an answer not written by then
		// is lost, and the connection closes. It does not stop the work: the request's context
		// is not cancelled (go.dev/issue/59602), so a tool that hangs would keep running, and
		// keep its slot. What ends it is the tool call's own deadline (shared/deadline, 2
		// minutes unless set), which answers the model with an error; WriteTimeout lets that
		// answer arrive first.
		WriteTimeout: WriteTimeout,
		// A client keeps its connection between calls; a new one on loopback costs little.
		IdleTimeout: time.Minute,
		// MCP requests carry a handful of short headers. 64 KiB leaves room for the cookies
		// a browser sends to localhost, and is a sixteenth of Go's default.
		MaxHeaderBytes: 64 << 10,
		// Connections, and the goroutine and buffers net/http gives each, are bounded too:
		// past DefaultMaxConns the one idle longest is closed (see connLimit).
		ConnState: newConnLimit(DefaultMaxConns).track,
	}
}
