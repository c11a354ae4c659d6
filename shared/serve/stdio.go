package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"vaultmcp/shared/jsonrpc"
)

// Stdio serves MCP on stdin and stdout with listen, a transport's own loop such as mcp-go's
// StdioServer.Listen, until stdin ends or ctx does. Either way it then stops as HTTP does: it
// takes no new message, and waits for every request it has read to be answered, for at most
// DrainTimeout, before it lets listen see the end of its input.
//
// A message is a line, and each line is checked as jsonrpc.Strict checks an HTTP body (see
// jsonrpc.Lines, which takes the same options as Strict) before listen reads it, so that a
// message gets the same answer over either transport. A line refused is answered here, and listen never sees it. A line longer than
// maxLine bytes is not even kept: its bytes are dropped as they arrive, and once its newline
// comes it is answered with an error, and the server reads on from the next line.
//
// Closing stdin is how a client ends a server it started, and it still wants the answers it
// asked for. mcp-go cancels every request under way as soon as its input ends or its context
// does, so listen gets neither at once: its context is never cancelled, and its input ends
// only once the answers are written. A subscriptions/listen request is not waited for: its
// answer comes when the stream ends, which is when listen cancels it. Until then its
// acknowledgement comes first, as SEP-2575 asks, which mcp-go does not ensure on its own.
func Stdio(ctx context.Context, listen func(context.Context, io.Reader, io.Writer) error, stdin io.Reader, stdout io.Writer, maxLine int, logger *slog.Logger, checks ...jsonrpc.Option) error {
	return serveStdio(ctx, listen, stdin, stdout, maxLine, logger, DrainTimeout, checks...)
}

func serveStdio(ctx context.Context, listen func(context.Context, io.Reader, io.Writer) error, stdin io.Reader, stdout io.Writer, maxLine int, logger *slog.Logger, limit time.Duration, checks ...jsonrpc.Option) error {
	waiting := &unanswered{ids: map[string]int{}, listens: map[string]bool{}, held: map[string][]byte{}}
	out := &answerWatcher{dst: stdout, waiting: waiting}
	in := &drainingInput{stop: ctx.Done(), src: stdin, check: jsonrpc.NewLines(maxLine, checks...), maxLine: maxLine,
		waiting: waiting, answer: out.answer, logger: logger, limit: limit}
	return listen(context.WithoutCancel(ctx), in, out)
}

// drainingInput passes stdin through, line by line, noting each request it passes and
// answering the lines it refuses; at the end of stdin, or when stop closes, it waits for the
// requests to be answered before it ends.
type drainingInput struct {
	stop    <-chan struct{}
	src     io.Reader
	check   *jsonrpc.Lines
	maxLine int
	waiting *unanswered
	answer  func(line []byte) // writes a line to stdout, between the server's own
	logger  *slog.Logger
	limit   time.Duration

	start    sync.Once
	chunks   chan chunk // from the goroutine that reads src
	ready    []byte     // lines passed, not yet read
	line     []byte     // the line arriving, until its newline
	dropping bool       // the line arriving is too long, and is being dropped
	eof      error      // how stdin ended, once it has
	end      error      // once set, what every Read returns
}

type chunk struct {
	data []byte
	err  error
}

func (in *drainingInput) Read(p []byte) (int, error) {
	// src is read on a goroutine of its own, so that a signal can end the input while a read
	// of stdin is blocked; that read is abandoned, and the process exits without it.
	in.start.Do(func() {
		in.chunks = make(chan chunk)
		go func() {
			for {
				buf := make([]byte, 32<<10)
				n, err := in.src.Read(buf)
				in.chunks <- chunk{buf[:n], err}
				if err != nil {
					return
				}
			}
		}()
	})
	for len(in.ready) == 0 {
		switch {
		case in.end != nil:
			return 0, in.end
		case in.eof != nil:
			return 0, in.finish(in.eof, "stopping: stdin closed")
		}
		select {
		case c := <-in.chunks:
			in.take(c.data)
			if c.err != nil {
				// The last line may lack its newline; it is a line all the same.
				if len(in.line) > 0 || in.dropping {
					in.take([]byte("\n"))
				}
				in.eof = c.err
			}
		case <-in.stop:
			return 0, in.finish(io.EOF, "stopping")
		}
	}
	n := copy(p, in.ready)
	in.ready = in.ready[n:]
	return n, nil
}

// take cuts data into lines, and passes on, answers or drops each whole line.
func (in *drainingInput) take(data []byte) {
	for len(data) > 0 {
		end := bytes.IndexByte(data, '\n')
		part := data
		if end >= 0 {
			part = data[:end]
		}
		if !in.dropping {
			in.line = append(in.line, part...)
			if len(in.line) > in.maxLine {
				in.dropping, in.line = true, nil
			}
		}
		if end < 0 {
			return
		}
		data = data[end+1:]
		switch {
		case in.dropping:
			in.logger.Warn("a message on stdin is too long; skipped it", "limit", in.maxLine)
			in.answer(in.check.TooLong())
			in.dropping = false
		default:
			in.pass(in.line)
		}
		in.line = in.line[:0]
	}
}

// pass hands a line on to the server, unless the checks refuse it.
func (in *drainingInput) pass(line []byte) {
	answer, ok := in.check.Check(line)
	if !ok {
		if answer != nil {
			in.answer(answer)
		}
		return
	}
	in.waiting.request(line)
	in.ready = append(in.ready, line...)
	in.ready = append(in.ready, '\n')
}

// finish waits until every request read has been answered, or the limit has passed, and
// makes err what every later Read returns.
func (in *drainingInput) finish(err error, why string) error {
	if err != io.EOF {
		why = fmt.Sprintf("stopping: %v", err)
	}
	in.end = err
	n := in.waiting.count()
	if n == 0 {
		in.logger.Info(why + ": no request under way")
		return err
	}
	in.logger.Info(why+": finishing the requests under way", "requests", n, "limit", in.limit)
	select {
	case <-in.waiting.done():
	case <-time.After(in.limit):
		in.logger.Warn("requests were still running when the limit passed; cancelling them", "requests", in.waiting.count(), "limit", in.limit)
	}
	return err
}

// answerWatcher passes the server's messages through to stdout, a whole line at a time,
// noting each answer. It writes the lines drainingInput answers too, between the server's.
type answerWatcher struct {
	mu      sync.Mutex
	dst     io.Writer
	waiting *unanswered
	lines   lineBuffer
}

func (w *answerWatcher) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, line := range w.lines.add(p) {
		for _, out := range w.waiting.answer(line) {
			if _, err := w.dst.Write(append(out, '\n')); err != nil {
				return 0, err
			}
		}
	}
	return len(p), nil
}

// answer writes one line that ends with its newline.
func (w *answerWatcher) answer(line []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.dst.Write(line)
}

// lineBuffer cuts a stream into lines, keeping the start of a line until its end arrives.
type lineBuffer struct{ partial []byte }

func (b *lineBuffer) add(p []byte) [][]byte {
	var lines [][]byte
	for {
		end := bytes.IndexByte(p, '\n')
		if end < 0 {
			b.partial = append(b.partial, p...)
			return lines
		}
		line := p[:end]
		if len(b.partial) > 0 {
			line = append(b.partial, line...)
			b.partial = nil
		}
		lines = append(lines, line)
		p = p[end+1:]
	}
}

// unanswered counts the requests read and not yet answered, by id. It also keeps each open
// listen stream's acknowledgement first: mcp-go writes the acknowledgement from one goroutine
// and the answer from another, so the answer of a listen that grants nothing, which comes at
// once, can come first. Such an answer waits in held until its acknowledgement has gone.
type unanswered struct {
	mu      sync.Mutex
	ids     map[string]int
	idle    chan struct{}     // closed when ids empties; nil while it is empty
	listens map[string]bool   // listen requests by id, true once acknowledged
	held    map[string][]byte // the answers of listen requests not yet acknowledged
}

// message is what tells a request from an answer: a request has a method and an id, an
// answer an id and no method, and a notification no id.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Meta struct {
			SubscriptionID json.RawMessage `json:"io.modelcontextprotocol/subscriptionId"`
		} `json:"_meta"`
	} `json:"params"`
}

func (u *unanswered) request(line []byte) {
	var m message
	if json.Unmarshal(line, &m) != nil || m.Method == "" {
		return
	}
	key, ok := idKey(m.ID)
	if !ok {
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if m.Method == jsonrpc.ListenMethod {
		u.listens[key] = false
		return
	}
	if len(u.ids) == 0 {
		u.idle = make(chan struct{})
	}
	u.ids[key]++
}

// answer notes a line the server writes, and returns the lines to write in its place: itself,
// nothing while it waits for an acknowledgement, or an acknowledgement and the answer that
// waited for it.
func (u *unanswered) answer(line []byte) [][]byte {
	line = bytes.Clone(line)
	var m message
	if json.Unmarshal(line, &m) != nil {
		return [][]byte{line}
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if m.Method == ackMethod {
		key, ok := idKey(m.Params.Meta.SubscriptionID)
		if acked, listening := u.listens[key]; ok && listening && !acked {
			u.listens[key] = true
			if held, ok := u.held[key]; ok {
				delete(u.held, key)
				delete(u.listens, key)
				return [][]byte{line, held}
			}
		}
		return [][]byte{line}
	}
	key, ok := idKey(m.ID)
	if m.Method != "" || !ok {
		return [][]byte{line} // a notification
	}
	if acked, listening := u.listens[key]; listening {
		var failed struct{ Error json.RawMessage }
		if json.Unmarshal(line, &failed); !acked && failed.Error == nil {
			u.held[key] = line
			return nil
		}
		delete(u.listens, key)
		return [][]byte{line}
	}
	if u.ids[key] == 0 {
		return [][]byte{line} // the answer to nothing this side counted
	}
	if u.ids[key]--; u.ids[key] == 0 {
		delete(u.ids, key)
	}
	if len(u.ids) == 0 {
		close(u.idle)
		u.idle = nil
	}
	return [][]byte{line}
}

// ackMethod is the notification every listen stream opens with.
const ackMethod = "notifications/subscriptions/acknowledged"

func (u *unanswered) count() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	n := 0
	for _, c := range u.ids {
		n += c
	}
	return n
}

// done returns a channel closed once every request counted so far has been answered.
func (u *unanswered) done() <-chan struct{} {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.idle == nil {
		c := make(chan struct{})
		close(c)
		return c
	}
	return u.idle
}

// idKey turns an id into a key that a request and its answer share, although the server may
// write the id differently: mcp-go reads a number as a float64 and writes it back from that.
func idKey(raw json.RawMessage) (string, bool) {
	var id any
	if json.Unmarshal(raw, &id) != nil {
		return "", false
	}
	switch id := id.(type) {
	case string:
		return "s" + id, true
	case float64:
		return fmt.Sprintf("n%v", id), true
	}
	return "", false // null, or an id no server can answer
}
