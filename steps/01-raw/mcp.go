package main

import (
	"encoding/json"
	"slices"
)

// supportedVersions lists the MCP protocol versions this server speaks, newest first.
var supportedVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// dispatch runs one request and returns its result, or the protocol error that stops it.
func dispatch(method string, params json.RawMessage) (any, *rpcError) {
	switch method {
	case "initialize":
		return initialize(params)
	case "ping":
		return struct{}{}, nil // the protocol's own liveness check: an empty result
	case "tools/list":
		return map[string]any{"tools": tools}, nil
	case "tools/call":
		return callTool(params)
	}
	return nil, &rpcError{Code: codeMethodNotFound, Message: "method " + quote(method) + " not found"}
}

// initialize negotiates the protocol version as the 2025-11-25 specification says: if we speak
// the client's version we answer with it; otherwise we answer with the latest one we speak and
// the client decides whether it can continue. Echoing whatever the client sent would promise
// a protocol we may not implement.
func initialize(params json.RawMessage) (any, *rpcError) {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := json.Unmarshal(params, &p); err != nil || p.ProtocolVersion == "" {
		return nil, invalidParams(`initialize needs params.protocolVersion, for example "2025-11-25"`)
	}
	version := supportedVersions[0]
	if slices.Contains(supportedVersions, p.ProtocolVersion) {
		version = p.ProtocolVersion
	}
	return map[string]any{
		"protocolVersion": version,
		"capabilities":    map[string]any{"tools": map[string]any{}},
		"serverInfo":      map[string]any{"name": "vaultmcp", "version": "0.1.0"},
	}, nil
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
