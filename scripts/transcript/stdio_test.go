package transcript

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
)

// TestTranscriptsOverStdio runs every transcript again over stdio, for the steps that offer
// it (-transport stdio, from step 2): the same tools must answer the same way on both
// transports. Sections that check HTTP itself are skipped, and the test says which.
func TestTranscriptsOverStdio(t *testing.T) {
	root, steps := stepsUnderTest(t)
	for _, step := range steps {
		usage, _ := exec.Command(binary(t, root, step), "-h").CombinedOutput()
		if !strings.Contains(string(usage), "-transport") {
			continue
		}
		for _, m := range modes(t, root, step) {
			name := step.Name
			if m != plain {
				name += "/" + string(m)
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel() // each run has its own port, vault and index
				// The embedder and the transport are separate parts of a step: TestTranscripts
				// runs the Ollama client over HTTP, this the transport with the offline
				// embedder. Both together is the same check again.
				if m == standIn && testing.Short() {
					t.Skip("the Ollama client over stdio; `make check` runs it")
				}
				sections, err := ParseFile(step.Transcript())
				if err != nil {
					t.Fatal(err)
				}
				env, vault := stepEnv(t, root, step, m)
				runOverStdio(t, binary(t, root, step), env, vault, sections)
			})
		}
	}
}

// runOverStdio runs the sections, in order, on one stdio session of bin.
func runOverStdio(t *testing.T, bin string, env []string, vault string, sections []Section) {
	t.Helper()
	srv, err := StartStdio(bin, env)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Stop(); err != nil {
			t.Error(err)
		}
		if t.Failed() {
			t.Logf("server log:\n%s", srv.Logs())
		}
	})
	var skipped []string
	for _, s := range sections {
		httpOnly, f := srv.RunStdio(context.Background(), s, vault)
		if httpOnly != "" {
			skipped = append(skipped, fmt.Sprintf("%q: %s", s.Title, httpOnly))
		} else if f != nil {
			t.Error(f.Error())
		}
	}
	ran := len(sections) - len(skipped)
	t.Logf("%d of %d sections ran over stdio; %d are HTTP-only:\n  %s", ran, len(sections), len(skipped), strings.Join(skipped, "\n  "))
	// Most sections are tool calls; step 2's, about the protocol over HTTP, are the fewest. If
	// fewer than six in ten run, the runner has stopped reading the transcripts, and this test
	// would pass while checking nothing.
	if ran*10 < len(sections)*6 {
		t.Errorf("only %d of %d sections ran over stdio; at least 60%% should", ran, len(sections))
	}
}

func TestToStdio(t *testing.T) {
	const (
		headers = `-H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream'`
		ping    = `{"jsonrpc":"2.0","id":2,"method":"ping"}`
		pong    = `{"jsonrpc":"2.0","id":2,"result":{}}`
	)
	tests := []struct {
		name, shell, expected string
		body, want            string // the message and its expected answer
		shellOnly             bool   // runs through sh
		httpOnly              string // a part of the reason
	}{
		{name: "plain", shell: `curl -s $MCP ` + headers + ` -d '` + ping + `'`, expected: pong, body: ping, want: pong},
		{name: "continued lines", shell: "curl -s $MCP " + headers + " \\\n    -d '" + ping + "'", expected: pong, body: ping, want: pong},
		{name: "${MCP}", shell: `curl -s ${MCP} -d '` + ping + `'`, expected: pong, body: ping, want: pong},
		{name: "a long option", shell: `curl --silent $MCP -d '` + ping + `'`, expected: pong, httpOnly: "option --silent"},
		{name: "quotes joined in one word", shell: `curl -s $MCP -d '{"text":"it'"'"'s"}'`, expected: pong, httpOnly: "shell"},
		{name: "JSON escapes pass through single quotes untouched",
			shell:    `curl -s $MCP -d '{"path":"Daily\\2026","t":"a\nb"}'`,
			expected: pong, body: `{"path":"Daily\\2026","t":"a\nb"}`, want: pong},
		{name: "a body over several lines is sent compacted", shell: "curl -s $MCP -d '{\n  \"id\": 2,\n  \"method\": \"ping\"\n}'",
			expected: pong, body: `{"id":2,"method":"ping"}`, want: pong},
		{name: "-i: status and headers are dropped",
			shell:    `curl -si $MCP ` + headers + ` -d '` + ping + `'`,
			expected: "HTTP/1.1 200 OK\nContent-Type: application/json\n\n{\n  \"jsonrpc\": \"2.0\"\n}", body: ping, want: "{\n  \"jsonrpc\": \"2.0\"\n}"},
		{name: "-i 202: no answer", shell: `curl -si $MCP ` + headers + ` -d '{"jsonrpc":"2.0","method":"notifications/initialized"}'`,
			expected: "HTTP/1.1 202 Accepted\nContent-Length: 0", body: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, want: ""},
		{name: "a body that is not JSON is sent as it is", shell: `curl -s $MCP -d '{"jsonrpc":"2.0","id":10,'`,
			expected: `{"jsonrpc":"2.0","id":null,"error":{}}`, body: `{"jsonrpc":"2.0","id":10,`, want: `{"jsonrpc":"2.0","id":null,"error":{}}`},
		{name: "-X POST is still a POST", shell: `curl -s -X POST $MCP -d '` + ping + `'`, expected: pong, body: ping, want: pong},

		{name: "a shell command", shell: `printf '# Kohlrabi\n' > "$VAULT_COPY/Garden/Kohlrabi.md"`, shellOnly: true},
		{name: "cat", shell: `cat "$VAULT_COPY/Inbox/Seed order.md"`, expected: "---", shellOnly: true},

		{name: "routing headers are HTTP's alone", shell: `curl -s $MCP ` + headers + " \\\n    -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: ping' -d '" + ping + "'",
			expected: pong, body: ping, want: pong},
		{name: "a routing header refused", shell: `curl -si $MCP ` + headers + " \\\n    -H 'MCP-Protocol-Version: 1999-01-01' -d '" + ping + "'",
			expected: "HTTP/1.1 400 Bad Request", httpOnly: "status 400"},
		{name: "another header", shell: `curl -si $MCP ` + headers + " -H 'X-Other: 1' -d '" + ping + "'",
			expected: "HTTP/1.1 200 OK\n\n" + pong, httpOnly: "header"},
		{name: "Origin", shell: `curl -si $MCP -H 'Origin: https://evil.example' -d '` + ping + `'`, expected: "HTTP/1.1 403 Forbidden", httpOnly: "header"},
		{name: "-i 400", shell: `curl -si $MCP -d '[` + ping + `]'`, expected: "HTTP/1.1 400 Bad Request\nContent-Type: application/json\n\n{}", httpOnly: "status 400"},
		{name: "GET", shell: `curl -si $MCP`, expected: "HTTP/1.1 405 Method Not Allowed", httpOnly: "no body"},
		{name: "DELETE", shell: `curl -si -X DELETE $MCP`, expected: "HTTP/1.1 405 Method Not Allowed", httpOnly: "DELETE"},
		{name: "another URL", shell: `curl -si ${MCP%/mcp}/other -d '` + ping + `'`, expected: "HTTP/1.1 404 Not Found", httpOnly: "not $MCP"},
		{name: "a pipe into curl", shell: `head -c 5 /dev/zero | curl -si $MCP --data-binary @-`, expected: "HTTP/1.1 413", httpOnly: "'|'"},
		{name: "a body from a file", shell: `curl -s $MCP -d @body.json`, expected: pong, httpOnly: "body"},
		{name: "an expanded body", shell: `curl -s $MCP -d "{\"id\":$ID}"`, expected: pong, httpOnly: "shell"},
		{name: "an escape", shell: `curl -s $MCP -d \{\}`, expected: pong, httpOnly: "shell"},
		{name: "a text answer", shell: `curl -s $MCP -d '` + ping + `'`, expected: "Streaming is disabled on this server", httpOnly: "not JSON"},
		{name: "-i without a status line", shell: `curl -si $MCP -d '` + ping + `'`, expected: pong, httpOnly: "status line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg, httpOnly := ToStdio(Command{Shell: tt.shell, Expected: tt.expected})
			switch {
			case tt.httpOnly != "":
				if !strings.Contains(httpOnly, tt.httpOnly) {
					t.Errorf("httpOnly = %q, want it to mention %q (msg %+v)", httpOnly, tt.httpOnly, msg)
				}
			case httpOnly != "":
				t.Errorf("httpOnly = %q, want it to run over stdio", httpOnly)
			case tt.shellOnly:
				if msg != nil {
					t.Errorf("got message %+v, want a shell command", msg)
				}
			case msg == nil:
				t.Errorf("got a shell command, want a message")
			case msg.Body != tt.body || msg.Expected != tt.want:
				t.Errorf("got body %s expecting %q, want body %s expecting %q", msg.Body, msg.Expected, tt.body, tt.want)
			}
		})
	}
}

// Every transcript must parse for stdio the way the HTTP run reads it: the curl options it
// understands are all the transcripts use, so nothing is skipped by a misreading.
func TestStdioReadsEveryTranscript(t *testing.T) {
	_, steps := stepsUnderTest(t)
	for _, step := range steps {
		sections, err := ParseFile(step.Transcript())
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range sections {
			for _, c := range s.Commands {
				msg, httpOnly := ToStdio(c)
				if msg != nil && !strings.Contains(c.Shell, msg.Body) {
					t.Errorf("%s %q: the body %s is not in the command as written:\n%s", step.Name, s.Title, msg.Body, c.Shell)
				}
				// Only these parts of HTTP make a section HTTP-only; a new reason is a
				// runner that misreads a command.
				known := []string{"header", "status", "no body", "method", "not $MCP", "'|'", "not JSON", "the transcript says so"}
				if httpOnly != "" && !containsAny(httpOnly, known) {
					t.Errorf("%s %q: unexpected reason %q for\n%s", step.Name, s.Title, httpOnly, c.Shell)
				}
			}
		}
	}
}

func containsAny(s string, parts []string) bool {
	for _, p := range parts {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}

// shellWords must split as sh itself does, for the forms it accepts; sh is the judge.
func TestStdioShellWordsAgreeWithSh(t *testing.T) {
	for _, s := range []string{
		`curl -s -d '{"a":"b c"}'`,
		`-d 'it'x'y' -H 'Accept: a, b'`,
		"one \\\n  two '\\\n' \t three",
		`-d '{"path":"C:\\Windows\\win.ini","t":"a\nb"}'`,
	} {
		words, err := shellWords(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		var got []string
		for _, w := range words {
			got = append(got, "<"+w.text+">")
		}
		out, err := exec.Command("sh", "-c", `printf '<%s>\n' `+s).Output()
		if err != nil {
			t.Fatalf("sh: %v", err)
		}
		if want := strings.TrimSuffix(string(out), "\n"); strings.Join(got, "\n") != want {
			t.Errorf("shellWords(%s) =\n%s\nsh says\n%s", s, strings.Join(got, "\n"), want)
		}
	}
}
