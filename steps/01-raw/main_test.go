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
// The port comes from the environment, as make step passes it.
func startServer(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	logs, logWriter := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"01-raw"}, env("VAULTMCP_ADDR", "127.0.0.1:0"), logWriter)
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

// env returns a getenv that knows only the one variable given.
func env(name, value string) func(string) string {
	return func(key string) string {
		if key == name {
			return value
		}
		return ""
	}
}

// TestBadAddressNamesItself: an address that cannot be one stops the program before it
// listens, with an error that names both places it may come from.
func TestBadAddressNamesItself(t *testing.T) {
	for _, c := range []struct {
		args   []string
		getenv func(string) string
	}{
		{[]string{"01-raw", "-addr", "nowhere"}, env("", "")},
		{[]string{"01-raw"}, env("VAULTMCP_ADDR", "nowhere")},
	} {
		var logs strings.Builder
		err := run(t.Context(), c.args, c.getenv, &logs)
		if err == nil || !strings.Contains(err.Error(), "-addr") || !strings.Contains(err.Error(), "VAULTMCP_ADDR") || !strings.Contains(err.Error(), `"nowhere"`) {
			t.Errorf("run %q with %q = %v; want an error naming -addr, VAULTMCP_ADDR and the value", c.args, c.getenv("VAULTMCP_ADDR"), err)
		}
		if strings.Contains(logs.String(), "listening") {
			t.Errorf("run %q listened before it refused:\n%s", c.args, logs.String())
		}
	}
}

// post sends body with the given headers (pairs of name and value) and reads the answer.
func post(t *testing.T, url, body string, headers ...string) (*http.Response, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var msg map[string]any
	if len(data) > 0 && strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(data, &msg); err != nil {
			t.Fatalf("response is not JSON: %q", data)
		}
	}
	return resp, msg
}

// meta is the _meta every 2026-07-28 request carries.
const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

func errorCode(msg map[string]any) float64 {
	e, _ := msg["error"].(map[string]any)
	code, _ := e["code"].(float64)
	return code
}

func TestInitializeNegotiatesTheVersion(t *testing.T) {
	url := startServer(t)
	for client, want := range map[string]string{
		"2025-11-25": "2025-11-25",
		"2025-06-18": "2025-06-18",
		"2024-11-05": "2024-11-05",
		"2026-07-28": "2025-11-25", // has no handshake: offer the latest one that has
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

func TestCurrentRevisionRequestsAreChecked(t *testing.T) {
	url := startServer(t)
	headers := func(method string, more ...string) []string {
		return append([]string{"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", method}, more...)
	}
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},` + meta + `}}`
	for _, c := range []struct {
		name    string
		body    string
		headers []string
		status  int
		code    float64 // 0: a result
	}{
		{"discover", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta + `}}`, headers("server/discover"), 200, 0},
		{"a tool call", call, headers("tools/call", "Mcp-Name", "echo"), 200, 0},
		{"a tool name in base64", call, headers("tools/call", "Mcp-Name", "=?base64?ZWNobw==?="), 200, 0},
		{"no Mcp-Name", call, headers("tools/call"), 400, -32020},
		{"another Mcp-Name", call, headers("tools/call", "Mcp-Name", "ping"), 400, -32020},
		{"no Mcp-Method", call, []string{"MCP-Protocol-Version", "2026-07-28", "Mcp-Name", "echo"}, 400, -32020},
		{"Mcp-Method in another case", call, headers("Tools/Call", "Mcp-Name", "echo"), 400, -32020},
		{"no version header", call, []string{"Mcp-Method", "tools/call", "Mcp-Name", "echo"}, 400, -32020},
		{"header and _meta disagree", call, []string{"MCP-Protocol-Version", "2025-11-25", "Mcp-Method", "tools/call", "Mcp-Name", "echo"}, 400, -32020},
		{"an unknown version", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}`,
			[]string{"MCP-Protocol-Version", "2099-01-01", "Mcp-Method", "tools/list"}, 400, -32022},
		{"no _meta", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, headers("tools/list"), 400, -32602},
		{"no capabilities", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, headers("tools/list"), 400, -32602},
		{"capabilities not an object", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":[]}}}`, headers("tools/list"), 400, -32602},
		{"ping was removed", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{` + meta + `}}`, headers("ping"), 404, -32601},
		{"initialize was removed", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{` + meta + `}}`, headers("initialize"), 404, -32601},
		{"an unknown tool", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope",` + meta + `}}`, headers("tools/call", "Mcp-Name", "nope"), 400, -32602},
	} {
		resp, msg := post(t, url, c.body, c.headers...)
		result, _ := msg["result"].(map[string]any)
		switch {
		case resp.StatusCode != c.status || errorCode(msg) != c.code:
			t.Errorf("%s: got %d %v, want %d and code %v", c.name, resp.StatusCode, msg, c.status, c.code)
		case c.code == 0 && (result["resultType"] != "complete" || result["_meta"] == nil):
			t.Errorf("%s: the result %v lacks resultType or _meta", c.name, result)
		}
	}
}

func TestOnlyThisMachineMayCall(t *testing.T) {
	url := startServer(t)
	port := url[strings.LastIndex(url, ":")+1 : strings.LastIndex(url, "/")]
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	for _, c := range []struct {
		name, host, origin string
		status             int
	}{
		{"a native client", "", "", 200},
		{"localhost", "localhost:" + port, "", 200},
		{"a page of this server's own", "", "http://127.0.0.1:" + port, 200},
		{"a foreign page", "", "https://evil.example", 403},
		{"the null origin", "", "null", 403},
		{"another port", "", "http://localhost:1", 403},
		{"DNS rebinding", "evil.example:" + port, "http://evil.example:" + port, 403},
		{"a foreign Host alone", "evil.example:" + port, "", 403},
	} {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(ping))
		if c.host != "" {
			req.Host = c.host
		}
		if c.origin != "" {
			req.Header.Set("Origin", c.origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.status {
			t.Errorf("%s: status %d, want %d", c.name, resp.StatusCode, c.status)
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
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`, `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, `{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":"nope"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":[1]}}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":7}}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize"}`,
	} {
		resp, msg := post(t, url, body)
		if msg["error"] == nil {
			t.Errorf("body %q: status %d, %v; want a JSON-RPC error", body, resp.StatusCode, msg)
		}
		if _, ok := msg["id"]; !ok {
			t.Errorf("body %q: the error has no \"id\"; JSON-RPC 2.0 answers an id it could not read with null", body)
		}
	}
	if _, msg := post(t, url, `{"jsonrpc":"2.0","id":2,"method":"ping"}`); msg["result"] == nil {
		t.Errorf("after bad input, ping answered %v", msg)
	}
}
