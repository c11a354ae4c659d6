package transcript

// Over stdio the same transcripts run on one long-lived session instead of one HTTP request
// per command: a curl that POSTs a JSON-RPC message to $MCP becomes that message, written as
// one line on the server's stdin, and its expected output (without the HTTP status line and
// headers) is the line the server must answer on stdout. What a curl shows about HTTP itself
// (other headers, methods, URLs, error statuses) has no stdio counterpart, so a section that
// needs it is left to the HTTP run. Commands that do not talk to the server, like the ones
// that write a note into $VAULT_COPY for the watcher, run through sh as they do over HTTP.
//
// mcp-go answers requests on stdio before initialize too (as the stateless HTTP server does),
// so no handshake is sent: the transcripts start with their own initialize sections.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// StdioMessage is a transcript command as it travels over stdio.
type StdioMessage struct {
	Body string // the curl's -d body, on one line
	// Expected is the response line, as the transcript shows the HTTP body. "" means no
	// response may come: HTTP answers 202 Accepted with no body (a notification).
	Expected string
}

// talksToServer spots a command that reaches the server, as opposed to one that only
// touches the vault. It errs on the side of "yes": such a command that is not a plain curl
// makes its section HTTP-only, which is logged, never silently passed.
var talksToServer = regexp.MustCompile(`\bcurl\b|\$\{?MCP\b`)

// shortFlags are curl's -s, -S and -i, alone or together: output, not the request.
var shortFlags = regexp.MustCompile(`^-[siS]+$`)

// ToStdio says how a command runs over stdio: as a message (msg != nil); through sh, when it
// does not talk to the server (msg == nil and httpOnly == ""); or not at all, with httpOnly
// saying which part of HTTP it checks.
func ToStdio(c Command) (msg *StdioMessage, httpOnly string) {
	if c.HTTPOnly != "" {
		return nil, "the transcript says so: " + c.HTTPOnly
	}
	if !talksToServer.MatchString(c.Shell) {
		return nil, ""
	}
	req, why := parseCurl(c.Shell)
	if why != "" {
		return nil, why
	}
	want := strings.TrimSpace(strings.ReplaceAll(c.Expected, "\r\n", "\n"))
	if req.include {
		head, body, _ := strings.Cut(want, "\n\n")
		status := strings.Fields(strings.SplitN(head, "\n", 2)[0])
		if !strings.HasPrefix(want, "HTTP/") || len(status) < 2 {
			return nil, "it uses curl -i but the transcript shows no status line"
		}
		switch body = strings.TrimSpace(body); status[1] {
		case "200":
			want = body
		case "202": // accepted, nothing to say: over stdio, no line at all
			if body != "" {
				return nil, "it expects 202 with a body"
			}
			want = ""
		default:
			return nil, "it expects HTTP status " + status[1]
		}
	}
	// Every stdio answer is a JSON-RPC message; text (a plain-text HTTP error) never is.
	if want != "" && !json.Valid([]byte(want)) {
		return nil, "it expects a body that is not JSON"
	}
	return &StdioMessage{Body: req.body, Expected: want}, ""
}

// curlRequest is what a plain curl command sends.
type curlRequest struct {
	body    string
	include bool // -i: the output starts with the status line and headers
}

// parseCurl reads `curl -s[i] $MCP -H '...' ... -d '...'`, the one form the transcripts send
// a message in, and returns why not when the command is anything more.
func parseCurl(shell string) (curlRequest, string) {
	var req curlRequest
	words, err := shellWords(shell)
	if err != nil {
		return req, "it is not a plain command: " + err.Error()
	}
	if len(words) == 0 || words[0].text != "curl" || words[0].expands {
		return req, "it reaches the server other than by curl"
	}
	toMCP, hasBody := false, false
	for i := 1; i < len(words); i++ {
		w := words[i]
		// value takes the option's argument; a $ in it would need the shell to expand it.
		value := func() (string, bool) {
			if i+1 >= len(words) || words[i+1].expands {
				return "", false
			}
			i++
			return words[i].text, true
		}
		switch arg := w.text; {
		case w.expands:
			if arg != "$MCP" && arg != "${MCP}" {
				return req, fmt.Sprintf("it sends to %s, not $MCP", arg)
			}
			toMCP = true
		case shortFlags.MatchString(arg):
			req.include = req.include || strings.Contains(arg, "i")
		case arg == "-H":
			h, ok := value()
			name, _, _ := strings.Cut(h, ":")
			// Content-Type and Accept only say "JSON, please". 2026-07-28's routing headers
			// repeat the body's revision, method and name for HTTP's proxies, and a server
			// refuses them when they disagree (an HTTP error, which stays HTTP-only). stdio
			// carries the body alone.
			switch n := strings.ToLower(strings.TrimSpace(name)); {
			case !ok:
				return req, "it sends a header without a value"
			case n != "content-type" && n != "accept" && n != "mcp-protocol-version" && n != "mcp-method" && n != "mcp-name":
				return req, fmt.Sprintf("it sends the header %q", h)
			}
		case arg == "-X":
			if m, ok := value(); !ok || !strings.EqualFold(m, "POST") {
				return req, fmt.Sprintf("it uses the method %s", m)
			}
		case arg == "-d":
			body, ok := value()
			if !ok || hasBody || strings.HasPrefix(body, "@") {
				return req, "its body is not one literal -d '...'"
			}
			req.body, hasBody = body, true
		case strings.HasPrefix(arg, "-"):
			return req, fmt.Sprintf("it uses the curl option %s", arg)
		default:
			return req, fmt.Sprintf("it sends to %s, not $MCP", arg)
		}
	}
	switch {
	case !toMCP:
		return req, "it does not send to $MCP"
	case !hasBody:
		return req, "it sends no body (curl then makes a GET)"
	}
	// A message is one line on stdio. JSON spread over lines is the same message compacted;
	// anything else cannot be sent.
	if strings.ContainsAny(req.body, "\r\n") {
		var compact bytes.Buffer
		if err := json.Compact(&compact, []byte(req.body)); err != nil {
			return req, "its body spans lines and is not JSON"
		}
		req.body = compact.String()
	}
	return req, ""
}

// shellWord is one argument of a command, quotes removed as sh removes them.
type shellWord struct {
	text    string
	expands bool // it holds a $ that sh would expand
}

// shellWords splits a command as sh would, for the forms the transcripts' curl commands take:
// bare words and 'single-quoted' text, continued by a backslash at the end of a line. A
// command that needs more of a shell (double quotes, escapes, pipes, substitutions) is
// refused, and its section runs over HTTP only.
func shellWords(s string) ([]shellWord, error) {
	var words []shellWord
	var w shellWord
	var text strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && strings.HasPrefix(s[i+1:], "\n"):
			i++ // a continued line: the same command goes on
			fallthrough
		case c == ' ' || c == '\t':
			if inWord {
				w.text = text.String()
				words = append(words, w)
			}
			w, inWord = shellWord{}, false
			text.Reset()
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("a single quote is not closed")
			}
			text.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case strings.IndexByte("\"\\`|&;<>()#\n", c) >= 0:
			return nil, fmt.Errorf("it needs a shell for %q", c)
		default:
			w.expands = w.expands || c == '$'
			text.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		w.text = text.String()
		words = append(words, w)
	}
	return words, nil
}

// StdioServer is a step's program serving one MCP session on its stdin and stdout.
type StdioServer struct {
	// Command starts the server by hand, with the environment it was given, for failure
	// messages.
	Command string

	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string   // stdout, a message a line; closed when stdout ends
	exited chan struct{} // closed once the process has exited
	exit   error         // how it exited, once exited is closed: nil for status 0
	logs   LogBuffer
	pings  int // private ping ids used so far
}

// StartStdio runs a step binary with -transport stdio and waits until it answers a ping.
// env is added to this process's environment (VAULT_PATH and the rest).
func StartStdio(bin string, env []string, args ...string) (*StdioServer, error) {
	args = append([]string{"-transport", "stdio"}, args...)
	words := append(append(slices.Clone(env), bin), args...)
	for i, w := range words {
		words[i] = shellQuote(w)
	}
	s := &StdioServer{
		Command: strings.Join(words, " "),
		cmd:     exec.Command(bin, args...),
		lines:   make(chan string),
		exited:  make(chan struct{}),
	}
	s.cmd.Env = append(os.Environ(), env...)
	s.cmd.Stderr = &s.logs
	stdin, err := s.cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	s.stdin = stdin
	go func() {
		// No line limit: a tools/list answer is one long line.
		r := bufio.NewReader(stdout)
		for {
			line, err := r.ReadString('\n')
			if line = strings.TrimRight(line, "\r\n"); line != "" {
				s.lines <- line
			}
			if err != nil {
				break
			}
		}
		close(s.lines)
		s.exit = s.cmd.Wait() // only once stdout is read to the end, as exec asks
		close(s.exited)
	}()
	// A step may build its index before it reads stdin: give it the time Start gives HTTP.
	if got, problem := s.ping(60 * time.Second); problem != "" {
		s.Stop()
		return nil, fmt.Errorf("%s did not answer a ping on stdin: %s %s\nits log:\n%s", filepath.Base(bin), problem, got, s.Logs())
	}
	return s, nil
}

// Logs returns what the server has written to stderr so far.
func (s *StdioServer) Logs() string { return s.logs.String() }

// Stop closes the server's stdin, which is how an MCP client ends a stdio session, and waits
// for it to exit. It returns an error when the server had to be interrupted instead.
func (s *StdioServer) Stop() error {
	s.stdin.Close()
	go func() {
		for range s.lines { // what nobody will read, so the reader reaches the end
		}
	}()
	select {
	case <-s.exited:
		return nil
	case <-time.After(10 * time.Second):
	}
	s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.exited:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-s.exited
	}
	return errors.New("the server did not exit within 10s of its stdin closing; a stdio client expects it to")
}

// next returns the next response the server writes, skipping its own notifications and
// requests (lines with a method), with the response's id as compact JSON.
func (s *StdioServer) next(timeout time.Duration) (line, id string, err error) {
	deadline := time.After(timeout)
	for {
		select {
		case line, open := <-s.lines:
			if !open {
				return "", "", errors.New("the server closed its stdout (did it exit? see its log)")
			}
			var msg map[string]json.RawMessage
			if json.Unmarshal([]byte(line), &msg) != nil {
				// stdout carries only messages: a stray print breaks every client.
				return line, "", errors.New("the server wrote a line to stdout that is not a JSON-RPC message (logs belong on stderr)")
			}
			if _, fromServer := msg["method"]; !fromServer {
				return line, compactID(msg["id"]), nil
			}
		case <-deadline:
			return "", "", fmt.Errorf("no response within %s", timeout)
		}
	}
}

// compactID is a message's id as compact JSON, "null" when it has none, so 7 and 7.0 agree.
func compactID(raw json.RawMessage) string {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return "null"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func (s *StdioServer) send(line string) error {
	_, err := io.WriteString(s.stdin, line+"\n")
	return err
}

// ping sends a ping with an id no transcript uses and waits for its answer. It returns the
// first response that came instead, if any.
func (s *StdioServer) ping(timeout time.Duration) (other, problem string) {
	s.pings++
	id := fmt.Sprintf(`"transcript-ping-%d"`, s.pings)
	if err := s.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`); err != nil {
		return "", err.Error()
	}
	for {
		line, got, err := s.next(timeout)
		if err != nil {
			return line, err.Error()
		}
		if got == id {
			return other, ""
		}
		if other == "" {
			other = line
		}
	}
}

// exchange sends one message and returns the server's answer and, when it is not what the
// transcript expects, where it differs.
func (s *StdioServer) exchange(m *StdioMessage) (got, problem string) {
	if err := s.send(m.Body); err != nil {
		return "", "cannot write to the server's stdin: " + err.Error()
	}
	if m.Expected == "" {
		// Silence cannot be waited for, but stdio answers in order enough: mcp-go handles a
		// notification before it reads the next line, so by the time a ping is answered any
		// answer to this message would have been written.
		other, problem := s.ping(CommandTimeout)
		if problem == "" && other != "" {
			problem = "expected no response (HTTP answers 202 Accepted), got one"
		}
		return other, problem
	}
	// A body that is not JSON, or has no id, can only be answered with id null (a parse or
	// invalid-request error).
	var msg map[string]json.RawMessage
	json.Unmarshal([]byte(m.Body), &msg)
	want := compactID(msg["id"])
	line, id, err := s.next(CommandTimeout)
	if err != nil {
		return line, err.Error()
	}
	if id != want {
		// One message at a time, so this is an answer too many: a second answer to one
		// request, or a late one to a message that was to get none.
		return line, fmt.Sprintf("expected the answer to id %s, got one to id %s (an extra answer to an earlier message?)", want, id)
	}
	return line, Match(m.Expected, line)
}

// StdioFailure is a section that did not get what the transcript expects over stdio.
type StdioFailure struct {
	Section  Section
	Command  Command
	Sent     string // the message, or "" for a shell command
	Expected string // what had to come back; "" for no response
	Problem  string
	Actual   string
	Server   string // StdioServer.Command
	Vault    string
}

// Error prints the failure with a command line that reproduces it.
func (f StdioFailure) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "section %q (line %d), over stdio: %s\nreproduce with:\n", f.Section.Title, f.Section.Line, f.Problem)
	if f.Sent != "" {
		fmt.Fprintf(&b, "  printf '%%s\\n' %s | %s\n", shellQuote(f.Sent), f.Server)
	} else {
		fmt.Fprintf(&b, "  export %s=%s\n", VaultVar, shellQuote(f.Vault))
		for _, line := range strings.Split(f.Command.Shell, "\n") {
			fmt.Fprintf(&b, "  %s\n", line)
		}
	}
	want := f.Expected
	if want == "" && f.Sent != "" {
		want = "(no response)"
	}
	fmt.Fprintf(&b, "expected:\n%s\ngot:\n%s", indent(want), indent(f.Actual))
	return b.String()
}

// RunStdio runs a section on the server's session. A section with any command that cannot
// run over stdio is not run at all: httpOnly says which and why.
func (s *StdioServer) RunStdio(ctx context.Context, sec Section, vault string) (httpOnly string, failure *StdioFailure) {
	msgs := make([]*StdioMessage, len(sec.Commands))
	for i, c := range sec.Commands {
		var why string
		if msgs[i], why = ToStdio(c); why != "" {
			return fmt.Sprintf("command %d: %s", i+1, why), nil
		}
	}
	for i, c := range sec.Commands {
		m := msgs[i]
		attempt := func() (got, problem string) {
			if m != nil {
				return s.exchange(m)
			}
			out, exit := execute(ctx, c.Shell, Env{Vault: vault})
			if problem = Match(c.Expected, out); problem != "" && exit != 0 {
				problem += fmt.Sprintf(" (the command exited with status %d)", exit)
			}
			return out, problem
		}
		got, problem := attempt()
		// Retries resend the same message, same id, as the HTTP run resends the same curl.
		for deadline := time.Now().Add(c.Retry); problem != "" && time.Now().Before(deadline); {
			time.Sleep(100 * time.Millisecond)
			got, problem = attempt()
		}
		if problem != "" {
			f := &StdioFailure{Section: sec, Command: c, Expected: c.Expected, Problem: problem, Actual: got, Server: s.Command, Vault: vault}
			if m != nil {
				f.Sent, f.Expected = m.Body, m.Expected
			}
			return "", f
		}
	}
	return "", nil
}

// shellQuote quotes a word for sh when it needs it.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !strings.ContainsRune("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,@%+", r)
	}) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
