package jsonrpc

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
)

// ListenMethod opens a stream of notifications, from 2026-07-28 on (SEP-2575).
const ListenMethod = "subscriptions/listen"

// OpensStream reports whether body is a subscriptions/listen request, whose answer is a
// stream that stays open for as long as its client listens.
func OpensStream(body []byte) bool {
	m := measure(body)
	return m.method() == ListenMethod && m.id() != nil
}

// ackMethod is the first message on every listen stream: which of the notifications the client
// asked for the server will send.
const ackMethod = "notifications/subscriptions/acknowledged"

// ackFor is the acknowledgement of the listen request id that grants none of the
// notifications asked for, as mcp-go writes it.
func ackFor(id json.RawMessage) []byte {
	return []byte(`{"jsonrpc":"2.0","method":"` + ackMethod + `","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":` +
		string(id) + `},"notifications":{}}}`)
}

// kind tells the messages on a listen stream apart: its acknowledgement, the final answer
// (a result, or an error), or a notification in between.
func kind(message []byte) (ack, final, failed bool) {
	var m struct {
		Method string          `json:"method"`
		Error  json.RawMessage `json:"error"`
	}
	json.Unmarshal(message, &m)
	return m.Method == ackMethod, m.Method == "", m.Error != nil
}

// ackFirst is the ResponseWriter mcp-go writes a listen stream to. It makes the
// acknowledgement the stream's first message, as SEP-2575 asks. mcp-go v1.2.1 does not always:
// when nothing the client asked for can be sent, the request returns at once, and the
// goroutine that forwards notifications may take the queued acknowledgement off its channel,
// find the request finished, and drop it (server/streamable_http.go, handlePost). The stream
// then holds the final result alone, or, when the result is written as plain JSON, is no stream.
//
// So ackFirst holds back whatever comes before the acknowledgement. When the result comes
// first, the acknowledgement was dropped, and since mcp-go ends a listen request at once only
// when it grants nothing, it is the acknowledgement of nothing, which ackFirst writes itself.
// An error needs no acknowledgement: the stream never opened.
type ackFirst struct {
	w     http.ResponseWriter
	id    json.RawMessage
	acked bool

	status  int          // what WriteHeader was given, until it is sent
	sent    bool         // the status has been sent
	stream  bool         // mcp-go answers with an event stream
	partial []byte       // of an event not yet complete
	held    [][]byte     // events written before the acknowledgement
	body    bytes.Buffer // an answer in plain JSON, until finish
}

func newAckFirst(w http.ResponseWriter, id json.RawMessage) *ackFirst {
	return &ackFirst{w: w, id: id}
}

func (a *ackFirst) Header() http.Header { return a.w.Header() }

// Unwrap lets http.ResponseController reach the connection, to set its deadlines.
func (a *ackFirst) Unwrap() http.ResponseWriter { return a.w }

func (a *ackFirst) WriteHeader(status int) {
	if a.status != 0 {
		return
	}
	a.status = status
	a.stream = strings.HasPrefix(a.w.Header().Get("Content-Type"), "text/event-stream")
	if a.stream {
		a.send()
	}
}

func (a *ackFirst) send() {
	if !a.sent {
		a.sent = true
		a.w.WriteHeader(a.status)
	}
}

func (a *ackFirst) Write(p []byte) (int, error) {
	if a.status == 0 {
		a.WriteHeader(http.StatusOK)
	}
	if !a.stream {
		return a.body.Write(p)
	}
	a.partial = append(a.partial, p...)
	for {
		end := bytes.Index(a.partial, []byte("\n\n"))
		if end < 0 {
			return len(p), nil
		}
		event := a.partial[:end+2]
		a.partial = a.partial[end+2:]
		if err := a.event(bytes.Clone(event)); err != nil {
			return len(p), err
		}
	}
}

// event passes on one event of the stream, in its place.
func (a *ackFirst) event(event []byte) error {
	if a.acked {
		_, err := a.w.Write(event)
		return err
	}
	ack, final, failed := kind(eventData(event))
	switch {
	case ack:
		a.acked = true
		if _, err := a.w.Write(event); err != nil {
			return err
		}
		return a.release()
	case final && !failed:
		a.acked = true
		if err := a.writeEvent(ackFor(a.id)); err != nil {
			return err
		}
	case !final:
		a.held = append(a.held, event)
		return nil
	}
	if err := a.release(); err != nil {
		return err
	}
	_, err := a.w.Write(event)
	return err
}

// release writes the events held back.
func (a *ackFirst) release() error {
	held := a.held
	a.held = nil
	for _, e := range held {
		if _, err := a.w.Write(e); err != nil {
			return err
		}
	}
	return nil
}

// eventData returns the data of one server-sent event, as mcp-go writes them.
func eventData(event []byte) []byte {
	var data []byte
	for line := range bytes.Lines(event) {
		if d, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			data = append(data, bytes.TrimSpace(d)...)
		}
	}
	return data
}

func (a *ackFirst) writeEvent(message []byte) error {
	_, err := a.w.Write(append(append([]byte("event: message\ndata: "), message...), "\n\n"...))
	return err
}

func (a *ackFirst) Flush() {
	if a.stream && a.sent {
		if f, ok := a.w.(http.Flusher); ok {
			f.Flush()
		}
	}
}

// finish writes what is still held once mcp-go has returned. A result in plain JSON becomes
// the stream it should have been: the acknowledgement, then the result.
func (a *ackFirst) finish() {
	switch {
	case a.status == 0:
		return // nothing was written
	case a.stream:
		a.release()
		return
	}
	answer := bytes.TrimSpace(a.body.Bytes())
	if _, final, failed := kind(answer); a.status != http.StatusOK || !final || failed || len(answer) == 0 {
		a.send()
		a.w.Write(a.body.Bytes())
		return
	}
	h := a.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Del("Content-Length")
	a.send()
	a.writeEvent(ackFor(a.id))
	a.writeEvent(answer)
}
