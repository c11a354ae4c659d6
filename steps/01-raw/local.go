package main

import (
	"net"
	"net/http"
	"strings"
)

// onlyLocal refuses requests that a web page could have sent. The server has no login: it is
// safe only because nothing but this machine can reach it, and the browser is the one program
// on this machine that runs code written by strangers. Two headers give such a request away:
//
//   - Host names the server the request was addressed to. A page on evil.example whose name
//     now points at 127.0.0.1 (DNS rebinding) reaches this port, but still sends
//     Host: evil.example. Only this machine's own names, with our port, may pass.
//   - Origin names the page that sent the request. Browsers send it with every POST, and
//     with every request a script makes to another site under CORS; a plain GET or HEAD (a
//     link, an image) may go without it, and does nothing here. Native clients (Claude
//     Desktop, an editor, curl) send none, and pass. Only a page served by this server itself
//     could be allowed, and there is none.
//
// Both refusals are 403 Forbidden, as the specification asks for an invalid Origin.
func onlyLocal(addr net.Addr, next http.Handler) http.Handler {
	_, port, _ := net.SplitHostPort(addr.String())
	local := map[string]bool{}
	for _, name := range []string{"127.0.0.1", "localhost", "[::1]"} {
		local[name+":"+port] = true
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !local[strings.ToLower(r.Host)] {
			http.Error(w, "Host "+quote(r.Host)+" is not this server; it answers only to 127.0.0.1, localhost and [::1] on port "+port, http.StatusForbidden)
			return
		}
		if origin := r.Header.Get("Origin"); origin != "" && !local[strings.TrimPrefix(origin, "http://")] {
			http.Error(w, "Origin "+quote(origin)+" is not allowed: web pages may not call this server", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}
