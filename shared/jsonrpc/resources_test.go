package jsonrpc

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestFindResources: a resources/read of a URI that names nothing is answered before the
// server sees it, with the code of the client's revision and the URI in error.data; a URI
// refused for another reason is invalid params; a URI that names a note passes. Over stdio the
// answers are the same.
func TestFindResources(t *testing.T) {
	find := FindResources(func(uri string) error {
		switch uri {
		case "note:///a.md":
			return nil
		case "note:///../x.md":
			return errors.New("leaves the vault")
		}
		return fmt.Errorf("%w: no note %s", ErrResourceNotFound, uri)
	})
	const meta = `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	read := func(uri, meta string) string {
		return `{"jsonrpc":"2.0","id":9,"method":"resources/read","params":{"uri":"` + uri + `"` + meta + `}}`
	}
	tests := []struct {
		body    string
		version string
		status  int // 0: passes
		code    int
		dataURI string
	}{
		{read("note:///a.md", ""), "", 0, 0, ""},
		{read("note:///a.md", meta), "2026-07-28", 0, 0, ""},
		{read("note:///b.md", ""), "", 200, -32002, "note:///b.md"},
		{read("file:///etc/passwd", ""), "2025-11-25", 200, -32002, "file:///etc/passwd"},
		{read("note:///b.md", meta), "2026-07-28", 400, -32602, "note:///b.md"},
		{read("note:///b.md", meta), "", 400, -32602, "note:///b.md"}, // _meta alone says the revision
		{read("note:///../x.md", ""), "", 200, -32602, ""},
		{read("note:///../x.md", meta), "2026-07-28", 400, -32602, ""},
		{`{"jsonrpc":"2.0","method":"resources/read","params":{"uri":"note:///b.md"}}`, "", 0, 0, ""}, // a notification: not a read
	}
	for _, tt := range tests {
		t.Run(tt.body, func(t *testing.T) {
			next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) })
			req := httptest.NewRequest("POST", "/mcp", strings.NewReader(tt.body))
			req.Header.Set("Content-Type", "application/json")
			if tt.version != "" {
				req.Header.Set("MCP-Protocol-Version", tt.version)
			}
			rec := httptest.NewRecorder()
			Strict(next, 1<<20, find).ServeHTTP(rec, req)
			if tt.status == 0 {
				if rec.Code != http.StatusTeapot {
					t.Errorf("refused with %d: %s", rec.Code, rec.Body)
				}
				return
			}
			var answer struct {
				ID    json.RawMessage
				Error struct {
					Code int
					Data struct{ URI string }
				}
			}
			json.Unmarshal(rec.Body.Bytes(), &answer)
			if rec.Code != tt.status || string(answer.ID) != "9" || answer.Error.Code != tt.code || answer.Error.Data.URI != tt.dataURI {
				t.Errorf("%d %s; want %d, id 9, code %d and data.uri %q", rec.Code, rec.Body, tt.status, tt.code, tt.dataURI)
			}
			if stdio, _ := NewLines(1<<20, find).Check([]byte(tt.body)); string(stdio) != rec.Body.String() {
				t.Errorf("over stdio: %s; over HTTP: %s", stdio, rec.Body)
			}
		})
	}
}
