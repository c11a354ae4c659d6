package jsonrpc

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// The longest text, in bytes as sent, of each string a request carries that the server acts
// on before any tool runs. mcp-go looks at these strings first and bounds none of them: it
// matches a resource URI against every template's regular expression (a 3.9 MB URI costs
// seconds of CPU), and echoes an unknown method, a bad version and the id in its answers.
// So each is bounded here, before mcp-go sees the message, and refused without being echoed.
// Real values are a small part of each bound.
const (
	// MaxIDLen bounds the id, which every answer echoes, and a progress token or a
	// cancelled request's id, which name one. Clients count (7) or use a UUID (38 bytes).
	MaxIDLen = 256
	// MaxMethodLen bounds the method: MCP's longest is 33 bytes.
	MaxMethodLen = 128
	// MaxNameLen bounds the name of a tool, a prompt or a completion's argument. The
	// specification asks tool names to be at most 128 characters.
	MaxNameLen = 128
	// MaxURILen bounds a resource URI (resources/read, a subscription, a completion's
	// reference) and a completion's typed value, which is a URI's path as far as typed. A note's
	// path is at most 1,024 bytes (vault.MaxPathLen), which percent-encoding can triple.
	MaxURILen = 8 << 10
	// MaxCursorLen bounds a page cursor: the server's own, a few hundred bytes of base64.
	MaxCursorLen = 2 << 10
	// MaxVersionLen bounds a protocol version, which is a date.
	MaxVersionLen = 64
)

// quoted is how much of a refused value an answer quotes: enough to recognise it.
const quoted = 32

// value is a JSON value as sent: its length in bytes (of a string, the text between its
// quotes, escapes as written), and its start as JSON, which is all of it when it is short enough
// to be an id. It decodes nothing, so a value of megabytes costs no memory.
type value struct {
	n    int
	head string
}

func (v *value) UnmarshalJSON(raw []byte) error {
	v.n = len(raw)
	if raw[0] == '"' {
		v.n -= 2
	}
	v.head = string(raw[:min(len(raw), MaxIDLen+2)])
	return nil
}

// measured is the part of a message whose strings are bounded. A member absent from the message
// measures 0.
type measured struct {
	ID     value `json:"id"`
	Method value `json:"method"`
	Params struct {
		Name            value `json:"name"`
		URI             value `json:"uri"`
		Cursor          value `json:"cursor"`
		ProtocolVersion value `json:"protocolVersion"`
		RequestID       value `json:"requestId"`
		Ref             struct {
			URI  value `json:"uri"`
			Name value `json:"name"`
		} `json:"ref"`
		Argument struct {
			Name  value `json:"name"`
			Value value `json:"value"`
		} `json:"argument"`
		Notifications struct {
			ResourceSubscriptions []value `json:"resourceSubscriptions"`
		} `json:"notifications"`
		Meta struct {
			ProtocolVersion value `json:"io.modelcontextprotocol/protocolVersion"`
			ProgressToken   value `json:"progressToken"`
		} `json:"_meta"`
	} `json:"params"`
}

// measure measures a message that is valid JSON, in one pass that copies none of its values.
func measure(body []byte) *measured {
	m := &measured{}
	// A member of the wrong type leaves its fields unmeasured; what mcp-go makes of it is its
	// own business, and costs nothing the bounds are for.
	_ = json.Unmarshal(body, m)
	return m
}

// hasID reports whether the message has an id other than null.
func (m *measured) hasID() bool { return m != nil && m.ID.n > 0 && m.ID.head != "null" }

// id returns the message's id to answer with, or nil when it has none MCP allows or one too
// long to echo.
func (m *measured) id() json.RawMessage {
	if !m.hasID() || m.ID.n > MaxIDLen || !isStringOrInteger(json.RawMessage(m.ID.head)) {
		return nil
	}
	return json.RawMessage(m.ID.head)
}

// method returns the message's method, or "" when it has none of a sensible length.
func (m *measured) method() string { return short(m.Method, MaxMethodLen) }

// version returns the protocol version the message names in params._meta, or "".
func (m *measured) version() string { return short(m.Params.Meta.ProtocolVersion, MaxVersionLen) }

// short returns a value that is a string within limit, decoded, or "".
func short(v value, limit int) string {
	var s string
	if v.n <= limit {
		json.Unmarshal([]byte(v.head), &s) // left "" unless a whole string
	}
	return s
}

// oversized returns the refusal of a message that carries a string longer than its bound, or
// nil. The refusal quotes at most the first few bytes of the string, and never the message's id
// when the id is what is too long.
func (m *measured) oversized(era string) *refusal {
	if m.ID.n > MaxIDLen {
		return &refusal{status: 400, code: codeInvalidRequest, message: tooLong("the id", m.ID, MaxIDLen)}
	}
	// Past here the id is short, and every answer may carry it.
	id := m.id()
	if m.Method.n > MaxMethodLen {
		// No method is that long, so the method is not found, as it would be at any length.
		return &refusal{status: statusFor(era, codeMethodNotFound), id: id, code: codeMethodNotFound,
			message: tooLong("the method", m.Method, MaxMethodLen) + "; no MCP method is that long"}
	}
	p := &m.Params
	for _, f := range []struct {
		name  string
		value value
		limit int
	}{
		{"params.name", p.Name, MaxNameLen},
		{"params.uri", p.URI, MaxURILen},
		{"params.cursor", p.Cursor, MaxCursorLen},
		{"params.protocolVersion", p.ProtocolVersion, MaxVersionLen},
		{"params.requestId", p.RequestID, MaxIDLen},
		{"params.ref.uri", p.Ref.URI, MaxURILen},
		{"params.ref.name", p.Ref.Name, MaxNameLen},
		{"params.argument.name", p.Argument.Name, MaxNameLen},
		{"params.argument.value", p.Argument.Value, MaxURILen},
		{`params._meta["io.modelcontextprotocol/protocolVersion"]`, p.Meta.ProtocolVersion, MaxVersionLen},
		{"params._meta.progressToken", p.Meta.ProgressToken, MaxIDLen},
	} {
		if f.value.n > f.limit {
			return &refusal{status: statusFor(era, codeInvalidParams), id: id, code: codeInvalidParams, message: tooLong(f.name, f.value, f.limit)}
		}
	}
	for i, uri := range p.Notifications.ResourceSubscriptions {
		if uri.n > MaxURILen {
			return &refusal{status: statusFor(era, codeInvalidParams), id: id, code: codeInvalidParams,
				message: tooLong(fmt.Sprintf("params.notifications.resourceSubscriptions[%d]", i), uri, MaxURILen)}
		}
	}
	return nil
}

// tooLong says that what is longer than limit, quoting only its start.
func tooLong(what string, v value, limit int) string {
	head, cut := strings.CutPrefix(v.head, `"`) // a string: quote its text, not its JSON
	if len(head) > quoted {
		head = head[:quoted]
		// Never end inside a character cut in two.
		for i := 0; i < utf8.UTFMax-1 && !utf8.ValidString(head); i++ {
			head = head[:len(head)-1]
		}
		head += "…"
	} else if cut {
		head = strings.TrimSuffix(head, `"`)
	}
	return fmt.Sprintf("%s is %d bytes long, more than the %d this server reads (it begins %q)", what, v.n, limit, head)
}
