package main

import (
	"encoding/json"
	"slices"
	"strings"
)

// supportedVersions lists the MCP revisions this server speaks, newest first. The first is
// the current one, 2026-07-28, which is stateless: every request names its revision in
// params._meta. The others are what older clients still send: they agree on a revision once,
// in initialize, and the server must not ask them for _meta.
var supportedVersions = []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

var (
	currentVersion    = supportedVersions[0]
	handshakeVersions = supportedVersions[1:]
)

// implementation names a program, as initialize and server/discover name the server.
type implementation struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

var serverInfo = implementation{Name: "vaultmcp", Version: "0.1.0"}

// serverCapabilities says what a server offers. This one has tools, and "tools": {} says
// too that it will not announce changes to them (that would be {"listChanged": true}).
type serverCapabilities struct {
	Tools struct{} `json:"tools"`
}

// requestMeta is what a 2026-07-28 request says about itself in params._meta. Both fields
// are required; the client may also name itself (clientInfo), which we do not need.
type requestMeta struct {
	ProtocolVersion    *string         `json:"io.modelcontextprotocol/protocolVersion"`
	ClientCapabilities json.RawMessage `json:"io.modelcontextprotocol/clientCapabilities"`
}

// readMeta reads params._meta; anything unreadable counts as missing.
func readMeta(params json.RawMessage) requestMeta {
	var p struct {
		Meta requestMeta `json:"_meta"`
	}
	json.Unmarshal(params, &p)
	return p.Meta
}

// isCurrent tells the two eras apart. A request that names a revision newer than the
// handshake ones, in _meta or in the MCP-Protocol-Version header, follows 2026-07-28, and so
// does server/discover, which exists only there. Anything else comes from a client that
// spoke (or skipped) initialize.
func isCurrent(msg message, headerVersion string) bool {
	meta := readMeta(msg.Params)
	named := func(v string) bool { return v != "" && !slices.Contains(handshakeVersions, v) }
	return msg.Method == "server/discover" || (meta.ProtocolVersion != nil && named(*meta.ProtocolVersion)) || named(headerVersion)
}

// checkMeta refuses a 2026-07-28 request that does not carry what every request of that
// revision must: its revision, which we must speak, and the client's capabilities.
func checkMeta(params json.RawMessage) *rpcError {
	meta := readMeta(params)
	switch {
	case meta.ProtocolVersion == nil:
		return invalidParams(`params._meta must name the revision of this request: {"io.modelcontextprotocol/protocolVersion": %q}`, currentVersion)
	case *meta.ProtocolVersion != currentVersion:
		return unsupportedVersion(*meta.ProtocolVersion)
	case !strings.HasPrefix(string(meta.ClientCapabilities), "{"):
		return invalidParams(`params._meta must carry "io.modelcontextprotocol/clientCapabilities", an object ({} for none)`)
	}
	return nil
}

// unsupportedVersion lists what we speak, so that the client can retry with one of them.
func unsupportedVersion(requested string) *rpcError {
	return &rpcError{
		Code:    -32022, // UnsupportedProtocolVersion
		Message: "unsupported protocol version " + quote(requested) + "; this server speaks " + strings.Join(supportedVersions, ", "),
		Data:    map[string]any{"supported": supportedVersions, "requested": requested},
	}
}

// dispatchCurrent runs one 2026-07-28 request.
func dispatchCurrent(method string, params json.RawMessage) (any, *rpcError) {
	switch method {
	case "server/discover":
		return discoverResult{SupportedVersions: supportedVersions, cacheHints: noCache, stamp: complete}, nil
	case "tools/list":
		return toolsList{Tools: tools, cacheHints: &noCache, stamp: &complete}, nil
	case "tools/call":
		result, err := callTool(params)
		if err != nil {
			return nil, err
		}
		result.stamp = &complete
		return result, nil
	case "initialize", "ping":
		return nil, &rpcError{Code: codeMethodNotFound, Message: quote(method) + " was removed in protocol version 2026-07-28"}
	}
	return nil, methodNotFound(method)
}

// A 2026-07-28 result says what kind it is, "complete" (a server that needs more input from
// the client answers "input_required" instead), and names the server in its _meta, since no
// handshake has told the client who answers. stamp holds both. A result type embeds it, so
// its fields sit beside the result's own; as a nil pointer, encoding/json leaves it out, as a
// 2025 client expects.
type stamp struct {
	ResultType string     `json:"resultType"`
	Meta       resultMeta `json:"_meta"`
}

type resultMeta struct {
	ServerInfo implementation `json:"io.modelcontextprotocol/serverInfo"`
}

var complete = stamp{ResultType: "complete", Meta: resultMeta{ServerInfo: serverInfo}}

// cacheHints are what 2026-07-28 adds to lists: how long a client may reuse the answer, and
// who may cache it. The tools change whenever a reader moves on to the next step at the same
// address, so clients should ask again every time (0 ms); and nothing here is meant for a
// shared cache.
type cacheHints struct {
	TTLMs      int    `json:"ttlMs"`
	CacheScope string `json:"cacheScope"`
}

var noCache = cacheHints{TTLMs: 0, CacheScope: "private"}

type discoverResult struct {
	SupportedVersions []string           `json:"supportedVersions"`
	Capabilities      serverCapabilities `json:"capabilities"`
	cacheHints
	stamp
}

type toolsList struct {
	Tools []tool `json:"tools"`
	*cacheHints
	*stamp
}

type initializeResult struct {
	ProtocolVersion string             `json:"protocolVersion"`
	Capabilities    serverCapabilities `json:"capabilities"`
	ServerInfo      implementation     `json:"serverInfo"`
}

// dispatchHandshake runs one request from a client of the 2025 revisions.
func dispatchHandshake(method string, params json.RawMessage) (any, *rpcError) {
	switch method {
	case "initialize":
		return initialize(params)
	case "ping":
		return struct{}{}, nil // the protocol's own liveness check: an empty result
	case "tools/list":
		return toolsList{Tools: tools}, nil
	case "tools/call":
		return callTool(params)
	}
	return nil, methodNotFound(method)
}

func methodNotFound(method string) *rpcError {
	return &rpcError{Code: codeMethodNotFound, Message: "method " + quote(method) + " not found"}
}

// initialize negotiates the revision as 2025-11-25 says: if we speak the client's version we
// answer with it; otherwise with the latest one we speak through this handshake, and the client
// decides whether it can continue. Echoing whatever the client sent would promise a protocol we
// may not implement; and 2026-07-28 has no initialize, so a handshake never agrees on it.
func initialize(params json.RawMessage) (any, *rpcError) {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := json.Unmarshal(params, &p); err != nil || p.ProtocolVersion == "" {
		return nil, invalidParams(`initialize needs params.protocolVersion, for example "2025-11-25"`)
	}
	version := handshakeVersions[0]
	if slices.Contains(handshakeVersions, p.ProtocolVersion) {
		version = p.ProtocolVersion
	}
	return initializeResult{ProtocolVersion: version, ServerInfo: serverInfo}, nil
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
