package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
)

// The error codes JSON-RPC 2.0 reserves for problems with the message itself.
const (
	codeParseError     = -32700 // the body is not JSON
	codeInvalidRequest = -32600 // JSON, but not a JSON-RPC request
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
)

// message is any JSON-RPC 2.0 message a client can send. ID stays raw JSON so that a string id
// comes back as a string and a number as a number, exactly as the client wrote it.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
	// A client answering a request of ours sends result or error instead of method.
	Result json.RawMessage `json:"result,omitempty"`
	Error  json.RawMessage `json:"error,omitempty"`
}

type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"` // null when the request's id could not be read
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// rpcError is a protocol error: the request could not be carried out at all. A tool that runs
// and fails is different; it answers with a result whose isError is true (see tools.go).
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return e.Message }

func invalidParams(format string, args ...any) *rpcError {
	return &rpcError{Code: codeInvalidParams, Message: fmt.Sprintf(format, args...)}
}

// handleMCP is the Streamable HTTP transport reduced to what a tools-only server needs: the
// client POSTs one JSON-RPC message and reads the answer from the response body.
func handleMCP(logger *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// GET would open a stream for server-initiated messages; this server sends none.
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "this MCP endpoint accepts only POST", http.StatusMethodNotAllowed)
			return
		}
		// After initialize, clients repeat the negotiated version in this header (since
		// 2025-06-18); the specification asks for 400 when it names a version we do not speak.
		if v := r.Header.Get("MCP-Protocol-Version"); v != "" && !slices.Contains(supportedVersions, v) {
			writeJSON(w, http.StatusBadRequest, errorResponse(nil, codeInvalidRequest, "unsupported MCP-Protocol-Version "+quote(v)+"; this server speaks "+strings.Join(supportedVersions, ", ")))
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, "cannot read request body", http.StatusBadRequest)
			return
		}

		if !json.Valid(body) {
			writeJSON(w, http.StatusBadRequest, errorResponse(nil, codeParseError, "the body is not valid JSON"))
			return
		}
		// MCP removed JSON-RPC batches in 2025-06-18: an array is JSON, but not a message.
		if bytes.HasPrefix(bytes.TrimSpace(body), []byte("[")) {
			writeJSON(w, http.StatusBadRequest, errorResponse(nil, codeInvalidRequest, "batches are not supported; send one JSON-RPC message per request"))
			return
		}
		var msg message
		if err := json.Unmarshal(body, &msg); err != nil {
			writeJSON(w, http.StatusBadRequest, errorResponse(nil, codeInvalidRequest, `the body must be one JSON-RPC message: an object with "jsonrpc", "method" and, for a request, "id"`))
			return
		}
		if problem := invalid(msg); problem != "" {
			id := msg.ID
			if !isStringOrNumber(id) {
				id = nil // never echo back an id we just called invalid
			}
			writeJSON(w, http.StatusBadRequest, errorResponse(id, codeInvalidRequest, problem))
			return
		}

		// Notifications (no id) and responses to our own requests expect no answer.
		if msg.ID == nil {
			logger.Info("notification", "method", msg.Method)
			w.WriteHeader(http.StatusAccepted)
			return
		}
		if msg.Method == "" {
			w.WriteHeader(http.StatusAccepted)
			return
		}

		result, rpcErr := dispatch(msg.Method, msg.Params)
		logger.Info("request", "method", msg.Method, "ok", rpcErr == nil)
		if rpcErr != nil {
			writeJSON(w, http.StatusOK, errorResponse(msg.ID, rpcErr.Code, rpcErr.Message))
			return
		}
		writeJSON(w, http.StatusOK, response{JSONRPC: "2.0", ID: msg.ID, Result: result})
	})
}

// invalid says what is wrong with a message that is JSON but not a request we can answer, or
// returns "" when it is fine.
func invalid(msg message) string {
	switch {
	case msg.JSONRPC != "2.0":
		return `"jsonrpc" must be "2.0"`
	case msg.ID != nil && !isStringOrNumber(msg.ID):
		return `"id" must be a string or a number` // MCP also forbids null ids
	case msg.Method == "" && (msg.ID == nil || (msg.Result == nil && msg.Error == nil)):
		return `"method" is missing`
	}
	return ""
}

func isStringOrNumber(raw json.RawMessage) bool {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return false
	}
	switch v.(type) {
	case string, float64:
		return true
	}
	return false
}

func errorResponse(id json.RawMessage, code int, text string) response {
	if id == nil {
		id = json.RawMessage("null")
	}
	return response{JSONRPC: "2.0", ID: id, Error: &rpcError{Code: code, Message: text}}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
