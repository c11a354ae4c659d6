package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"
	"unicode"
)

// The error codes JSON-RPC 2.0 reserves for problems with the message itself.
const (
	codeParseError     = -32700 // the body is not JSON
	codeInvalidRequest = -32600 // JSON, but not a JSON-RPC request
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeInternalError  = -32603 // the server failed, not the request
)

// message is any JSON-RPC 2.0 message a client can send: a request, or a notification (no id).
// ID stays raw JSON so that a string id comes back as a string and a number as a number,
// exactly as the client wrote it.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"` // null when the request's id could not be read, as JSON-RPC 2.0 asks
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// rpcError is a protocol error: the request could not be carried out at all. A tool that runs
// and fails is different; it answers with a result whose isError is true (see tools.go).
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func invalidParams(format string, args ...any) *rpcError {
	return &rpcError{Code: codeInvalidParams, Message: fmt.Sprintf(format, args...)}
}

// readMessage reads one JSON-RPC message from a request body. On failure it returns the error
// to answer with, and the message as far as it could be read, for its id.
func readMessage(body []byte) (message, *rpcError) {
	var msg message
	switch {
	case !json.Valid(body):
		return msg, &rpcError{Code: codeParseError, Message: "the body is not valid JSON"}
	// JSON-RPC allows batches; MCP removed them in 2025-06-18, and its HTTP transport wants
	// one message per POST. An array is JSON, but not a message.
	case bytes.HasPrefix(bytes.TrimSpace(body), []byte("[")):
		return msg, &rpcError{Code: codeInvalidRequest, Message: "batches are not supported; send one JSON-RPC message per request"}
	}
	if problem, idKnown := ambiguousNames(body); problem != "" {
		if idKnown {
			var withID struct {
				ID json.RawMessage `json:"id"`
			}
			json.Unmarshal(body, &withID)
			if isStringOrInteger(withID.ID) {
				msg.ID = withID.ID
			}
		}
		return msg, &rpcError{Code: codeInvalidRequest, Message: problem}
	}
	if err := json.Unmarshal(body, &msg); err != nil {
		return message{}, &rpcError{Code: codeInvalidRequest, Message: `the body must be one JSON-RPC message: an object with "jsonrpc", "method" and, for a request, "id"`}
	}
	problem := ""
	switch {
	case msg.JSONRPC != "2.0":
		problem = `"jsonrpc" must be "2.0"`
	case msg.ID != nil && !isStringOrInteger(msg.ID):
		problem = `"id" must be a string or an integer` // MCP forbids null ids, which JSON-RPC allows
		msg.ID = nil                                    // never echo back an id we just called invalid
	case msg.Method == "":
		problem = `"method" is missing`
	}
	if problem != "" {
		return msg, &rpcError{Code: codeInvalidRequest, Message: problem}
	}
	return msg, nil
}

// envelope holds the member names of a JSON-RPC message, spelled as JSON-RPC spells them.
var envelope = []string{"jsonrpc", "id", "method", "params", "result", "error"}

// ambiguousNames looks for member names that two JSON readers could read as two different
// messages, and says what it found first, or returns "" when there is nothing. idKnown is
// false when the id itself is in doubt, and must not be echoed. body must be valid JSON.
//
// JSON leaves a name written twice in one object undefined, and readers differ: Go's
// encoding/json keeps the last value, and also matches a name to a struct field ignoring case.
// So {"method":"tools/list","Method":"tools/call"} would run tools/call here, while a gateway
// or a log that reads it strictly sees tools/list; {"Method":"tools/call"} is a tools/call to
// Go and a message without a method to everyone else. Two rules close that gap before anything
// decodes the message: no object, at any depth, holds two names that are equal ignoring case
// (a name written twice included); and the message's own members are spelled exactly.
func ambiguousNames(body []byte) (problem string, idKnown bool) {
	type object struct {
		names    map[string]string // name folded as strings.EqualFold folds it → name as written
		wantName bool              // the next token is a member's name
	}
	var open []*object // the objects and arrays around the next token, nil for an array
	innermost := func() *object {
		if len(open) == 0 {
			return nil
		}
		return open[len(open)-1]
	}
	ids, idExact := 0, true // the message's members that read as "id", and whether all are written so
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber() // so that a number too large for a float64 is still read as one
	for {
		token, err := dec.Token()
		if err != nil {
			return problem, ids <= 1 && idExact // the end of the body
		}
		if name, ok := token.(string); ok && innermost() != nil && innermost().wantName {
			in := innermost()
			in.wantName = false
			folded := foldName(name)
			if len(open) == 1 && folded == foldName("id") {
				ids, idExact = ids+1, idExact && name == "id"
			}
			var found string
			switch earlier, seen := in.names[folded]; {
			case seen && earlier == name:
				found = "the name " + quote(name) + " appears twice in one object; JSON readers disagree on which to take, so write each name once"
			case seen:
				found = "the names " + quote(earlier) + " and " + quote(name) + " differ only in case, and some JSON readers take them for one name; write each name once, in one spelling"
			}
			for _, member := range envelope {
				if len(open) == 1 && folded == foldName(member) && name != member && found == "" {
					found = "the member " + quote(name) + " must be written " + quote(member) + ": JSON-RPC names are case-sensitive"
				}
			}
			in.names[folded] = name
			if problem == "" {
				problem = found
			}
			continue
		}
		switch token {
		case json.Delim('{'):
			open = append(open, &object{names: map[string]string{}, wantName: true})
			continue
		case json.Delim('['):
			open = append(open, nil)
			continue
		case json.Delim('}'), json.Delim(']'):
			open = open[:len(open)-1]
		}
		if in := innermost(); in != nil {
			in.wantName = true // a value has ended, so a name or the object's end comes next
		}
	}
}

// foldName maps every name that strings.EqualFold takes for name to one string, as
// encoding/json does when it matches names to struct fields: each letter becomes the
// smallest of the letters Unicode folds together ('k', 'K' and the Kelvin sign all become 'K').
func foldName(name string) string {
	return strings.Map(func(r rune) rune {
		for {
			next := unicode.SimpleFold(r)
			if next <= r {
				return next
			}
			r = next
		}
	}, name)
}

// isStringOrInteger reports whether raw is an id MCP allows. 7.0 is the integer 7; 1.5 is not
// an integer.
func isStringOrInteger(raw json.RawMessage) bool {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return false
	}
	switch v := v.(type) {
	case string:
		return true
	case float64:
		return v == math.Trunc(v)
	}
	return false
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
