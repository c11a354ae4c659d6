package jsonrpc

import (
	"encoding/json"
	"fmt"
)

// Lines checks the messages of one stdio connection, a line each, as Strict checks the bodies
// of HTTP requests, so that a message gets the same answer on either transport. Check a line
// with Check; a Lines belongs to one connection, and is not safe for concurrent use.
//
// Over HTTP a request's header names the revision it speaks. stdio has no headers, so Lines
// takes the revision from the connection: once a request has named 2026-07-28 (or later) in
// its _meta, a later request that names none is held to that revision, and refused as HTTP
// refuses it, rather than read as a request of the 2025 handshake. An initialize goes back to
// the handshake. This is what the official TypeScript SDK does too: a connection's era is set
// by what it opens with.
type Lines struct {
	maxLine int
	checks  *checks
	era     string // the revision the connection speaks, "" for the 2025 handshake
}

// NewLines returns the checker of one connection, whose lines are at most maxLine bytes, with
// the same options as Strict.
func NewLines(maxLine int, opts ...Option) *Lines {
	return &Lines{maxLine: maxLine, checks: newChecks(opts)}
}

// Check looks at one line, without its newline. It returns pass, when the line is a message
// to hand on, and otherwise the line to answer with, if any: JSON-RPC answers no notification,
// even a refused one, but a message whose id could not be read gets an answer with "id": null.
func (l *Lines) Check(line []byte) (answer []byte, pass bool) {
	switch method := methodOf(line); {
	case method == "initialize":
		l.era = ""
	default:
		if v := metaVersion(line); v >= firstModernVersion {
			l.era = v
		}
	}
	r := refuse(line, l.era, l.checks)
	switch {
	case r == nil:
		return nil, true
	case r.id == nil && r.code != codeParseError && r.code != codeInvalidRequest && !hasID(line):
		return nil, false // a notification, refused in silence
	}
	return r.encode(), false
}

// TooLong is the answer to a line longer than the connection takes, which is read no further.
func (l *Lines) TooLong() []byte {
	return (&refusal{code: codeInvalidRequest, message: fmt.Sprintf(
		"a message on stdin is longer than %d bytes, the most this server reads; it was skipped, and the server reads on from the next line",
		l.maxLine)}).encode()
}

// methodOf returns a message's method when it is a string of a sensible length, else "".
func methodOf(line []byte) string {
	var msg struct {
		Method value `json:"method"`
	}
	var method string
	if json.Unmarshal(line, &msg) == nil && msg.Method.n <= MaxMethodLen {
		json.Unmarshal([]byte(msg.Method.head), &method)
	}
	return method
}

// hasID reports whether a message has an id other than null.
func hasID(line []byte) bool {
	var msg struct {
		ID *value `json:"id"`
	}
	return json.Unmarshal(line, &msg) == nil && msg.ID != nil
}
