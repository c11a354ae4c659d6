package main

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"slices"
	"strings"
)

// handleMCP is the Streamable HTTP transport reduced to what a tools-only server needs: the
// client POSTs one JSON-RPC message and reads the answer from the response body.
func handleMCP(logger *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// GET would open a stream for messages the server sends unasked, and DELETE would end a
		// session: 2026-07-28 has neither, and a 2025 server may refuse both.
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "this MCP endpoint accepts only POST", http.StatusMethodNotAllowed)
			return
		}
		// A browser lets a page POST to another site without asking only a body an HTML form
		// could send: text/plain, form fields, a file upload (a "simple" request). For any other
		// Content-Type, application/json included, it first asks the server with an OPTIONS
		// request (a CORS preflight), which this server refuses, and never sends the POST. So
		// taking messages only as application/json keeps every page out, even one that
		// onlyLocal's Origin check were to miss.
		if mediaType, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mediaType != "application/json" {
			http.Error(w, "send JSON-RPC messages with Content-Type: application/json (this request's is "+quote(r.Header.Get("Content-Type"))+")", http.StatusUnsupportedMediaType)
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, "cannot read request body", http.StatusBadRequest)
			return
		}
		msg, rpcErr := readMessage(body)
		if rpcErr != nil {
			writeJSON(w, http.StatusBadRequest, response{JSONRPC: "2.0", ID: msg.ID, Error: rpcErr})
			return
		}
		// A notification (no id) expects no answer, and gets none: 202 and an empty body. (One
		// that is not a valid message got 400 above: the transport lets a server refuse a
		// notification it cannot accept with an error status.)
		if msg.ID == nil {
			logger.Info("notification", "method", msg.Method)
			w.WriteHeader(http.StatusAccepted)
			return
		}

		var result any
		current := isCurrent(msg, r.Header.Get("MCP-Protocol-Version"))
		if current {
			if rpcErr = checkHeaders(msg, r.Header); rpcErr == nil {
				if rpcErr = checkMeta(msg.Params); rpcErr == nil {
					result, rpcErr = dispatchCurrent(msg.Method, msg.Params)
				}
			}
		} else {
			result, rpcErr = dispatchHandshake(msg.Method, msg.Params)
		}
		logger.Info("request", "method", msg.Method, "current", current, "ok", rpcErr == nil)
		if rpcErr != nil {
			writeJSON(w, errorStatus(current, rpcErr.Code), response{JSONRPC: "2.0", ID: msg.ID, Error: rpcErr})
			return
		}
		writeJSON(w, http.StatusOK, response{JSONRPC: "2.0", ID: msg.ID, Result: result})
	})
}

// errorStatus is the HTTP status of an error answer. A 2025 client reads every answer from a
// 200 response, as JSON-RPC over HTTP always did. 2026-07-28 makes the status carry what the
// error says, so that a proxy can tell without reading the body. Its Streamable HTTP page
// fixes two: 404 for an unknown method, and 400 for the MCP codes -32020 (header mismatch),
// -32021 (missing client capability) and -32022 (unsupported version); the overview adds 400
// for a request without the _meta it requires (-32602). For the rest the specification says
// nothing, and the choice is ours: the client's other mistakes are 400 too, and a failure of
// the server's own (-32603) is 500. A 4xx says the request must change before it can work; a
// 5xx says the same request may work later, and monitoring counts it against the server.
func errorStatus(current bool, code int) int {
	switch {
	case !current:
		return http.StatusOK
	case code == codeMethodNotFound:
		return http.StatusNotFound
	case code == codeInternalError:
		return http.StatusInternalServerError
	}
	return http.StatusBadRequest
}

// checkHeaders applies a rule of 2026-07-28: headers repeat the revision, the method and, for a
// tool call, the tool's name, so that a proxy can route a request without reading its body.
// The server reads the body, and refuses a request whose headers say otherwise: a proxy and
// this server must never act on two different requests.
func checkHeaders(msg message, h http.Header) *rpcError {
	version, meta := h.Get("MCP-Protocol-Version"), readMeta(msg.Params)
	switch {
	case version == "":
		return headerMismatch("the MCP-Protocol-Version header is missing")
	case !slices.Contains(supportedVersions, version):
		return unsupportedVersion(version)
	case meta.ProtocolVersion != nil && *meta.ProtocolVersion != version:
		return headerMismatch("MCP-Protocol-Version is " + quote(version) + " but params._meta says " + quote(*meta.ProtocolVersion))
	case h.Get("Mcp-Method") != msg.Method:
		return headerMismatch("Mcp-Method is " + quote(h.Get("Mcp-Method")) + " but the method is " + quote(msg.Method))
	}
	if msg.Method == "tools/call" {
		var p struct {
			Name string `json:"name"`
		}
		json.Unmarshal(msg.Params, &p)
		if name := decodeHeader(h.Get("Mcp-Name")); name != p.Name {
			return headerMismatch("Mcp-Name is " + quote(name) + " but the tool is " + quote(p.Name))
		}
	}
	return nil
}

func headerMismatch(text string) *rpcError {
	return &rpcError{Code: -32020, Message: "header mismatch: " + text} // HeaderMismatch
}

// decodeHeader undoes what a client does to a value that is not plain ASCII (a tool named in
// Chinese, say) before it can travel in a header: "=?base64?" + base64 + "?=".
func decodeHeader(value string) string {
	inner, ok := strings.CutPrefix(value, "=?base64?")
	if inner, ok2 := strings.CutSuffix(inner, "?="); ok && ok2 {
		if decoded, err := base64.StdEncoding.DecodeString(inner); err == nil {
			return string(decoded)
		}
	}
	return value
}
