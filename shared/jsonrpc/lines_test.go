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
	req.Header.Set("Content-Type", "application/json")
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
		`{"jsonrpc":"2.0","id":3,"method":"tools/list","Method":"tools/call"}`,
		`{"jsonrpc":"2.0","id":3,"id":4,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":` + strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth) + `}}`,
	} {
		status, http := strictAnswer(body, "")
		stdio, pass := NewLines(1 << 20).Check([]byte(body))
		notification := !measure([]byte(body)).hasID() && !strings.Contains(http, `"code":-32700`) && !strings.Contains(http, `"code":-32600`)
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

// TestLinesJudgeEachLineAlone: over stdio, a request that names no revision is one of the
// 2025 handshake, whatever came before it on the connection, as 2026-07-28 asks. The Go SDK's
// ping without _meta passes over stdio, where ping is a 2025 request a client may send at any
// time; over HTTP its header names 2026-07-28, which has no ping and asks every request for
// _meta, so it is refused there, with the words step 1 uses.
func TestLinesJudgeEachLineAlone(t *testing.T) {
	const (
		meta     = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
		discover = `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta + `}}`
		ping     = `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	)
	lines := NewLines(1 << 20)
	for _, line := range []string{ping, discover, ping} {
		if answer, pass := lines.Check([]byte(line)); !pass {
			t.Errorf("%s was refused: %s", line, answer)
		}
	}
	if status, answer := strictAnswer(ping, ""); answer != "" {
		t.Errorf("over HTTP without a header, ping was refused: %d %s", status, answer)
	}
	status, answer := strictAnswer(ping, "2026-07-28")
	if status != 400 || !strings.Contains(answer, `"code":-32602`) || !strings.Contains(answer, "params._meta must name the revision of this request") {
		t.Errorf("over HTTP with the header 2026-07-28, ping got %d %s; want 400 and -32602", status, answer)
	}
}
