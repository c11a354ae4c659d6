package jsonrpc

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/server"
)

const listenBody = `{"jsonrpc":"2.0","id":%d,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` +
	`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`

// streamMessages reads the messages of an answer: the data of each event of a stream, or the
// one JSON message of a plain answer.
func streamMessages(t *testing.T, resp *http.Response) (contentType string, methods []string) {
	t.Helper()
	contentType = resp.Header.Get("Content-Type")
	add := func(data string) {
		var m struct {
			Method string
			Result json.RawMessage
			Error  json.RawMessage
		}
		if err := json.Unmarshal([]byte(data), &m); err != nil {
			t.Fatalf("not a JSON-RPC message: %v: %s", err, data)
		}
		switch {
		case m.Method != "":
			methods = append(methods, m.Method)
		case m.Error != nil:
			methods = append(methods, "error")
		default:
			methods = append(methods, "result")
		}
	}
	if !strings.HasPrefix(contentType, "text/event-stream") {
		body, _ := io.ReadAll(resp.Body)
		add(string(body))
		return contentType, methods
	}
	scanner := bufio.NewScanner(resp.Body)
	for scanner.Scan() {
		if data, ok := strings.CutPrefix(scanner.Text(), "data:"); ok {
			add(strings.TrimSpace(data))
		}
	}
	return contentType, methods
}

// TestAckFirst: whatever order mcp-go writes a listen stream in, the client reads the
// acknowledgement first, then the notifications, then the result; an error stays an error.
func TestAckFirst(t *testing.T) {
	event := func(msg string) string { return "event: message\ndata: " + msg + "\n\n" }
	const (
		ack    = `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":1},"notifications":{}}}`
		change = `{"jsonrpc":"2.0","method":"notifications/resources/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":1}}}`
		result = `{"jsonrpc":"2.0","id":1,"result":{"_meta":{"io.modelcontextprotocol/subscriptionId":1}}}`
		failed = `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"no"}}`
	)
	sse := func(messages ...string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			for _, m := range messages {
				io.WriteString(w, event(m))
				w.(http.Flusher).Flush()
			}
		}
	}
	plain := func(status int, message string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			io.WriteString(w, message+"\n")
		}
	}
	tests := []struct {
		name   string
		next   http.Handler
		stream bool
		want   string
	}{
		{"in order", sse(ack, change, result), true, "acknowledged list_changed result"},
		{"the acknowledgement dropped", sse(result), true, "acknowledged result"},
		{"a notification before the acknowledgement", sse(change, ack, result), true, "acknowledged list_changed result"},
		{"the acknowledgement dropped after a notification", sse(change, result), true, "acknowledged list_changed result"},
		{"a plain result", plain(http.StatusOK, result), true, "acknowledged result"},
		{"a refusal", plain(http.StatusBadRequest, failed), false, "error"},
		{"an error on the stream", sse(failed), true, "error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(Strict(tt.next, 1<<20))
			defer srv.Close()
			resp, err := http.Post(srv.URL, "application/json", strings.NewReader(fmt.Sprintf(listenBody, 1)))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			contentType, methods := streamMessages(t, resp)
			var got []string
			for _, m := range methods {
				got = append(got, m[strings.LastIndex(m, "/")+1:])
			}
			if strings.Join(got, " ") != tt.want || strings.HasPrefix(contentType, "text/event-stream") != tt.stream {
				t.Errorf("%s: %v; want %s", contentType, got, tt.want)
			}
		})
	}
}

// TestListenAcknowledgedFirst runs subscriptions/listen 200 times against mcp-go behind
// Strict, on a server that has nothing the client asks for: the case where mcp-go v1.2.1 drops
// the acknowledgement in about one listen in ten. Every stream must open with it.
func TestListenAcknowledgedFirst(t *testing.T) {
	s := server.NewMCPServer("test", "1", server.WithToolCapabilities(false))
	srv := httptest.NewServer(Strict(server.NewStreamableHTTPServer(s, server.WithStateLess(true)), 1<<20))
	defer srv.Close()
	missing := 0
	for i := range 200 {
		req, _ := http.NewRequest("POST", srv.URL, strings.NewReader(fmt.Sprintf(listenBody, i+1)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "subscriptions/listen")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, methods := streamMessages(t, resp)
		resp.Body.Close()
		if len(methods) != 2 || methods[0] != ackMethod || methods[1] != "result" {
			missing++
			t.Logf("listen %d: %v", i+1, methods)
		}
	}
	if missing > 0 {
		t.Errorf("%d of 200 listen streams did not open with their acknowledgement", missing)
	}
}
