package guard

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
)

// Local puts next behind the two checks that keep web pages away from a server on this
// machine, and returns the result. addr is the listener's own address, ln.Addr(), taken after
// net.Listen so that a requested port 0 has become the real port. origins lists the browser
// pages allowed besides the server's own, written the way a browser sends them:
// "http://localhost:6274" for MCP Inspector. logger gets a line for every refusal; nil means
// slog.Default().
//
//  1. Host (403): the request names this server, by a loopback name and the listener's
//     port. A page on evil.example whose name now resolves to 127.0.0.1 (DNS rebinding)
//     still sends Host: evil.example, so this check holds even where Origin equals Host.
//  2. Origin (403): a browser names the page a request comes from, and only allowed pages
//     pass. Programs other than browsers send no Origin, and pass.
//
// Local fails when addr has no real port, or an origin is not written as a browser would
// send it.
func Local(next http.Handler, addr net.Addr, logger *slog.Logger, origins ...string) (http.Handler, error) {
	if addr == nil {
		return nil, errors.New("guard: the listener's address is nil; pass ln.Addr()")
	}
	host, port, err := net.SplitHostPort(addr.String())
	switch {
	case err != nil:
		return nil, fmt.Errorf("guard: address %q is not host:port (%v); pass the TCP listener's address, ln.Addr()", addr, err)
	case port == "0":
		return nil, fmt.Errorf("guard: address %q has port 0; pass the listener's address, ln.Addr(), which has the real port", addr)
	}
	l := &local{next: next, hosts: map[string]bool{}, origins: map[string]bool{}, log: logger}
	if l.log == nil {
		l.log = slog.Default()
	}
	names := []string{"127.0.0.1", "localhost", "::1"}
	// A server on 127.0.0.2 answers to 127.0.0.2 as well: it is a loopback address, which no
	// web page's name can become. Any other address is left out, so a server listening
	// beyond loopback still answers only what is addressed to this machine.
	if ip, err := netip.ParseAddr(host); err == nil && ip.IsLoopback() {
		names = append(names, host)
	}
	for _, name := range names {
		authority := net.JoinHostPort(name, port)
		if !l.hosts[authority] {
			l.hostList = append(l.hostList, authority)
		}
		l.hosts[authority] = true
		// Clients leave out the default port: http://localhost/ sends Host: localhost, and
		// its pages have the origin http://localhost.
		if port == "80" {
			authority = strings.TrimSuffix(authority, ":80")
			l.hosts[authority] = true
		}
		l.addOrigin("http://" + authority)
	}
	for _, o := range origins {
		canonical, err := canonicalOrigin(o)
		if err != nil {
			return nil, err
		}
		l.addOrigin(canonical)
	}
	return l, nil
}

// local is the handler Local returns.
type local struct {
	next       http.Handler
	hosts      map[string]bool // allowed Host values, in lower case
	hostList   []string        // the same, in order, for messages
	origins    map[string]bool // allowed Origin values, as browsers write them
	originList []string
	log        *slog.Logger
}

func (l *local) addOrigin(origin string) {
	if !l.origins[origin] {
		l.origins[origin] = true
		l.originList = append(l.originList, origin)
	}
}

func (l *local) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !l.hosts[strings.ToLower(r.Host)] {
		refuse(l.log, w, r, http.StatusForbidden, "host", fmt.Sprintf(
			"Host %q is not allowed; this server answers only requests addressed to %s, which keeps out web pages whose names were rebound to this machine (DNS rebinding)",
			r.Host, strings.Join(l.hostList, ", ")))
		return
	}
	// Browsers send one Origin, in lower case, without a default port. Anything else, "null"
	// included, is not a page this server knows.
	switch origins := r.Header.Values("Origin"); {
	case len(origins) > 1:
		refuse(l.log, w, r, http.StatusForbidden, "origin", fmt.Sprintf(
			"the request has %d Origin headers; a browser sends one", len(origins)))
		return
	case len(origins) == 1 && !l.origins[strings.ToLower(origins[0])]:
		refuse(l.log, w, r, http.StatusForbidden, "origin", fmt.Sprintf(
			"Origin %q is not allowed; web pages may call this server only from %s",
			origins[0], strings.Join(l.originList, ", ")))
		return
	}
	l.next.ServeHTTP(w, r)
}

// refusalCode is the JSON-RPC error code of every refusal. The standard codes describe a
// message that was read (parse error, invalid request, unknown method); these requests are
// refused before their message is read. MCP keeps -32000 to -32099 for itself and asks new
// codes to stay out of JSON-RPC's reserved range (-32768 to -32000), so this one is ours. The
// HTTP status and error.data.rule tell the refusals apart.
const refusalCode = -31000

// refuse answers r with status and a JSON-RPC error naming the rule it broke, and logs it as
// a warning. The log names the request, never its body.
func refuse(log *slog.Logger, w http.ResponseWriter, r *http.Request, status int, rule, message string) {
	refuseAt(slog.LevelWarn, log, w, r, status, rule, message)
}

// refuseAt is refuse, logged at level: some refusals are a normal part of the protocol.
func refuseAt(level slog.Level, log *slog.Logger, w http.ResponseWriter, r *http.Request, status int, rule, message string) {
	log.Log(r.Context(), level, "request refused", "rule", rule, "status", status, "reason", message,
		"method", r.Method, "path", r.URL.Path, "host", r.Host, "origin", r.Header.Get("Origin"), "remote", r.RemoteAddr)

	type errorData struct {
		Rule string `json:"rule"`
	}
	type errorObject struct {
		Code    int       `json:"code"`
		Message string    `json:"message"`
		Data    errorData `json:"data"`
	}
	// The request's body was never read, so its id is not known: JSON-RPC 2.0 answers that with
	// "id": null.
	var reply struct {
		JSONRPC string      `json:"jsonrpc"`
		ID      *string     `json:"id"`
		Error   errorObject `json:"error"`
	}
	reply.JSONRPC = "2.0"
	reply.Error = errorObject{Code: refusalCode, Message: message, Data: errorData{Rule: rule}}
	body, _ := json.Marshal(reply) // cannot fail: strings and an int
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(body, '\n'))
}

// CheckOrigin reports whether origin is written as a browser sends one, as Local and Hostile
// require of an allowed origin: so that a program can check the ones it was given before it
// starts anything.
func CheckOrigin(origin string) error {
	_, err := canonicalOrigin(origin)
	return err
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
