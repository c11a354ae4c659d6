package jsonrpc

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// serveStrict sends body to Strict in front of a handler that records what reached it.
func serveStrict(t *testing.T, method, body string, header http.Header) (rec *httptest.ResponseRecorder, reached *string) {
	t.Helper()
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		reached = &s
		w.WriteHeader(http.StatusTeapot)
	})
	req := httptest.NewRequest(method, "/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json") // unless header says otherwise
	for k, v := range header {
		req.Header[k] = v
	}
	rec = httptest.NewRecorder()
	Strict(next, 100).ServeHTTP(rec, req)
	return rec, reached
}

func TestStrictRefuses(t *testing.T) {
	tests := []struct {
		body   string
		header http.Header
		status int
		id     string // the answer's id, as JSON: null when the request's could not be read
		code   int
		text   string // in the message
	}{
		{`{"jsonrpc":"2.0","id":10,`, nil, 400, "null", -32700, "not valid JSON"},
		{``, nil, 400, "null", -32700, "not valid JSON"},
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}{"jsonrpc":"2.0","id":2,"method":"ping"}`, nil, 400, "null", -32700, "not valid JSON"},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, nil, 400, "null", -32600, "batches"},
		{` [] `, nil, 400, "null", -32600, "batches"},
		{`"ping"`, nil, 400, "null", -32600, "one JSON-RPC message"},
		{`7`, nil, 400, "null", -32600, "one JSON-RPC message"},
		{`null`, nil, 400, "null", -32600, "one JSON-RPC message"},
		{`{"jsonrpc":"1.0","id":11,"method":"ping"}`, nil, 400, "11", -32600, `"2.0"`},
		{`{"id":11,"method":"ping"}`, nil, 400, "11", -32600, `"2.0"`},
		{`{"jsonrpc":2,"id":"a","method":"ping"}`, nil, 400, `"a"`, -32600, `"2.0"`},
		{`{"jsonrpc":"2.0","id":null,"method":"ping"}`, nil, 400, "null", -32600, "string or an integer"},
		{`{"jsonrpc":"2.0","id":true,"method":"ping"}`, nil, 400, "null", -32600, "string or an integer"},
		{`{"jsonrpc":"2.0","id":{},"method":"ping"}`, nil, 400, "null", -32600, "string or an integer"},
		{`{"jsonrpc":"2.0","id":[1],"method":"ping"}`, nil, 400, "null", -32600, "string or an integer"},
		{`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, nil, 400, "null", -32600, "string or an integer"},
		{`{"jsonrpc":"2.0","id":1e400,"method":"ping"}`, nil, 400, "null", -32600, "string or an integer"},
		{`{"jsonrpc":"2.0","id":12}`, nil, 400, "12", -32600, `"method" is missing`},
		{`{"jsonrpc":"2.0"}`, nil, 400, "null", -32600, `"method" is missing`},
		{`{"jsonrpc":"2.0","id":12,"method":5}`, nil, 400, "12", -32600, `"method" must be a string`},
		{`{"jsonrpc":"2.0","id":12,"method":null}`, nil, 400, "12", -32600, `"method" must be a string`},
		{`{"jsonrpc":"2.0","id":1,"method":"initialize"}`, nil, 200, "1", -32602, "params.protocolVersion"},
		{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":null}`, nil, 200, "1", -32602, "params.protocolVersion"},
		{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, nil, 200, "1", -32602, "params.protocolVersion"},
		{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":""}}`, nil, 200, "1", -32602, "params.protocolVersion"},
		{`{"jsonrpc":"2.0","id":"x","method":"initialize","params":{"protocolVersion":5}}`, nil, 200, `"x"`, -32602, "params.protocolVersion"},
		{`{"jsonrpc":"2.0","id":1,"method":"initialize"}`, http.Header{"Mcp-Protocol-Version": {"2025-11-25"}}, 200, "1", -32602, "params.protocolVersion"},
		{`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 100) + `"}}`, nil, 413, "null", -32600, "larger than 100 bytes"},
		// Names two JSON readers could read as two different messages (see ambiguousNames).
		{`{"jsonrpc":"2.0","id":1,"method":"ping","Method":"x"}`, nil, 400, "1", -32600, "differ only in case"},
		{`{"jsonrpc":"2.0","id":1,"method":"ping","method":"x"}`, nil, 400, "1", -32600, "appears twice"},
		{`{"jsonrpc":"2.0","id":1,"method":"ping","\u006dethod":"x"}`, nil, 400, "1", -32600, "appears twice"},
		{`{"jsonrpc":"2.0","id":1,"Method":"ping"}`, nil, 400, "1", -32600, `must be written "method"`},
		{`{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":[{"k":1,"\u212A":2}]}}`, nil, 400, "1", -32600, "differ only in case"},
		{`{"jsonrpc":"2.0","id":1,"method":"x","params":{"n":1e400,"a":1,"a":2}}`, nil, 400, "1", -32600, "appears twice"},
		{`{"jsonrpc":"2.0","ID":1,"method":"ping"}`, nil, 400, "null", -32600, `must be written "id"`},
		{`{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`, nil, 400, "null", -32600, "appears twice"},
		{`{"jsonrpc":"2.0","id":1,"Id":2,"method":"ping"}`, nil, 400, "null", -32600, "differ only in case"},
		{`{"jsonrpc":"2.0","Method":"x","id":1,"ID":2}`, nil, 400, "null", -32600, `must be written "method"`},
	}
	for _, tt := range tests {
		t.Run(tt.body, func(t *testing.T) {
			rec, reached := serveStrict(t, http.MethodPost, tt.body, tt.header)
			if reached != nil {
				t.Fatalf("the body reached the next handler")
			}
			if rec.Code != tt.status {
				t.Errorf("status %d, want %d", rec.Code, tt.status)
			}
			if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q, want application/json", ct)
			}
			var reply struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &reply); err != nil {
				t.Fatalf("the answer is not JSON: %v\n%s", err, rec.Body)
			}
			if reply.JSONRPC != "2.0" || string(reply.ID) != tt.id || reply.Error.Code != tt.code || !strings.Contains(reply.Error.Message, tt.text) {
				t.Errorf("answer %s; want id %s, code %d and a message with %q", rec.Body, tt.id, tt.code, tt.text)
			}
		})
	}
}

func TestStrictPasses(t *testing.T) {
	tests := []struct {
		method, body string
		header       http.Header
	}{
		{"POST", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, nil},
		{"POST", `  { "jsonrpc" : "2.0" , "id" : "a" , "method" : "ping" }  `, nil},
		{"POST", `{"jsonrpc":"2.0","id":-3,"method":"ping"}`, nil},
		{"POST", `{"jsonrpc":"2.0","id":7.0,"method":"ping"}`, nil},
		{"POST", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil},
		{"POST", `{"jsonrpc":"2.0","id":5,"result":{}}`, nil}, // a response
		{"POST", `{"jsonrpc":"2.0","id":5,"error":{"code":1,"message":"no"}}`, nil},
		{"POST", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`, nil},
		// From 2026-07-28 on, initialize is gone, and mcp-go says so itself.
		{"POST", `{"jsonrpc":"2.0","id":1,"method":"initialize"}`, http.Header{"Mcp-Protocol-Version": {"2026-07-28"}}},
		{"POST", `{"jsonrpc":"2.0","method":"initialize"}`, nil}, // a notification: nothing to answer
		{"GET", ``, nil},
		{"DELETE", ``, nil},
		{"POST", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 40) + `"}}`, nil}, // 100 bytes exactly
		{"POST", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, http.Header{"Content-Type": {"application/json; charset=utf-8"}}},
		// The same name in two objects, and names that differ in more than case.
		{"POST", `{"jsonrpc":"2.0","id":1,"method":"x","params":{"id":1,"a":{"A":{"a":0}},"ab":[{"a":0},{"a":0}]}}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.body, func(t *testing.T) {
			rec, reached := serveStrict(t, tt.method, tt.body, tt.header)
			if reached == nil {
				t.Fatalf("refused with %d: %s", rec.Code, rec.Body)
			}
			if *reached != tt.body {
				t.Errorf("the next handler read %q, want the body unchanged", *reached)
			}
		})
	}
}

// TestStrictBoundsShape: a message within the body's size but past MaxDepth or MaxValues is
// refused with 413 and a short answer, before mcp-go decodes it; one at the bounds passes.
func TestStrictBoundsShape(t *testing.T) {
	// Eleven values besides the list: the message, its four keys, "2.0", 1, "x", params,
	// "a" and the list itself.
	list := func(n int) string {
		return `{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":[` + strings.TrimSuffix(strings.Repeat("0,", n), ",") + `]}}`
	}
	// The message and params are two levels.
	nested := func(depth int) string {
		return `{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":` + strings.Repeat("[", depth-2) + strings.Repeat("]", depth-2) + `}}`
	}
	tests := []struct {
		name, body string
		refused    bool
	}{
		{"values at the bound", list(MaxValues - 11), false},
		{"one value more", list(MaxValues - 10), true},
		{"1.9 million values in 3.8 MB", list(1_900_000), true},
		{"depth at the bound", nested(MaxDepth), false},
		{"one level more", nested(MaxDepth + 1), true},
		{"brackets inside strings are text", `{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":"` + strings.Repeat(`[\"\\`, 10_000) + `"}}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) })
			rec := httptest.NewRecorder()
			req := httptest.NewRequest("POST", "/mcp", strings.NewReader(tt.body))
			req.Header.Set("Content-Type", "application/json")
			Strict(next, 4<<20).ServeHTTP(rec, req)
			if !tt.refused {
				if rec.Code != http.StatusTeapot {
					t.Errorf("refused with %d: %s", rec.Code, rec.Body)
				}
				return
			}
			var answer struct {
				ID    json.RawMessage
				Error struct{ Code int }
			}
			if rec.Code != http.StatusRequestEntityTooLarge || json.Unmarshal(rec.Body.Bytes(), &answer) != nil ||
				string(answer.ID) != "1" || answer.Error.Code != -32600 || rec.Body.Len() > 300 {
				t.Errorf("%d: %.300s; want 413, id 1, code -32600, and a short answer", rec.Code, rec.Body)
			}
		})
	}
}

// TestShape counts as encoding/json's decoder does: one value for each token but a closing
// bracket or brace.
func TestShape(t *testing.T) {
	for _, doc := range []string{
		`0`, `-1.5e+3`, `true`, `null`, `""`, `"a\"b\\"`, `[]`, `{}`,
		`{"a":[1,2,{"b":null}],"c":"]}\"[{"}`,
		` [ [ [ ] ] , false , "x" ] `,
		`{"k\\":"v\\\"","n":[true,false,null,-0.1E-2]}`,
	} {
		var want, level, deepest int
		d := json.NewDecoder(strings.NewReader(doc))
		for {
			tok, err := d.Token()
			if err != nil {
				break
			}
			switch tok {
			case json.Delim('['), json.Delim('{'):
				level++
				deepest = max(deepest, level)
				want++
			case json.Delim(']'), json.Delim('}'):
				level--
			default:
				want++
			}
		}
		if depth, values := shape([]byte(doc)); depth != deepest || values != want {
			t.Errorf("shape(%s) = %d deep, %d values; want %d and %d", doc, depth, values, deepest, want)
		}
	}
}

// TestStrictTakesOnlyJSON: a POST whose body a web form could send, which a browser sends to
// any site without asking first, is refused with 415 before its body is read.
func TestStrictTakesOnlyJSON(t *testing.T) {
	for _, contentType := range []string{"", "text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/json-seq"} {
		rec, reached := serveStrict(t, http.MethodPost, `{"jsonrpc":"2.0","id":1,"method":"ping"}`, http.Header{"Content-Type": {contentType}})
		if reached != nil || rec.Code != http.StatusUnsupportedMediaType || !strings.Contains(rec.Body.String(), "application/json") {
			t.Errorf("Content-Type %q: %d %q, reached next: %v; want 415 naming application/json", contentType, rec.Code, rec.Body, reached != nil)
		}
	}
}
