package jsonrpc

import (
	"bytes"
	"encoding/json"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"unicode"
)

// notJSON returns what is wrong with the request's Content-Type, or "" when it is
// application/json (with or without parameters, such as a charset).
//
// A browser lets a page POST to another site without asking only a body an HTML form could
// send: text/plain, form fields, a file upload (a "simple" request). For any other
// Content-Type, application/json included, it first asks the server with an OPTIONS request
// (a CORS preflight), which these servers refuse, and never sends the POST. So a message
// taken only as application/json is one no page can make run, whatever else lets it through.
func notJSON(r *http.Request) string {
	contentType := r.Header.Get("Content-Type")
	if mediaType, _, _ := mime.ParseMediaType(contentType); mediaType == "application/json" {
		return ""
	}
	return "send JSON-RPC messages with Content-Type: application/json (this request's is " + strconv.Quote(contentType) + ")"
}

// envelope holds the member names of a JSON-RPC message, spelled as JSON-RPC spells them.
var envelope = []string{"jsonrpc", "id", "method", "params", "result", "error"}

// ambiguousNames looks for member names that two JSON readers could read as two different
// messages, and says what it found first, or returns "" when there is nothing. idKnown is
// false when the id itself is in doubt, and must not be echoed. body must be valid JSON.
//
// JSON leaves a name written twice in one object undefined, and readers differ: Go's
// encoding/json, which mcp-go decodes with, keeps the last value, and also matches a name to a
// struct field ignoring case. So {"method":"tools/list","Method":"tools/call"} is a tools/call
// to mcp-go and a tools/list to a gateway or a log that reads it strictly; {"Method":
// "tools/call"} is a tools/call to Go and a message without a method to everyone else. Two
// rules close that gap before mcp-go decodes the message: no object, at any depth, holds two
// names that are equal ignoring case (a name written twice included); and the message's own
// members are spelled exactly.
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
				found = "the name " + strconv.Quote(name) + " appears twice in one object; JSON readers disagree on which to take, so write each name once"
			case seen:
				found = "the names " + strconv.Quote(earlier) + " and " + strconv.Quote(name) + " differ only in case, and some JSON readers take them for one name; write each name once, in one spelling"
			}
			for _, member := range envelope {
				if len(open) == 1 && folded == foldName(member) && name != member && found == "" {
					found = "the member " + strconv.Quote(name) + " must be written " + strconv.Quote(member) + ": JSON-RPC names are case-sensitive"
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
