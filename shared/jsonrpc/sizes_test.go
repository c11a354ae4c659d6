package jsonrpc

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestStrictBoundsStrings: every string the server acts on before a tool runs is refused past
// its bound, with the code the revision gives, the id when it may be echoed, and an answer that
// quotes no more than the start of the string; at the bound it passes.
func TestStrictBoundsStrings(t *testing.T) {
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	str := func(n int) string { return `"` + strings.Repeat("é", n/2) + strings.Repeat("a", n%2) + `"` } // n bytes of text
	tests := []struct {
		name   string
		body   func(n int) string // a message whose string under test is n bytes of text
		limit  int                // in bytes of text
		header string             // MCP-Protocol-Version
		status int
		id     string
		code   int
		what   string
	}{
		{"id", func(n int) string { return `{"jsonrpc":"2.0","id":` + str(n) + `,"method":"tools/list"}` },
			MaxIDLen, "", 400, "null", -32600, "the id"},
		{"method", func(n int) string { return `{"jsonrpc":"2.0","id":1,"method":` + str(n) + `}` },
			MaxMethodLen, "", 200, "1", -32601, "the method"},
		{"method, current revision", func(n int) string { return `{"jsonrpc":"2.0","id":1,"method":` + str(n) + `,"params":{` + meta + `}}` },
			MaxMethodLen, "2026-07-28", 404, "1", -32601, "the method"},
		{"resource URI", func(n int) string {
			return `{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":` + str(n) + `,` + meta + `}}`
		}, MaxURILen, "2026-07-28", 400, "2", -32602, "params.uri"},
		{"resource URI, 2025", func(n int) string {
			return `{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":` + str(n) + `}}`
		},
			MaxURILen, "2025-11-25", 200, "2", -32602, "params.uri"},
		{"subscription", func(n int) string {
			return `{"jsonrpc":"2.0","id":3,"method":"subscriptions/listen","params":{"notifications":{"resourceSubscriptions":["note:///a.md",` + str(n) + `]},` + meta + `}}`
		}, MaxURILen, "2026-07-28", 400, "3", -32602, "resourceSubscriptions[1]"},
		{"completion reference", func(n int) string {
			return `{"jsonrpc":"2.0","id":4,"method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":` + str(n) + `},"argument":{"name":"path","value":""}}}`
		}, MaxURILen, "", 200, "4", -32602, "params.ref.uri"},
		{"completion value", func(n int) string {
			return `{"jsonrpc":"2.0","id":4,"method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":"note:///{+path}"},"argument":{"name":"path","value":` + str(n) + `}}}`
		}, MaxURILen, "", 200, "4", -32602, "params.argument.value"},
		{"tool name", func(n int) string {
			return `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":` + str(n) + `,"arguments":{}}}`
		},
			MaxNameLen, "", 200, "5", -32602, "params.name"},
		{"cursor", func(n int) string {
			return `{"jsonrpc":"2.0","id":6,"method":"resources/list","params":{"cursor":` + str(n) + `}}`
		},
			MaxCursorLen, "", 200, "6", -32602, "params.cursor"},
		{"version", func(n int) string {
			return `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":` + str(n) + `}}}`
		}, MaxVersionLen, "", 200, "7", -32602, "protocolVersion"},
		{"progress token", func(n int) string {
			return `{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{"_meta":{"progressToken":` + str(n) + `}}}`
		}, MaxIDLen, "", 200, "8", -32602, "progressToken"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			serve := func(body string) *httptest.ResponseRecorder {
				next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) })
				req := httptest.NewRequest("POST", "/mcp", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				if tt.header != "" {
					req.Header.Set("MCP-Protocol-Version", tt.header)
				}
				rec := httptest.NewRecorder()
				Strict(next, 8<<20).ServeHTTP(rec, req)
				return rec
			}
			if rec := serve(tt.body(tt.limit)); rec.Code != http.StatusTeapot {
				t.Errorf("at the bound: refused with %d: %.300s", rec.Code, rec.Body)
			}
			for _, n := range []int{tt.limit + 1, 3_900_000} {
				rec := serve(tt.body(n))
				var answer struct {
					ID    json.RawMessage
					Error struct {
						Code    int
						Message string
					}
				}
				if err := json.Unmarshal(rec.Body.Bytes(), &answer); err != nil {
					t.Fatalf("%d bytes: the answer is not JSON: %v: %.300s", n, err, rec.Body)
				}
				if rec.Code != tt.status || string(answer.ID) != tt.id || answer.Error.Code != tt.code || !strings.Contains(answer.Error.Message, tt.what) {
					t.Errorf("%d bytes: %d %s; want %d, id %s, code %d, a message about %s", n, rec.Code, rec.Body, tt.status, tt.id, tt.code, tt.what)
				}
				if rec.Body.Len() > 400 || strings.Contains(answer.Error.Message, strings.Repeat("é", 20)) {
					t.Errorf("%d bytes: the answer quotes more than the start of the string (%d bytes): %.400s", n, rec.Body.Len(), rec.Body)
				}
			}
		})
	}
}

// TestTooLongQuotesWholeCharacters: the quoted start of a long string ends on a character.
func TestTooLongQuotesWholeCharacters(t *testing.T) {
	for _, head := range []string{`"` + strings.Repeat("é", 40), `"a` + strings.Repeat("語", 30), strings.Repeat("9", 50)} {
		msg := tooLong("x", value{n: 1000, head: head}, 10)
		if strings.Contains(msg, `\x`) || !strings.Contains(msg, `…"`) {
			t.Errorf("tooLong(%q) = %s; want whole characters, then …", head, msg)
		}
	}
	if msg := tooLong("x", value{n: 10, head: `"short text"`}, 9); !strings.Contains(msg, `(it begins "short text")`) {
		t.Errorf("a short string: %s", msg)
	}
}
