package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"vaultmcp/shared/guard"
)

// openStream sends subscriptions/listen asking for notifications, and returns the answer and the
// messages of its stream, read as they come.
func openStream(t *testing.T, ctx context.Context, url string, id int, notifications string) (*http.Response, <-chan string) {
	t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"subscriptions/listen","params":{"notifications":%s,`+
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`, id, notifications)
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "subscriptions/listen")
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	messages := make(chan string, 8)
	go func() {
		defer close(messages)
		defer resp.Body.Close()
		lines := bufio.NewScanner(resp.Body)
		for lines.Scan() {
			if data, ok := strings.CutPrefix(lines.Text(), "data: "); ok {
				var m struct{ Method string }
				json.Unmarshal([]byte(data), &m)
				messages <- m.Method
			}
		}
	}()
	return resp, messages
}

// TestListenStreamsLeaveRoom: with as many listen streams open as the wall grants, every
// ordinary request is still served, and one stream more is refused with Retry-After.
func TestListenStreamsLeaveRoom(t *testing.T) {
	url := startServer(t, t.TempDir(), "-embedder", "offline")
	for i := range guard.DefaultMaxStreams {
		resp, messages := openStream(t, t.Context(), url, i+1, `{"resourcesListChanged":true}`)
		if first := <-messages; resp.StatusCode != http.StatusOK || first != "notifications/subscriptions/acknowledged" {
			t.Fatalf("stream %d: %s, first message %q", i+1, resp.Status, first)
		}
	}
	served := 0
	for range 10 {
		if status, reply := rawCall(t, url, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), nil); status == http.StatusOK && strings.Contains(string(reply), `"tools"`) {
			served++
		}
	}
	if served != 10 {
		t.Errorf("with %d listen streams open, %d of 10 ordinary requests were served", guard.DefaultMaxStreams, served)
	}
	resp, _ := openStream(t, t.Context(), url, 99, `{"resourcesListChanged":true}`)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("one stream more: %s, Retry-After %q; want 503 and a time to retry", resp.Status, resp.Header.Get("Retry-After"))
	}
}

// TestListenAcknowledgedFirst: 200 listen streams asking for what this server never sends,
// which mcp-go closes at once; each opens with its acknowledgement all the same.
func TestListenAcknowledgedFirst(t *testing.T) {
	url := startServer(t, t.TempDir(), "-embedder", "offline")
	missing := 0
	for i := range 200 {
		_, messages := openStream(t, t.Context(), url, i+1, `{"toolsListChanged":true}`)
		var got []string
		for m := range messages {
			got = append(got, m)
		}
		if len(got) != 2 || got[0] != "notifications/subscriptions/acknowledged" {
			missing++
			t.Logf("listen %d: %q", i+1, got)
		}
	}
	if missing > 0 {
		t.Errorf("%d of 200 listen streams did not open with their acknowledgement", missing)
	}
}
