package transcript

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestMatch(t *testing.T) {
	tests := []struct {
		name, expected, actual string
		wantOK                 bool
	}{
		{"json ignores spacing and key order", `{"a": 1, "b": [true, null]}`, `{"b":[true,null],"a":1}`, true},
		{"json catches a changed value", `{"a": 1}`, `{"a":2}`, false},
		{"json catches an extra key", `{"a": 1}`, `{"a":1,"b":2}`, false},
		{"json catches a missing key", `{"a": 1, "b": 2}`, `{"a":1}`, false},
		{"number placeholder", `{"score": "<number>"}`, `{"score":0.8123}`, true},
		{"number placeholder is not a string", `{"score": "<number>"}`, `{"score":"high"}`, false},
		{"string placeholder", `{"path": "<string>"}`, `{"path":"/tmp/x"}`, true},
		{"any placeholder keeps the key required", `{"a": "<any>"}`, `{}`, false},
		{"optional placeholder lets the key be left out", `{"a": "<optional>", "b": 1}`, `{"b":1}`, true},
		{"optional placeholder takes any value", `{"a": "<optional>"}`, `{"a":"2026-01-01T00:00:00Z"}`, true},
		{"optional placeholder still checks the other keys", `{"a": "<optional>", "b": 1}`, `{"b":2}`, false},
		{"placeholder inside text", `{"t": "took <number> ms"}`, `{"t":"took 12 ms"}`, true},
		{"json inside a string is compared as json", `{"text": "{\"b\": 2, \"a\": 1}"}`, `{"text":"{\"a\":1,\"b\":2}"}`, true},
		{"an object may stand for a string holding it", `{"text": {"a": 1}}`, `{"text":"{\"a\":1}"}`, true},
		{"an object does not match a plain string", `{"text": {"a": 1}}`, `{"text":"a: 1"}`, false},
		{"plain text", "404 page not found", "404 page not found\n", true},
		{"status and listed headers", "HTTP/1.1 405 Method Not Allowed\nAllow: POST", "HTTP/1.1 405 Method Not Allowed\r\nAllow: POST\r\nDate: x\r\n\r\n", true},
		{"wrong status", "HTTP/1.1 200 OK", "HTTP/1.1 400 Bad Request\r\n\r\n{}", false},
		{"missing header", "HTTP/1.1 200 OK\nAllow: POST", "HTTP/1.1 200 OK\r\n\r\n", false},
		{"empty body expected", "HTTP/1.1 202 Accepted", "HTTP/1.1 202 Accepted\r\n\r\n", true},
		{"empty body expected, body sent", "HTTP/1.1 202 Accepted", "HTTP/1.1 202 Accepted\r\n\r\nsurprise", false},
		{"json expected, text sent", `{"a":1}`, "oops", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			problem := Match(tt.expected, tt.actual)
			if (problem == "") != tt.wantOK {
				t.Errorf("Match(%q, %q) = %q, want ok=%v", tt.expected, tt.actual, problem, tt.wantOK)
			}
		})
	}
}

func TestParse(t *testing.T) {
	src := `# a comment

## first
$ curl -s $MCP \
    -d '{}'
{"a": 1}

## second: two commands
$ echo one
one
# retry for up to 5s
# http only: stdio answers otherwise
$ echo two
two
`
	sections, err := Parse(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(sections) != 2 {
		t.Fatalf("got %d sections, want 2", len(sections))
	}
	first := sections[0]
	if first.Title != "first" || len(first.Commands) != 1 {
		t.Fatalf("first section = %+v", first)
	}
	if got, want := first.Commands[0].Shell, "curl -s $MCP \\\n    -d '{}'"; got != want {
		t.Errorf("shell = %q, want %q", got, want)
	}
	if got := first.Commands[0].Expected; got != `{"a": 1}` {
		t.Errorf("expected = %q", got)
	}
	if got := len(sections[1].Commands); got != 2 {
		t.Fatalf("second section has %d commands, want 2", got)
	}
	if a, b := sections[1].Commands[0].Retry, sections[1].Commands[1].Retry; a != 0 || b != 5*time.Second {
		t.Errorf("retries = %v, %v; want 0 and 5s", a, b)
	}
	if a, b := sections[1].Commands[0].HTTPOnly, sections[1].Commands[1].HTTPOnly; a != "" || b != "stdio answers otherwise" {
		t.Errorf("http only = %q, %q; want none and the second's reason", a, b)
	}
	if _, why := ToStdio(sections[1].Commands[1]); !strings.Contains(why, "stdio answers otherwise") {
		t.Errorf("ToStdio runs a command the transcript keeps to HTTP (%q)", why)
	}
	for _, bad := range []string{
		"## a\n$ x\n\n## a\n$ y\n",   // duplicate title
		"## a\noutput first\n",       // output without a command
		"stray text\n## a\n$ x\n",    // text before the first section
		"## a\n",                     // no command
		"## a\n$ x\n## b\n$ y\n",     // no blank line between sections
		"## a\n$ x\n\n\n## b\n$ y\n", // two
		"## a\n$ x\n\n",              // a blank line at the end
	} {
		if _, err := Parse(strings.NewReader(bad)); err == nil {
			t.Errorf("Parse(%q) succeeded, want an error", bad)
		}
	}
}

// TestRetryWaitsForTheChange runs a command that prints the expected output only once a file
// appears, which another goroutine writes a little later.
func TestRetryWaitsForTheChange(t *testing.T) {
	flag := filepath.Join(t.TempDir(), "ready")
	section := Section{Title: "eventually", Commands: []Command{{
		Shell:    "cat " + flag + " 2>/dev/null || echo not yet",
		Expected: "ready",
		Retry:    10 * time.Second,
	}}}
	go func() {
		time.Sleep(300 * time.Millisecond)
		os.WriteFile(flag, []byte("ready\n"), 0o644)
	}()
	if f := Run(context.Background(), section, Env{}); f != nil {
		t.Error(f)
	}
	section.Commands[0].Retry = 0
	section.Commands[0].Shell = "echo never"
	if Run(context.Background(), section, Env{}) == nil {
		t.Error("a command without retry that prints the wrong thing passed")
	}
}
