package jsonrpc

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// strictAnswer is what Strict answers body with, sent with the MCP-Protocol-Version header
// version ("" for none), or "" when the body passes.
func strictAnswer(body, version string) (status int, answer string) {
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) })
	req := httptest.NewRequest("POST", "/mcp", strings.NewReader(body))
	if version != "" {
		req.Header.Set("MCP-Protocol-Version", version)
	}
	rec := httptest.NewRecorder()
	Strict(next, 1<<20).ServeHTTP(rec, req)
	if rec.Code == http.StatusTeapot {
		return rec.Code, ""
	}
	return rec.Code, rec.Body.String()
}

// TestLinesAnswerAsStrict: a message refused over HTTP gets the same answer over stdio, word
// for word, and a message HTTP passes on passes on stdio too. A refused notification is
// answered over HTTP with 400, as the transport asks, and not at all over stdio, as JSON-RPC
// asks; one whose id cannot be read is answered on both, with "id": null.
func TestLinesAnswerAsStrict(t *testing.T) {
	long := strings.Repeat("a", MaxURILen)
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`,
		`{"jsonrpc":"2.0","id":5,"result":{}}`,
		`{"jsonrpc":"2.0","id":10,`,
		``,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`7`,
		`{"jsonrpc":"1.0","id":11,"method":"ping"}`,
		`{"jsonrpc":"1.0","method":"ping"}`,
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":12}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize"}`,
		`{"jsonrpc":"2.0","id":"` + long + `","method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"method":"` + long + `"}`,
		`{"jsonrpc":"2.0","method":"` + long + `"}`,
		`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"` + long + `"}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"` + long + `"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":` + strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth) + `}}`,
	} {
		status, http := strictAnswer(body, "")
		stdio, pass := NewLines(1 << 20).Check([]byte(body))
		notification := !hasID([]byte(body)) && !strings.Contains(http, `"code":-32700`) && !strings.Contains(http, `"code":-32600`)
		switch {
		case http == "" && (!pass || stdio != nil):
			t.Errorf("%.80s: passes over HTTP; over stdio answered %q", body, stdio)
		case http == "":
		case pass:
			t.Errorf("%.80s: refused over HTTP (%s); passes over stdio", body, http)
		case notification && (stdio != nil || status != 400):
			t.Errorf("%.80s: a notification, refused with %d %s over HTTP and answered %q over stdio; want 400, and no answer", body, status, http, stdio)
		case !notification && string(stdio) != http:
			t.Errorf("%.80s:\nHTTP:  %s\nstdio: %s", body, http, stdio)
		}
	}
}

// TestLinesKeepTheConnectionsRevision: over stdio, a request that names no revision is held to
// the one the connection last named, as the header holds it over HTTP: the Go SDK's ping
// without _meta, after requests of 2026-07-28, gets the answer HTTP gives it. An initialize
// takes the connection back to the 2025 handshake, where that ping is fine.
func TestLinesKeepTheConnectionsRevision(t *testing.T) {
	const (
		meta     = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
		discover = `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta + `}}`
		ping     = `{"jsonrpc":"2.0","id":2,"method":"ping"}`
		init     = `{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
	)
	lines := NewLines(1 << 20)
	if _, pass := lines.Check([]byte(ping)); !pass {
		t.Error("a ping before anything else was refused; the 2025 revisions allow it before initialize")
	}
	if _, pass := lines.Check([]byte(discover)); !pass {
		t.Error("server/discover was refused")
	}
	answer, pass := lines.Check([]byte(ping))
	status, http := strictAnswer(ping, "2026-07-28")
	if pass || string(answer) != http || status != 400 || !strings.Contains(http, `"code":-32602`) {
		t.Errorf("a ping without _meta after 2026-07-28: stdio %q (passes: %v), HTTP %d %s; want the same -32602 on both", answer, pass, status, http)
	}
	if _, pass := lines.Check([]byte(init)); !pass {
		t.Error("initialize was refused")
	}
	if _, pass := lines.Check([]byte(ping)); !pass {
		t.Error("a ping after initialize was refused")
	}
}
