package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
)

// The error codes JSON-RPC 2.0 reserves for problems with the message itself.
const (
	codeParseError     = -32700 // the body is not JSON
	codeInvalidRequest = -32600 // JSON, but not a JSON-RPC request
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
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
	// MCP removed JSON-RPC batches in 2025-06-18: an array is JSON, but not a message.
	case bytes.HasPrefix(bytes.TrimSpace(body), []byte("[")):
		return msg, &rpcError{Code: codeInvalidRequest, Message: "batches are not supported; send one JSON-RPC message per request"}
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
