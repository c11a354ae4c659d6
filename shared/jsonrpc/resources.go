package jsonrpc

import (
	"encoding/json"
	"errors"
	"net/http"
)

// An Option adds a check of the server's own to those Strict and Lines make.
type Option func(*checks)

type checks struct {
	findResource func(uri string) error
}

func newChecks(opts []Option) *checks {
	c := &checks{}
	for _, opt := range opts {
		opt(c)
	}
	return c
}

// ErrResourceNotFound marks the error a FindResources function returns for a URI that names
// no resource.
var ErrResourceNotFound = errors.New("resource not found")

// codeResourceNotFound is what 2025-11-25 answers a missing resource with; 2026-07-28 answers
// it with invalid params (SEP-2164).
const codeResourceNotFound = -32002

// FindResources has resources/read answered before mcp-go sees it when find says its URI names
// nothing to read. find returns nil for a URI the server can read, an error that wraps
// ErrResourceNotFound for one that names no resource, and any other error for a URI it refuses;
// the error's text is the answer's message.
//
// mcp-go v1.2.1 answers every error of a resource handler with -32603, internal error, and
// the one not-found error it makes itself (for a URI no template matches) carries no data. The
// specification asks for the URI in error.data, and for the code of the client's revision:
// -32602 from 2026-07-28 on (SEP-2164), -32002 in 2025-11-25. A URI refused for another reason
// is invalid params.
func FindResources(find func(uri string) error) Option {
	return func(c *checks) { c.findResource = find }
}

// resource refuses a resources/read whose URI the server's find refuses, or returns nil.
func (c *checks) resource(body []byte, era string, m *measured) *refusal {
	if c.findResource == nil || m.method() != "resources/read" || !m.hasID() {
		return nil
	}
	var msg struct {
		Params struct {
			URI *string `json:"uri"`
		} `json:"params"`
	}
	// The URI is bounded by now (see oversized), so decoding it costs little.
	if json.Unmarshal(body, &msg) != nil || msg.Params.URI == nil {
		return nil
	}
	uri, id := *msg.Params.URI, m.id()
	err := c.findResource(uri)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrResourceNotFound) && era < firstModernVersion:
		return &refusal{status: http.StatusOK, id: id, code: codeResourceNotFound, message: err.Error(), data: map[string]string{"uri": uri}}
	case errors.Is(err, ErrResourceNotFound):
		return &refusal{status: http.StatusBadRequest, id: id, code: codeInvalidParams, message: err.Error(), data: map[string]string{"uri": uri}}
	}
	return &refusal{status: statusFor(era, codeInvalidParams), id: id, code: codeInvalidParams, message: err.Error()}
}

// NotFound marks err as the answer to a URI that names no resource, for FindResources; the
// answer's message is err's own.
func NotFound(err error) error { return notFound{err} }

type notFound struct{ err error }

func (e notFound) Error() string   { return e.err.Error() }
func (e notFound) Unwrap() []error { return []error{ErrResourceNotFound, e.err} }
