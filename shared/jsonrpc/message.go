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

// inspect checks one message, as Strict reads it from a body and Stdio from a line, and
// returns the refusal to answer it with, or nil to let it through. era is the protocol version
// the transport says the message speaks: the MCP-Protocol-Version header over HTTP, and over
// stdio the version the connection speaks (see Lines); "" when it says none.
//
// The checks go from the cheapest to the dearest, and none of them decodes more than it needs:
// the JSON is valid, its shape is within MaxDepth and MaxValues, its strings are within their
// bounds, the rules of check and unversioned, and last the server's own checks, c.
func inspect(body []byte, era string, c *checks) *refusal {
	if !json.Valid(body) {
		return &refusal{status: http.StatusBadRequest, code: codeParseError, message: "the body is not valid JSON"}
	}
	if problem := tooLarge(body); problem != "" {
		return &refusal{status: http.StatusRequestEntityTooLarge, id: idOf(body), code: codeInvalidRequest, message: problem}
	}
	if era == "" {
		era = metaVersion(body)
	}
	if r := oversized(body, era); r != nil {
		return r
	}
	if status, id, code, problem := check(body, http.Header{"Mcp-Protocol-Version": {era}}); problem != "" {
		return &refusal{status: status, id: id, code: code, message: problem}
	}
	if r := unversioned(body, era); r != nil {
		return r
	}
	return c.resource(body, era)
}

// refuse is inspect for a transport: a notification that cannot be accepted gets 400 over HTTP
// (and no answer at all over stdio), never the 200 of an answer to a request.
func refuse(body []byte, era string, c *checks) *refusal {
	r := inspect(body, era, c)
	if r != nil && r.status == http.StatusOK && !hasID(body) {
		r.status = http.StatusBadRequest
	}
	return r
}

// unversioned refuses a request that the transport says speaks 2026-07-28 or later, but whose
// params._meta does not name its version, as every request of that revision must. The Go SDK's
// ping does this (ping is gone from 2026-07-28). Over HTTP the header says the revision, and
// mcp-go would refuse it too, in its own words; over stdio only the connection can say it, and
// mcp-go would take the request for one of the 2025 handshake, so the answers would differ.
func unversioned(body []byte, era string) *refusal {
	if era < firstModernVersion {
		return nil
	}
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
	}
	json.Unmarshal(body, &msg)
	if msg.Method == nil || msg.ID == nil || *msg.Method == "initialize" || metaVersion(body) != "" {
		// A notification, a response, a request that names its version, or initialize, which
		// names the version in its params and is gone from 2026-07-28, as mcp-go says.
		return nil
	}
	return &refusal{status: http.StatusBadRequest, id: msg.ID, code: codeInvalidParams,
		message: `params._meta must name the revision of this request: {"io.modelcontextprotocol/protocolVersion": "` + firstModernVersion + `"}`}
}

// metaVersion returns the protocol version a message names in params._meta, or "".
func metaVersion(body []byte) string {
	var msg struct {
		Params struct {
			Meta struct {
				Version value `json:"io.modelcontextprotocol/protocolVersion"`
			} `json:"_meta"`
		} `json:"params"`
	}
	json.Unmarshal(body, &msg)
	var version string
	if v := msg.Params.Meta.Version; v.n <= MaxVersionLen {
		json.Unmarshal([]byte(v.head), &version) // left "" unless a whole string
	}
	return version
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
