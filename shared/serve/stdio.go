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
)

// Stdio serves MCP on stdin and stdout with listen, a transport's own loop such as mcp-go's
// StdioServer.Listen, until stdin ends or ctx does. Either way it then stops as HTTP does: it
// takes no new message, and waits for every request it has read to be answered, for at most
// DrainTimeout, before it lets listen see the end of its input.
//
// A message is a line, and a line longer than maxLine bytes ends the input with an error: a
// transport reads a whole line before it parses it, and a line never ended would fill memory.
//
// Closing stdin is how a client ends a server it started, and it still wants the answers it
// asked for. mcp-go cancels every request under way as soon as its input ends or its context
// does, so listen gets neither at once: its context is never cancelled, and its input ends
// only once the answers are written. A subscriptions/listen request is not waited for: its
// answer comes when the stream ends, which is when listen cancels it.
func Stdio(ctx context.Context, listen func(context.Context, io.Reader, io.Writer) error, stdin io.Reader, stdout io.Writer, maxLine int, logger *slog.Logger) error {
	return serveStdio(ctx, listen, stdin, stdout, maxLine, logger, DrainTimeout)
}

func serveStdio(ctx context.Context, listen func(context.Context, io.Reader, io.Writer) error, stdin io.Reader, stdout io.Writer, maxLine int, logger *slog.Logger, limit time.Duration) error {
	waiting := &unanswered{ids: map[string]int{}}
	in := &drainingInput{stop: ctx.Done(), src: stdin, maxLine: maxLine, waiting: waiting, logger: logger, limit: limit}
	return listen(context.WithoutCancel(ctx), in, &answerWatcher{dst: stdout, waiting: waiting})
}

// drainingInput passes stdin through, noting each request it reads; at the end of stdin, or
// when stop closes, it waits for the requests to be answered before it ends.
type drainingInput struct {
	stop    <-chan struct{}
	src     io.Reader
	maxLine int
	waiting *unanswered
	logger  *slog.Logger
	limit   time.Duration

	start  sync.Once
	chunks chan chunk // from the goroutine that reads src
	rest   []byte     // of the last chunk, not yet read
	end    error      // once set, what every Read returns
	lines  lineBuffer
}

type chunk struct {
	data []byte
	err  error
}

func (in *drainingInput) Read(p []byte) (int, error) {
	if in.end != nil {
		return 0, in.end
	}
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
	for len(in.rest) == 0 {
		select {
		case c := <-in.chunks:
			in.rest = c.data
			if c.err != nil && len(c.data) == 0 {
				return 0, in.finish(c.err, "stopping: stdin closed")
			}
			if c.err != nil {
				// Pass the data on now, and the error on the next read.
				in.chunks = closedWith(c.err)
			}
		case <-in.stop:
			return 0, in.finish(io.EOF, "stopping")
		}
	}
	n := copy(p, in.rest)
	in.rest = in.rest[n:]
	longest := 0
	for _, line := range in.lines.add(p[:n]) {
		in.waiting.request(line)
		longest = max(longest, len(line))
	}
	if max(longest, len(in.lines.partial)) > in.maxLine {
		return n, in.finish(fmt.Errorf("a message on stdin is longer than %d bytes; messages end with a newline, and none is this long", in.maxLine), "")
	}
	return n, nil
}

// closedWith returns a channel that gives a chunk holding err, as the reading goroutine would.
func closedWith(err error) chan chunk {
	c := make(chan chunk, 1)
	c <- chunk{err: err}
	return c
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

// answerWatcher passes the server's messages through to stdout, noting each answer.
type answerWatcher struct {
	mu      sync.Mutex
	dst     io.Writer
	waiting *unanswered
	lines   lineBuffer
}

func (w *answerWatcher) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.dst.Write(p)
	for _, line := range w.lines.add(p[:n]) {
		w.waiting.answer(line)
	}
	return n, err
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

// unanswered counts the requests read and not yet answered, by id.
type unanswered struct {
	mu   sync.Mutex
	ids  map[string]int
	idle chan struct{} // closed when ids empties; nil while it is empty
}

// message is what tells a request from an answer: a request has a method and an id, an
// answer an id and no method, and a notification no id.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

func (u *unanswered) request(line []byte) {
	var m message
	if json.Unmarshal(line, &m) != nil || m.Method == "" || m.Method == listenMethod {
		return
	}
	key, ok := idKey(m.ID)
	if !ok {
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.ids) == 0 {
		u.idle = make(chan struct{})
	}
	u.ids[key]++
}

func (u *unanswered) answer(line []byte) {
	var m message
	if json.Unmarshal(line, &m) != nil || m.Method != "" {
		return
	}
	key, ok := idKey(m.ID)
	if !ok {
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.ids[key] == 0 {
		return // the answer to a listen stream, or to nothing this side counted
	}
	if u.ids[key]--; u.ids[key] == 0 {
		delete(u.ids, key)
	}
	if len(u.ids) == 0 {
		close(u.idle)
		u.idle = nil
	}
}

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
