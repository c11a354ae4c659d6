package jsonrpc

import "fmt"

// Lines checks the messages of one stdio connection, a line each, as Strict checks the bodies
// of HTTP requests, so that a message gets the same answer on either transport. Check a line
// with Check.
//
// Each line is judged alone, as 2026-07-28 asks: a server must not take a request's revision,
// or anything else, from the requests before it on the same connection. So a request names its
// revision in its own _meta, or it is one of the 2025 handshake. Over HTTP the
// MCP-Protocol-Version header names a revision too; stdio has no headers. That is why the Go
// SDK's ping, which carries no _meta, gets 400 over HTTP, whose header says 2026-07-28 (a
// revision without ping, whose every request names itself in _meta), and {} over stdio, where
// it is a ping of the 2025 revisions, which a client may send at any time.
type Lines struct {
	maxLine int
	checks  *checks
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
	r, m := refuse(line, "", l.checks)
	switch {
	case r == nil:
		return nil, true
	case r.id == nil && r.code != codeParseError && r.code != codeInvalidRequest && !m.hasID():
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
