package jsonrpc

import (
	"bytes"
	"encoding/json"
	"net/http"
)

// codeMethodNotFound is JSON-RPC's answer to a method the server does not have.
const codeMethodNotFound = -32601

// A refusal is the answer to a message that does not reach mcp-go: the JSON-RPC error, and the
// HTTP status that goes with it over HTTP.
type refusal struct {
	status  int
	id      json.RawMessage // nil when the message's id could not be read: "id": null
	code    int
	message string
	data    any
}

// inspect checks one message, as Strict reads it from a body and Lines from a line, and
// returns the refusal to answer it with, or nil to let it through, and what it measured of the
// message (nil when it is not JSON). era is the protocol version the transport says the
// message speaks: the MCP-Protocol-Version header over HTTP, and "" when it says none, as
// stdio never does.
//
// The checks go from the cheapest to the dearest, and none of them decodes more than it needs:
// the JSON is valid, its shape is within MaxDepth and MaxValues, its strings are within their
// bounds (one pass, which also finds the id, the method and the revision for the rest), its
// member names mean one message to every reader (ambiguousNames), the rules of check and
// unversioned, and last the server's own checks, c.
func inspect(body []byte, era string, c *checks) (*refusal, *measured) {
	if !json.Valid(body) {
		return &refusal{status: http.StatusBadRequest, code: codeParseError, message: "the body is not valid JSON"}, nil
	}
	if problem := tooLarge(body); problem != "" {
		return &refusal{status: http.StatusRequestEntityTooLarge, id: idOf(body), code: codeInvalidRequest, message: problem}, nil
	}
	m := measure(body)
	if era == "" {
		era = m.version()
	}
	if r := m.oversized(era); r != nil {
		return r, m
	}
	if problem, idKnown := ambiguousNames(body); problem != "" {
		r := &refusal{status: http.StatusBadRequest, code: codeInvalidRequest, message: problem}
		if idKnown {
			r.id = m.id()
		}
		return r, m
	}
	if status, id, code, problem := check(body, http.Header{"Mcp-Protocol-Version": {era}}); problem != "" {
		return &refusal{status: status, id: id, code: code, message: problem}, m
	}
	if r := m.unversioned(era); r != nil {
		return r, m
	}
	return c.resource(body, era, m), m
}

// refuse is inspect for a transport: a notification that cannot be accepted gets 400 over HTTP
// (and no answer at all over stdio), never the 200 of an answer to a request.
func refuse(body []byte, era string, c *checks) (*refusal, *measured) {
	r, m := inspect(body, era, c)
	if r != nil && r.status == http.StatusOK && !m.hasID() {
		r.status = http.StatusBadRequest
	}
	return r, m
}

// unversioned refuses a request that the transport says speaks 2026-07-28 or later, but whose
// params._meta does not name its version, as every request of that revision must. The Go SDK's
// ping does this (ping is gone from 2026-07-28). Over HTTP the header says the revision, and
// mcp-go would refuse it too; this answer is step 1's, in its words.
func (m *measured) unversioned(era string) *refusal {
	if era < firstModernVersion || m.Method.n == 0 || !m.hasID() || m.method() == "initialize" || m.version() != "" {
		// A notification, a response, a request that names its version, or initialize, which
		// names the version in its params and is gone from 2026-07-28, as mcp-go says.
		return nil
	}
	return &refusal{status: http.StatusBadRequest, id: m.id(), code: codeInvalidParams,
		message: `params._meta must name the revision of this request: {"io.modelcontextprotocol/protocolVersion": "` + firstModernVersion + `"}`}
}

// statusFor is the HTTP status of a JSON-RPC error that answers a request. The 2025 revisions
// answer every request with 200, as JSON-RPC over HTTP always did; 2026-07-28 makes the status
// repeat what the error says, so that a proxy can tell without reading the body.
func statusFor(era string, code int) int {
	switch {
	case code == codeParseError || code == codeInvalidRequest:
		return http.StatusBadRequest // not a request the server could read, in either revision
	case era < firstModernVersion:
		return http.StatusOK
	case code == codeMethodNotFound:
		return http.StatusNotFound
	}
	return http.StatusBadRequest
}

// encode writes the JSON-RPC error that answers a refused message, with "id": null when the
// message's id could not be read, as JSON-RPC 2.0 asks (section 5).
func (r *refusal) encode() []byte {
	type errorObject struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    any    `json:"data,omitempty"`
	}
	id := r.id
	if id == nil {
		id = json.RawMessage("null")
	}
	var buf bytes.Buffer
	json.NewEncoder(&buf).Encode(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   errorObject     `json:"error"`
	}{"2.0", id, errorObject{r.code, r.message, r.data}})
	return buf.Bytes()
}

// write answers over HTTP.
func (r *refusal) write(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(r.status)
	w.Write(r.encode())
}
