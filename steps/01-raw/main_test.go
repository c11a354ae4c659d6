package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// startServer runs the program as main would, on a free port, and returns its MCP endpoint.
// The port comes from the environment, as make step passes it.
func startServer(t *testing.T) string {
	t.Helper()
	url, _ := startLogged(t)
	return url
}

// startLogged is startServer, and also returns the server's log so far, line by line.
func startLogged(t *testing.T) (url string, log func() []string) {
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

	var mu sync.Mutex
	var lines []string
	urls := make(chan string, 1)
	go func() {
		scanner := bufio.NewScanner(logs)
		for scanner.Scan() {
			mu.Lock()
			lines = append(lines, scanner.Text())
			mu.Unlock()
			if m := regexp.MustCompile(`url=(\S+)`).FindStringSubmatch(scanner.Text()); m != nil {
				urls <- m[1]
			}
		}
	}()
	log = func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(lines)
	}
	select {
	case url := <-urls:
		return url, log
	case <-time.After(time.Minute): // far longer than it takes, even on a busy machine
		t.Fatal("the server did not log its url")
		return "", nil
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
		req.Header.Set("Content-Type", "application/json")
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

// ran reports the log lines of requests that were dispatched: a refused request logs none.
func ran(lines []string) []string {
	var dispatched []string
	for _, line := range lines {
		if strings.Contains(line, "msg=request") || strings.Contains(line, "msg=notification") {
			dispatched = append(dispatched, line)
		}
	}
	return dispatched
}

// TestOnlyJSONIsTaken: a body a web form could send, which a browser sends to any site without
// asking first, is refused before it is read; a message sent as application/json, with or
// without a charset, is served.
func TestOnlyJSONIsTaken(t *testing.T) {
	url, log := startLogged(t)
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"ran"}}}`
	for _, contentType := range []string{"", "text/plain", "text/plain; charset=utf-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/jsonx", "text/json"} {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(call))
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnsupportedMediaType || !strings.Contains(string(body), "application/json") {
			t.Errorf("Content-Type %q: %d %q; want 415 naming application/json", contentType, resp.StatusCode, body)
		}
	}
	if lines := ran(log()); len(lines) > 0 {
		t.Errorf("a refused body was dispatched: %q", lines)
	}
	for _, contentType := range []string{"application/json", "application/json; charset=utf-8", "Application/JSON"} {
		if resp, msg := post(t, url, call, "Content-Type", contentType); resp.StatusCode != http.StatusOK || msg["result"] == nil {
			t.Errorf("Content-Type %q: %d %v; want the tool's result", contentType, resp.StatusCode, msg)
		}
	}
}

// TestAmbiguousNamesAreRefused: a message that two JSON readers could read as two different
// messages is refused with -32600 before anything runs, and its id comes back only when the
// id itself is certain (null otherwise). A message whose names are all distinct is served.
func TestAmbiguousNamesAreRefused(t *testing.T) {
	url, log := startLogged(t)
	args := `"arguments":{"text":"ran"}`
	for _, c := range []struct {
		body string
		id   any // nil: "id": null, as JSON-RPC answers a message whose id it cannot read
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list","Method":"tools/call","params":{"name":"echo",` + args + `}}`, 1.0},
		{`{"jsonrpc":"2.0","id":2,"Method":"tools/call","params":{"name":"echo",` + args + `}}`, 2.0},
		{`{"jsonrpc":"2.0","id":3,"method":"tools/list","method":"tools/call","params":{"name":"echo",` + args + `}}`, 3.0},
		{`{"jsonrpc":"2.0","id":4,"method":"tools/list","\u006dethod":"tools/call","params":{"name":"echo",` + args + `}}`, 4.0},
		{`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"ping","Name":"echo",` + args + `}}`, 5.0},
		{`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a","text":"ran"}}}`, 6.0},
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"list":[{"a":1,"A":2}],"text":"ran"}}}`, 7.0},
		// The Kelvin sign folds to K, and the long s to S, as encoding/json matches them.
		{`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"echo","arguments":{"text":"ran","s":"a","\u017F":"b"}}}`, 8.0},
		{`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","arguments":{"kind":"a","\u212Aind":"b","text":"ran"}}}`, 9.0},
		// A number too large for a float64 does not end the search.
		{`{"jsonrpc":"2.0","id":15,"method":"tools/call","params":{"name":"echo","arguments":{"big":1e400,"text":"a","text":"ran"}}}`, 15.0},
		{`{"jsonrpc":"2.0","ID":10,"method":"tools/call","params":{"name":"echo",` + args + `}}`, nil},
		{`{"jsonrpc":"2.0","id":11,"Id":12,"method":"tools/call","params":{"name":"echo",` + args + `}}`, nil},
		{`{"jsonrpc":"2.0","id":13,"id":14,"method":"tools/call","params":{"name":"echo",` + args + `}}`, nil},
		{`{"jsonrpc":"2.0","Method":"notifications/initialized"}`, nil},
	} {
		resp, msg := post(t, url, c.body)
		if resp.StatusCode != http.StatusBadRequest || errorCode(msg) != codeInvalidRequest {
			t.Errorf("%s: %d %v; want 400 and -32600", c.body, resp.StatusCode, msg)
			continue
		}
		if id, hasID := msg["id"]; id != c.id || !hasID {
			t.Errorf("%s: the answer's id is %v; want %v", c.body, msg["id"], c.id)
		}
	}
	if lines := ran(log()); len(lines) > 0 {
		t.Errorf("an ambiguous message was dispatched: %q", lines)
	}
	// The same name in two objects, names that differ in more than case, and a name that
	// merely contains another are all unambiguous.
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"echo","arguments":{"text":"ran","texts":[{"text":1},{"text":2}],"name":"x"}}}`,
		`{"jsonrpc":"2.0","id":21,"method":"tools/call","params":{"name":"echo","arguments":{"text":"ran","nested":{"a":{"A":{"a":null}}}}}}`,
	} {
		if resp, msg := post(t, url, body); resp.StatusCode != http.StatusOK || msg["result"] == nil {
			t.Errorf("%s: %d %v; want the tool's result", body, resp.StatusCode, msg)
		}
	}
}

// TestErrorStatus: 2026-07-28 fixes the status of some errors; a fault of the server is 5xx,
// never 400; a 2025 client reads every error from a 200.
func TestErrorStatus(t *testing.T) {
	for _, c := range []struct {
		current bool
		code    int
		want    int
	}{
		{true, codeMethodNotFound, 404},
		{true, -32020, 400},
		{true, -32021, 400},
		{true, -32022, 400},
		{true, codeInvalidParams, 400},
		{true, codeInvalidRequest, 400},
		{true, codeParseError, 400},
		{true, codeInternalError, 500},
		{false, codeMethodNotFound, 200},
		{false, codeInternalError, 200},
	} {
		if got := errorStatus(c.current, c.code); got != c.want {
			t.Errorf("errorStatus(%v, %d) = %d; want %d", c.current, c.code, got, c.want)
		}
	}
}
