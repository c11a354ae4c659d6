// Package jsonrpc holds an MCP endpoint to JSON-RPC 2.0 and the rules MCP adds to it: one
// message per request, never a batch, and ids that are strings or integers, never null.
//
// mcp-go v1.2.1 is lenient where MCP is strict. It reads a batch as a parse error, takes a
// request with a null id for a notification, answers an initialize without a protocol
// version as if it had asked for 2025-03-26, bounds no string it reads, and echoes an id or
// a method of any length. Like every program that decodes with Go's encoding/json, it also
// reads {"method":"tools/list","Method":"tools/call"} as a tools/call, where a stricter reader
// sees a tools/list. Strict reads each message before mcp-go does and answers those itself,
// the way the specification asks; what passes reaches mcp-go byte for byte. Lines does the
// same for stdio, a line at a time, so that a message gets the same answer over both.
package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
)

// The error codes Strict answers with, from JSON-RPC 2.0.
const (
	codeParseError     = -32700 // the body is not JSON
	codeInvalidRequest = -32600 // JSON, but not a message MCP allows
	codeInvalidParams  = -32602
)

// firstModernVersion is the first MCP revision without initialize. Versions are dates, so
// they compare as strings.
const firstModernVersion = "2026-07-28"

// Strict returns a handler that checks every POST body before next reads it, and answers
// itself a body that is not one JSON-RPC message MCP allows, or that JSON readers could
// disagree on (see ambiguousNames). A POST that is not application/json is refused with 415
// before its body is read: a web page can send any other body to another site without asking
// first (see notJSON). Strict reads at most maxBody bytes, and answers a longer body with 413,
// as it does a message that nests deeper than MaxDepth or holds more than MaxValues values. A
// string longer than its bound (MaxIDLen, MaxURILen and the rest) is refused without being
// echoed, and opts add the server's own checks. Everything else reaches next unchanged, with
// the same body; the answer to a subscriptions/listen opens with its acknowledgement (see
// ackFirst).
func Strict(next http.Handler, maxBody int64, opts ...Option) http.Handler {
	c := newChecks(opts)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		if problem := notJSON(r); problem != "" {
			http.Error(w, problem, http.StatusUnsupportedMediaType)
			return
		}
		body, err := readBody(w, r, maxBody)
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			writeError(w, http.StatusRequestEntityTooLarge, nil, codeInvalidRequest, fmt.Sprintf(
				"the body is larger than %d bytes; an MCP message is far smaller", maxBody))
			return
		}
		if err != nil {
			writeError(w, http.StatusBadRequest, nil, codeInvalidRequest, "cannot read the body: "+err.Error())
			return
		}
		// The shape is checked before anything decodes the body: see MaxValues.
		refused, m := refuse(body, r.Header.Get("MCP-Protocol-Version"), c)
		if refused != nil {
			refused.write(w)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		if id := m.id(); id != nil && m.method() == ListenMethod {
			// A listen stream opens with its acknowledgement; see ackFirst.
			stream := newAckFirst(w, id)
			next.ServeHTTP(stream, r)
			stream.finish()
			return
		}
		next.ServeHTTP(w, r)
	})
}

// readBody reads at most maxBody bytes of a request's body. A body the wall in front has
// read already (guard.Hostile) is taken as it is, not copied: sixteen bodies of 4 MiB are
// 64 MiB once, and would be 128 MiB read twice.
func readBody(w http.ResponseWriter, r *http.Request, maxBody int64) ([]byte, error) {
	if whole, ok := r.Body.(interface{ Bytes() []byte }); ok && int64(len(whole.Bytes())) <= maxBody {
		return whole.Bytes(), nil
	}
	// A body that says its length is read into a buffer of that size, not one that grows by
	// doubling and leaves its smaller copies behind.
	var buf bytes.Buffer
	if r.ContentLength > 0 && r.ContentLength <= maxBody {
		buf.Grow(int(r.ContentLength) + bytes.MinRead)
	}
	_, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, maxBody))
	return buf.Bytes(), err
}

// message is any JSON-RPC message, each member kept as the client wrote it; a member that
// is absent stays nil, and one that is null holds "null".
type message struct {
	JSONRPC json.RawMessage `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  json.RawMessage `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// check looks at a body that is valid JSON, and returns what to answer when MCP forbids it:
// the HTTP status, the id to answer with (nil for none), the error code and the problem.
// problem is "" when the message may pass.
func check(body []byte, header http.Header) (status int, id json.RawMessage, code int, problem string) {
	switch bytes.TrimSpace(body)[0] {
	case '[':
		// JSON-RPC allows batches, but MCP removed them in 2025-06-18.
		return http.StatusBadRequest, nil, codeInvalidRequest, "batches are not supported; send one JSON-RPC message per request"
	case '{':
	default:
		return http.StatusBadRequest, nil, codeInvalidRequest, `the body must be one JSON-RPC message: an object with "jsonrpc", "method" and, for a request, "id"`
	}
	var msg message
	json.Unmarshal(body, &msg) // cannot fail: a JSON object, and every member kept raw

	// A request with an id we cannot echo is answered without one.
	if isStringOrInteger(msg.ID) {
		id = msg.ID
	}
	var version, method string
	json.Unmarshal(msg.JSONRPC, &version) // left "" unless a string
	json.Unmarshal(msg.Method, &method)
	switch {
	case version != "2.0":
		return http.StatusBadRequest, id, codeInvalidRequest, `"jsonrpc" must be "2.0"`
	case msg.ID != nil && id == nil:
		// JSON-RPC allows null; MCP does not, because a null id cannot tell two requests
		// apart. mcp-go would take this request for a notification and never answer it.
		return http.StatusBadRequest, nil, codeInvalidRequest, `"id" must be a string or an integer`
	case msg.Method == nil && (msg.ID == nil || (msg.Result == nil && msg.Error == nil)):
		// Without a method it can only be a response, which has an id and a result or an
		// error. mcp-go would accept this one with 202 and drop it.
		return http.StatusBadRequest, id, codeInvalidRequest, `"method" is missing`
	case msg.Method != nil && !isString(msg.Method):
		return http.StatusBadRequest, id, codeInvalidRequest, `"method" must be a string`
	case method == "initialize" && id != nil && !hasProtocolVersion(msg.Params) &&
		header.Get("MCP-Protocol-Version") < firstModernVersion:
		// mcp-go would pick 2025-03-26 for the client. An error is an ordinary answer to a
		// request, so it comes with 200, as mcp-go's own do. (From 2026-07-28 on there is
		// no initialize, and mcp-go says so.)
		return http.StatusOK, id, codeInvalidParams, `initialize needs params.protocolVersion, for example "2025-11-25"`
	}
	return 0, nil, 0, ""
}

// MaxDepth and MaxValues bound the JSON of one message, beyond the bytes the body may take.
// mcp-go decodes a message into Go maps and slices, where a small value costs far more than
// its text: "1," is two bytes of JSON and 24 bytes in a []any. So 4 MiB of them would cost
// mcp-go some 100 MB to decode, and every check after it as much again. A message of this
// server's tools holds a few dozen values.
const (
	MaxDepth  = 64
	MaxValues = 10_000
)

// tooLarge says what is too large about a valid JSON body, or returns "" when nothing is.
func tooLarge(body []byte) string {
	switch depth, values := shape(body); {
	case depth > MaxDepth:
		return fmt.Sprintf("the message nests deeper than %d levels; an MCP message needs a few", MaxDepth)
	case values > MaxValues:
		return fmt.Sprintf("the message holds more than %d values (every string, number and item of a list counts); an MCP message holds a few dozen", MaxValues)
	}
	return ""
}

// idOf returns the id of a message to answer with, or nil when it has none MCP allows or one
// too long to echo (MaxIDLen). It decodes nothing else, and copies no more of a long id.
func idOf(body []byte) json.RawMessage {
	var msg struct {
		ID *value `json:"id"`
	}
	if json.Unmarshal(body, &msg) != nil || msg.ID == nil || msg.ID.n > MaxIDLen || !isStringOrInteger(json.RawMessage(msg.ID.head)) {
		return nil
	}
	return json.RawMessage(msg.ID.head)
}

// shape returns how deeply valid JSON nests and how many values it holds: every object,
// array, string (keys too), number, true, false and null. It stops counting once either
// passes its bound, and allocates nothing.
func shape(data []byte) (depth, values int) {
	level := 0
	for i := 0; i < len(data) && depth <= MaxDepth && values <= MaxValues; i++ {
		switch c := data[i]; {
		case c == '{' || c == '[':
			level++
			depth = max(depth, level)
			values++
		case c == '}' || c == ']':
			level--
		case c == '"':
			// Skip to the closing quote; a backslash escapes the byte after it.
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
			values++
		case c == '-' || ('0' <= c && c <= '9') || ('a' <= c && c <= 'z'):
			// A number, or true, false or null: skip the rest of it.
			for i+1 < len(data) && strings.IndexByte("0123456789+-.eEtrufalsn", data[i+1]) >= 0 {
				i++
			}
			values++
		}
	}
	return depth, values
}

// isStringOrInteger reports whether raw is an id MCP allows. A number with a fraction is
// refused; 7.0 is the integer 7.
func isStringOrInteger(raw json.RawMessage) bool {
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return false
	}
	switch v := v.(type) {
	case string:
		return true
	case json.Number:
		f, err := strconv.ParseFloat(string(v), 64)
		return err == nil && f == math.Trunc(f)
	}
	return false
}

// isString reports whether raw is a JSON string; null is not one.
func isString(raw json.RawMessage) bool {
	return len(raw) > 0 && raw[0] == '"'
}

// hasProtocolVersion reports whether params holds a protocolVersion that is a string.
func hasProtocolVersion(params json.RawMessage) bool {
	var p struct {
		ProtocolVersion *string `json:"protocolVersion"`
	}
	return json.Unmarshal(params, &p) == nil && p.ProtocolVersion != nil && *p.ProtocolVersion != ""
}

// writeError answers with a JSON-RPC error; a nil id is written as null, as JSON-RPC 2.0 asks
// of an answer whose request's id could not be read.
func writeError(w http.ResponseWriter, status int, id json.RawMessage, code int, message string) {
	(&refusal{status: status, id: id, code: code, message: message}).write(w)
}
