// Package toolargs checks a tool call's arguments against the tool's inputSchema before its
// handler runs, and tells the model what is wrong in a short answer, in words.
//
// mcp-go checks arguments itself when asked (server.WithInputSchemaValidation), with the same
// JSON Schema library, github.com/santhosh-tekuri/jsonschema/v6. But its answer is written for
// a programmer and has no bound: it prints the library's Go structs ("/text: &{Got:number
// Want:[string]}") and lists every value that fails, so a 3.8 MB call whose tags held 1.9
// million numbers got a 92 MB answer, and the server grew from 36 MB to 1.2 GB writing it.
// mcp-go validates before any middleware runs and has no hook for its messages, so this
// package replaces its validation instead of rewording it: Check is a middleware to use in its
// place, which accepts exactly the calls mcp-go accepts.
package toolargs

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// MaxValues bounds the JSON values one call's arguments may hold, at every level together:
// each object, array, string, number, boolean and null counts one, so each item of a list does.
// A tool here takes a handful. The bound is checked before the schema, and keeps both the work
// of checking and the number of things that can be wrong with a call small.
const MaxValues = 1000

// MaxDepth bounds how deeply arguments nest: an object in an array in an object is 3 deep.
const MaxDepth = 32

// An answer names at most maxProblems problems, each in at most maxProblem bytes (a name or a
// value quoted in it is cut first): enough to correct a call, and never more than a few
// hundred bytes whatever was sent.
const (
	maxProblems = 5
	maxProblem  = 300
	maxName     = 64 // bytes of one property name in a problem
)

// Check returns a middleware that checks each call's arguments against the input schema of
// the tool s holds under the call's name (with the additionalProperties that
// server.WithStrictInputSchemaDefault puts there), and answers a call that fails with a tool
// error, without calling the handler. Use it instead of server.WithInputSchemaValidation, not
// with it: mcp-go's own check runs first, and would answer before this one.
func Check(s *server.MCPServer) server.ToolHandlerMiddleware {
	c := &checker{schemas: map[string]*compiled{}}
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			// mcp-go routes only calls to tools it holds, so tool is nil only for a tool
			// removed since: its handler answers as it would without a check.
			if tool := s.GetTool(req.Params.Name); tool != nil {
				if problem := c.check(tool.Tool, req.Params.Arguments); problem != "" {
					return mcp.NewToolResultError(problem), nil
				}
			}
			return next(ctx, req)
		}
	}
}

// checker holds each tool's compiled schema, compiled on the tool's first call.
type checker struct {
	mu      sync.Mutex
	schemas map[string]*compiled
}

type compiled struct {
	source []byte // the schema as JSON: a tool registered again with another schema recompiles
	schema *jsonschema.Schema
	err    error
}

// check returns what is wrong with args for tool, or "" when nothing is.
func (c *checker) check(tool mcp.Tool, args any) string {
	source, ok := schemaJSON(tool)
	if !ok {
		return "" // a tool without a schema takes anything, as in mcp-go
	}
	schema, err := c.compile(tool.Name, source)
	if err != nil {
		// mcp-go skips a schema that does not compile, and the handler then trusts arguments
		// nobody checked. Refusing says at once that the server, not the model, is wrong.
		return fmt.Sprintf("the server cannot check arguments for %s: its input schema is broken (%v); this is a bug in the server, not in the call", tool.Name, err)
	}

	if args == nil {
		args = map[string]any{} // no arguments are an empty object, as in mcp-go
	}
	if raw, ok := args.(json.RawMessage); ok { // from a Go caller, not from JSON-RPC
		if len(bytes.TrimSpace(raw)) == 0 {
			raw = json.RawMessage("{}")
		}
		if args, err = jsonschema.UnmarshalJSON(bytes.NewReader(raw)); err != nil {
			return "the arguments are not JSON: " + err.Error()
		}
	}
	// The bounds come before the schema: what they refuse is never copied, nor checked value
	// by value.
	if problem := bounds(args); problem != "" {
		return "invalid arguments: " + problem
	}
	value, ok := forSchema(args)
	if !ok {
		// Values only a Go caller can send (an int, a struct): through JSON, as mcp-go does.
		encoded, err := json.Marshal(args)
		if err != nil {
			return "the arguments cannot be read as JSON: " + err.Error()
		}
		if value, err = jsonschema.UnmarshalJSON(bytes.NewReader(encoded)); err != nil {
			return "the arguments cannot be read as JSON: " + err.Error()
		}
		if problem := bounds(value); problem != "" {
			return "invalid arguments: " + problem
		}
	}
	err = schema.Validate(value)
	if err == nil {
		return ""
	}
	var invalid *jsonschema.ValidationError
	if !errors.As(err, &invalid) {
		return "invalid arguments: " + clip(err.Error(), maxProblem)
	}
	return "invalid arguments: " + describe(tool, value, invalid)
}

func (c *checker) compile(name string, source []byte) (*jsonschema.Schema, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.schemas[name]; ok && bytes.Equal(s.source, source) {
		return s.schema, s.err
	}
	s := &compiled{source: source}
	s.schema, s.err = compileSchema(name, source)
	c.schemas[name] = s
	return s.schema, s.err
}

// schemaJSON returns the tool's input schema as JSON, as mcp-go reads it: the raw schema when
// the tool has one, else the structured one; false for a tool with no schema at all.
func schemaJSON(tool mcp.Tool) ([]byte, bool) {
	if len(tool.RawInputSchema) > 0 {
		return tool.RawInputSchema, true
	}
	s := tool.InputSchema
	if s.Type == "" && len(s.Properties) == 0 && len(s.Required) == 0 && s.AdditionalProperties == nil {
		return nil, false
	}
	data, err := json.Marshal(s)
	return data, err == nil
}

func compileSchema(name string, source []byte) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(source))
	if err != nil {
		return nil, err
	}
	// The schema lives at a made-up address, so a "$ref" in it resolves without the file
	// system or the network.
	url := "mem:///tools/" + name + "/input-schema.json"
	compiler := jsonschema.NewCompiler()
	if err := compiler.AddResource(url, doc); err != nil {
		return nil, err
	}
	return compiler.Compile(url)
}

// forSchema returns JSON decoded by encoding/json the way the schema library reads it: each
// float64 as the json.Number that encoding it gives, so that "maximum": 20 is compared exactly,
// as in mcp-go, which encodes the arguments and decodes them again. Strings are shared, not
// copied: a note's content is not held twice. It returns false for a value JSON does not make.
func forSchema(v any) (any, bool) {
	switch v := v.(type) {
	case nil, bool, string, json.Number:
		return v, true
	case float64:
		return json.Number(strconv.FormatFloat(v, 'g', -1, 64)), true
	case []any:
		list := make([]any, len(v))
		for i, item := range v {
			var ok bool
			if list[i], ok = forSchema(item); !ok {
				return nil, false
			}
		}
		return list, true
	case map[string]any:
		object := make(map[string]any, len(v))
		for key, item := range v {
			var ok bool
			if object[key], ok = forSchema(item); !ok {
				return nil, false
			}
		}
		return object, true
	}
	return nil, false
}

// bounds returns what passes MaxValues or MaxDepth in args, or "" when neither is passed. It
// stops at the first value past a bound, and allocates only to name it.
func bounds(args any) string {
	w := walker{}
	path, problem := w.walk(args, 1)
	switch problem {
	case tooMany:
		return fmt.Sprintf("too many values in %s: a call's arguments may hold at most %d in all, every item of a list counted", where(args, path), MaxValues)
	case tooDeep:
		return fmt.Sprintf("nesting too deep at %s: arguments may nest at most %d levels", where(args, path), MaxDepth)
	}
	return ""
}

type bound int

const (
	within bound = iota
	tooMany
	tooDeep
)

type walker struct{ values int }

// walk counts v and what it holds, and returns the path to the object or array that passes a
// bound. A container too large for what is left of MaxValues is blamed whole, before a look
// inside; the keys of an object are visited in order, so the same call is always blamed the
// same way.
func (w *walker) walk(v any, depth int) ([]string, bound) {
	w.values++
	if depth > MaxDepth {
		return nil, tooDeep
	}
	switch v := v.(type) {
	case []any:
		if w.values+len(v) > MaxValues {
			return nil, tooMany
		}
		for i, item := range v {
			if path, b := w.walk(item, depth+1); b != within {
				return append([]string{strconv.Itoa(i)}, path...), b
			}
		}
	case map[string]any:
		if w.values+len(v) > MaxValues {
			return nil, tooMany
		}
		for _, key := range slices.Sorted(maps.Keys(v)) {
			if path, b := w.walk(v[key], depth+1); b != within {
				return append([]string{key}, path...), b
			}
		}
	}
	if w.values > MaxValues {
		return nil, tooMany
	}
	return nil, within
}

// describe words what the validator found wrong. The schema library reports a tree whose
// leaves are the problems; the answer lists the first few, in the order of where they are.
func describe(tool mcp.Tool, args any, root *jsonschema.ValidationError) string {
	var leaves []*jsonschema.ValidationError
	var collect func(*jsonschema.ValidationError)
	collect = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			leaves = append(leaves, e)
		}
		for _, c := range e.Causes {
			collect(c)
		}
	}
	collect(root)
	// The library visits an object's properties in map order: sorting makes the answer the
	// same for the same call.
	slices.SortStableFunc(leaves, func(a, b *jsonschema.ValidationError) int {
		return slices.CompareFunc(a.InstanceLocation, b.InstanceLocation, compareSegments)
	})
	var problems []string
	for _, leaf := range leaves[:min(len(leaves), maxProblems)] {
		problems = append(problems, clip(problem(tool, args, leaf), maxProblem))
	}
	text := strings.Join(problems, "; ")
	if more := len(leaves) - len(problems); more > 0 {
		text += fmt.Sprintf("; and %d more", more)
	}
	return text
}

// compareSegments orders two steps of a location: list indexes by number, so tags[2] comes
// before tags[10], and names alphabetically.
func compareSegments(a, b string) int {
	i, errA := strconv.Atoi(a)
	j, errB := strconv.Atoi(b)
	if errA == nil && errB == nil {
		return cmp.Compare(i, j)
	}
	return strings.Compare(a, b)
}

var english = message.NewPrinter(language.English)

// problem words one leaf of the validator's tree.
func problem(tool mcp.Tool, args any, e *jsonschema.ValidationError) string {
	at := where(args, e.InstanceLocation)
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		return missing(at, e.InstanceLocation, k.Missing)
	case *kind.AdditionalProperties:
		return unknown(tool, at, e.InstanceLocation, k.Properties)
	case *kind.Type:
		return fmt.Sprintf("%s must be %s, not %s", at, article(strings.Join(k.Want, " or ")), article(k.Got))
	case *kind.MinLength:
		if k.Got == 0 {
			return at + " must not be empty"
		}
		return fmt.Sprintf("%s is %d characters long; the least allowed is %d", at, k.Got, k.Want)
	case *kind.MaxLength:
		return fmt.Sprintf("%s is %d characters long; the most allowed is %d", at, k.Got, k.Want)
	case *kind.Minimum:
		return fmt.Sprintf("%s is %s; the least allowed is %s", at, number(k.Got), number(k.Want))
	case *kind.Maximum:
		return fmt.Sprintf("%s is %s; the most allowed is %s", at, number(k.Got), number(k.Want))
	case *kind.ExclusiveMinimum:
		return fmt.Sprintf("%s is %s; it must be more than %s", at, number(k.Got), number(k.Want))
	case *kind.ExclusiveMaximum:
		return fmt.Sprintf("%s is %s; it must be less than %s", at, number(k.Got), number(k.Want))
	case *kind.MinItems:
		return fmt.Sprintf("%s has %d items; the least allowed is %d", at, k.Got, k.Want)
	case *kind.MaxItems:
		return fmt.Sprintf("%s has %d items; the most allowed is %d", at, k.Got, k.Want)
	}
	// The rest (enum, pattern, format...) do not occur in this server's schemas: the
	// library's own English, which names the values, cut to size by the caller.
	return at + ": " + e.ErrorKind.LocalizedString(english)
}

// missing words a "required" failure: the root is the arguments themselves.
func missing(at string, location, names []string) string {
	quoted := quote(names)
	if len(location) == 0 {
		if len(names) == 1 {
			return fmt.Sprintf("the argument %s is missing; it is required", quoted)
		}
		return fmt.Sprintf("the arguments %s are missing; they are required", quoted)
	}
	return fmt.Sprintf("%s lacks %s, which it requires", at, quoted)
}

// unknown words an "additionalProperties" failure, with the names the tool does take.
func unknown(tool mcp.Tool, at string, location, names []string) string {
	names = slices.Sorted(slices.Values(names)) // the validator lists them in map order
	if len(location) > 0 {
		return fmt.Sprintf("%s has no field %s", at, quote(names))
	}
	what := "argument"
	if len(names) > 1 {
		what = "arguments"
	}
	props := slices.Sorted(maps.Keys(tool.InputSchema.Properties))
	switch {
	case len(tool.RawInputSchema) > 0:
		return fmt.Sprintf("%s takes no %s %s", tool.Name, what, quote(names)) // its names are in the raw schema
	case len(props) == 0:
		return fmt.Sprintf("%s takes no arguments; leave out %s", tool.Name, quote(names))
	}
	return fmt.Sprintf("%s takes no %s %s; it takes only %s", tool.Name, what, quote(names), quote(props))
}

// where names a place in the arguments the way a model wrote it: "title", "tags[2]",
// "filter.folder"; "the arguments" for the whole. args tells a list's index from a key.
func where(args any, location []string) string {
	if len(location) == 0 {
		return "the arguments"
	}
	var b strings.Builder
	v := args
	for i, segment := range location {
		if i == 4 {
			b.WriteString("…")
			break
		}
		if list, ok := v.([]any); ok {
			b.WriteString("[" + segment + "]")
			if n, err := strconv.Atoi(segment); err == nil && n < len(list) {
				v = list[n]
			}
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(clip(segment, maxName))
		if object, ok := v.(map[string]any); ok {
			v = object[segment]
		}
	}
	return strconv.Quote(b.String())
}

// quote lists names in quotes: "a", "a" and "b", "a", "b" and "c".
func quote(names []string) string {
	quoted := make([]string, 0, min(len(names), maxProblems))
	for _, n := range names[:min(len(names), maxProblems)] {
		quoted = append(quoted, strconv.Quote(clip(n, maxName)))
	}
	if len(names) > maxProblems {
		quoted = append(quoted, fmt.Sprintf("%d more", len(names)-maxProblems))
	}
	if len(quoted) == 1 {
		return quoted[0]
	}
	return strings.Join(quoted[:len(quoted)-1], ", ") + " and " + quoted[len(quoted)-1]
}

// article puts "a" or "an" before a JSON type: "a string", "an integer", "an object or null".
func article(types string) string {
	if types == "null" {
		return types
	}
	if strings.ContainsRune("aeiou", rune(types[0])) {
		return "an " + types
	}
	return "a " + types
}

// number writes an exact number the way it was written: 20, 0.5.
func number(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// clip cuts s to at most n bytes, at a character boundary, and marks the cut with "…".
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	n -= len("…")
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
