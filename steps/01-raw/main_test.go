package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// startServer runs the program as main would, on a free port, and returns its MCP endpoint.
func startServer(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	logs, logWriter := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"01-raw", "-addr", "127.0.0.1:0"}, func(string) string { return "" }, io.Discard, logWriter)
		logWriter.Close()
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run returned %v", err)
		}
	})

	urls := make(chan string, 1)
	go func() {
		scanner := bufio.NewScanner(logs)
		for scanner.Scan() {
			if m := regexp.MustCompile(`url=(\S+)`).FindStringSubmatch(scanner.Text()); m != nil {
				urls <- m[1]
			}
		}
	}()
	select {
	case url := <-urls:
		return url
	case <-time.After(5 * time.Second):
		t.Fatal("the server did not log its url")
		return ""
	}
}

func post(t *testing.T, url, body string) (*http.Response, map[string]any) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var msg map[string]any
	if len(data) > 0 {
		if err := json.Unmarshal(data, &msg); err != nil {
			t.Fatalf("response is not JSON: %q", data)
		}
	}
	return resp, msg
}

func TestInitializeNegotiatesTheVersion(t *testing.T) {
	url := startServer(t)
	for client, want := range map[string]string{
		"2025-11-25": "2025-11-25",
		"2025-06-18": "2025-06-18",
		"2024-11-05": "2024-11-05",
		"2099-01-01": "2025-11-25", // unknown: offer our latest, never parrot
		"1.0":        "2025-11-25",
	} {
		_, msg := post(t, url, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+client+`"}}`)
		result, _ := msg["result"].(map[string]any)
		if got := result["protocolVersion"]; got != want {
			t.Errorf("client asks for %s: server answers %v, want %s", client, got, want)
		}
	}
}

func TestEveryMessageWithoutAnIDIsAccepted(t *testing.T) {
	url := startServer(t)
	for _, method := range []string{"notifications/initialized", "notifications/cancelled", "no/such/notification"} {
		resp, msg := post(t, url, `{"jsonrpc":"2.0","method":"`+method+`"}`)
		if resp.StatusCode != http.StatusAccepted || msg != nil {
			t.Errorf("%s: got %d %v, want 202 and no body", method, resp.StatusCode, msg)
		}
	}
}

func TestBadInputGetsAnErrorAndTheServerKeepsServing(t *testing.T) {
	url := startServer(t)
	for _, body := range []string{
		``, `null`, `42`, `"x"`, `{`, `[]`, `{"jsonrpc":"2.0","id":[1],"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":"nope"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":[1]}}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":7}}`,
	} {
		resp, msg := post(t, url, body)
		if msg["error"] == nil {
			t.Errorf("body %q: status %d, %v; want a JSON-RPC error", body, resp.StatusCode, msg)
		}
	}
	if _, msg := post(t, url, `{"jsonrpc":"2.0","id":2,"method":"ping"}`); msg["result"] == nil {
		t.Errorf("after bad input, ping answered %v", msg)
	}
}
