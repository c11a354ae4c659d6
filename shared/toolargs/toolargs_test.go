package toolargs

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// tools are shaped like the server's: a required string, bounded strings, a bounded integer,
// a bounded list of bounded strings.
var tools = []mcp.Tool{
	mcp.NewTool("echo", mcp.WithString("text", mcp.Required())),
	mcp.NewTool("search_vault",
		mcp.WithString("query", mcp.Required(), mcp.MinLength(1), mcp.MaxLength(1000)),
		mcp.WithInteger("limit", mcp.Min(1), mcp.Max(20)),
		mcp.WithString("folder", mcp.MaxLength(1024))),
	mcp.NewTool("create_note",
		mcp.WithString("title", mcp.Required(), mcp.MinLength(1), mcp.MaxLength(1024)),
		mcp.WithString("content", mcp.Required(), mcp.MaxLength(262_144)),
		mcp.WithArray("tags", mcp.MaxItems(20), mcp.WithStringItems(mcp.MaxLength(100)))),
	mcp.NewTool("ping"),
}

// newServer registers tools with a handler that answers "ran", checked either by mcp-go
// (WithInputSchemaValidation) or by Check, and strict either way.
func newServer(ours bool) *server.MCPServer {
	opts := []server.ServerOption{server.WithStrictInputSchemaDefault()}
	if !ours {
		opts = append(opts, server.WithInputSchemaValidation())
	}
	s := server.NewMCPServer("test", "1", opts...)
	if ours {
		s.Use(Check(s))
	}
	for _, tool := range tools {
		s.AddTool(tool, func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("ran"), nil
		})
	}
	return s
}

// call sends one tools/call to s and returns the text of the result and whether it is an error.
func call(t testing.TB, s *server.MCPServer, tool, arguments string) (string, bool) {
	t.Helper()
	msg := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, tool, arguments)
	reply, err := json.Marshal(s.HandleMessage(context.Background(), json.RawMessage(msg)))
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Result struct {
			Content []struct{ Text string }
			IsError bool
		}
		Error *struct{ Message string }
	}
	if err := json.Unmarshal(reply, &r); err != nil || r.Error != nil || len(r.Result.Content) == 0 {
		t.Fatalf("%s(%s): %s", tool, arguments, reply)
	}
	return r.Result.Content[0].Text, r.Result.IsError
}

// TestSameAcceptanceAsMCPGo: Check accepts and refuses exactly the calls that mcp-go's own
// validation does; only the words differ.
func TestSameAcceptanceAsMCPGo(t *testing.T) {
	theirs, ours := newServer(false), newServer(true)
	for _, tc := range []struct{ tool, args string }{
		{"echo", `{"text":"hi"}`},
		{"echo", `{"text":""}`},
		{"echo", `{}`},
		{"echo", `null`},
		{"echo", `{"text":42}`},
		{"echo", `{"text":null}`},
		{"echo", `{"text":["a"]}`},
		{"echo", `{"text":"hi","extra":1}`},
		{"echo", `[]`},
		{"echo", `"text"`},
		{"search_vault", `{"query":"bread"}`},
		{"search_vault", `{"query":""}`},
		{"search_vault", `{"query":"` + strings.Repeat("é", 1000) + `"}`},
		{"search_vault", `{"query":"` + strings.Repeat("é", 1001) + `"}`},
		{"search_vault", `{"query":"q","limit":20}`},
		{"search_vault", `{"query":"q","limit":21}`},
		{"search_vault", `{"query":"q","limit":0}`},
		{"search_vault", `{"query":"q","limit":2.0}`},
		{"search_vault", `{"query":"q","limit":2.5}`},
		{"search_vault", `{"query":"q","limit":1e1}`},
		{"search_vault", `{"query":"q","limit":1e21}`},
		{"search_vault", `{"query":"q","limit":1e-7}`},
		{"search_vault", `{"query":"q","limit":19.999999999999999999}`},
		{"search_vault", `{"query":"q","limit":-0}`},
		{"search_vault", `{"query":"q","limit":"5"}`},
		{"search_vault", `{"query":"q","folder":null}`},
		{"create_note", `{"title":"t","content":"c"}`},
		{"create_note", `{"title":"t","content":"c","tags":[]}`},
		{"create_note", `{"title":"t","content":"c","tags":["a","b"]}`},
		{"create_note", `{"title":"t","content":"c","tags":[1,"b",null]}`},
		{"create_note", `{"title":"t","content":"c","tags":"a"}`},
		{"create_note", `{"title":"t","content":"c","tags":[` + strings.Repeat(`"a",`, 20) + `"a"]}`},
		{"create_note", `{"title":"t","content":"c","tags":["` + strings.Repeat("x", 101) + `"]}`},
		{"create_note", `{"title":"","content":"c","path":"x"}`},
		{"create_note", `{}`},
		{"ping", `{}`},
		{"ping", `{"x":1}`},
	} {
		_, refusedByThem := call(t, theirs, tc.tool, tc.args)
		text, refusedByUs := call(t, ours, tc.tool, tc.args)
		if refusedByThem != refusedByUs {
			t.Errorf("%s(%.80s): mcp-go refuses: %v, Check refuses: %v (%s)", tc.tool, tc.args, refusedByThem, refusedByUs, text)
		}
	}
}

// TestWords: each kind of problem is said in words that name the argument and what it must
// be, never in Go's notation for a struct.
func TestWords(t *testing.T) {
	s := newServer(true)
	for _, tc := range []struct{ tool, args, want string }{
		{"echo", `{}`, `invalid arguments: the argument "text" is missing; it is required`},
		{"create_note", `{}`, `invalid arguments: the arguments "title" and "content" are missing; they are required`},
		{"echo", `{"text":42}`, `invalid arguments: "text" must be a string, not a number`},
		{"echo", `{"text":null}`, `invalid arguments: "text" must be a string, not null`},
		{"echo", `[]`, `invalid arguments: the arguments must be an object, not an array`},
		{"search_vault", `{"query":""}`, `invalid arguments: "query" must not be empty`},
		{"search_vault", `{"query":"` + strings.Repeat("é", 1001) + `"}`, `invalid arguments: "query" is 1001 characters long; the most allowed is 1000`},
		{"search_vault", `{"query":"q","limit":500}`, `invalid arguments: "limit" is 500; the most allowed is 20`},
		{"search_vault", `{"query":"q","limit":0}`, `invalid arguments: "limit" is 0; the least allowed is 1`},
		{"search_vault", `{"query":"q","limit":2.5}`, `invalid arguments: "limit" must be an integer, not a number`},
		{"echo", `{"text":"a","path":"b"}`, `invalid arguments: echo takes no argument "path"; it takes only "text"`},
		{"ping", `{"x":1,"y":2}`, `invalid arguments: ping takes no arguments; leave out "x" and "y"`},
		{"create_note", `{"title":"t","content":"c","tags":[1,"b",null]}`,
			`invalid arguments: "tags[0]" must be a string, not a number; "tags[2]" must be a string, not null`},
		{"create_note", `{"title":"t","content":"c","tags":[` + strings.Repeat(`"a",`, 20) + `"a"]}`,
			`invalid arguments: "tags" has 21 items; the most allowed is 20`},
		{"create_note", `{"title":"t","content":"c","tags":[` + strings.Repeat(`1,`, 29) + `1]}`,
			`invalid arguments: "tags" has 30 items; the most allowed is 20; "tags[0]" must be a string, not a number; "tags[1]" must be a string, not a number; "tags[2]" must be a string, not a number; "tags[3]" must be a string, not a number; and 26 more`},
	} {
		text, isError := call(t, s, tc.tool, tc.args)
		if !isError || text != tc.want {
			t.Errorf("%s(%.60s):\n got %q (error %v)\nwant %q", tc.tool, tc.args, text, isError, tc.want)
		}
	}
}

// TestBoundedAnswer: a call with 1.9 million wrong items, as mcp-go decodes it, is answered in
// a few hundred bytes with a handful of allocations: the schema never sees it. mcp-go's own
// validation answered the same call with 92 MB, one line per item.
func TestBoundedAnswer(t *testing.T) {
	tags := make([]any, 1_900_000)
	for i := range tags {
		tags[i] = 1.0
	}
	args := map[string]any{"title": "t", "content": "c", "tags": tags}
	c := &checker{schemas: map[string]*compiled{}}
	tool := tools[2]
	c.check(tool, map[string]any{"title": "t", "content": "c"}) // compile the schema first

	var answer string
	allocs := testing.AllocsPerRun(1, func() { answer = c.check(tool, args) })
	want := `invalid arguments: too many values in "tags": a call's arguments may hold at most 1000 in all, every item of a list counted`
	if answer != want {
		t.Errorf("got %q\nwant %q", answer, want)
	}
	if allocs > 100 {
		t.Errorf("%v allocations to refuse the call; the bound must come before the schema", allocs)
	}

	// Within the bound, the answer is bounded by maxProblems whatever the number of problems.
	tags = tags[:MaxValues-10]
	answer = c.check(tool, map[string]any{"title": "t", "content": "c", "tags": tags})
	if len(answer) > 2<<10 || !strings.HasSuffix(answer, "; and 986 more") {
		t.Errorf("%d bytes: %.300q", len(answer), answer)
	}
}

// TestDepth: arguments nested past MaxDepth are refused before the schema sees them, with
// the place named and cut short.
func TestDepth(t *testing.T) {
	var deep any = "bottom"
	for range 100 {
		deep = map[string]any{"a": deep}
	}
	c := &checker{schemas: map[string]*compiled{}}
	answer := c.check(tools[0], map[string]any{"text": deep})
	want := `invalid arguments: nesting too deep at "text.a.a.a…": arguments may nest at most 32 levels`
	if answer != want {
		t.Errorf("got %q\nwant %q", answer, want)
	}
}

// TestLongNames: a name or a value quoted in an answer is cut, so the answer stays short
// whatever the model sent.
func TestLongNames(t *testing.T) {
	s := newServer(true)
	long := strings.Repeat("k", 100_000)
	text, _ := call(t, s, "echo", fmt.Sprintf(`{"text":"a",%q:1,"%s2":2}`, long, long))
	if len(text) > 400 || !strings.Contains(text, `"kkk`) || !strings.Contains(text, "…") {
		t.Errorf("%d bytes: %.400q", len(text), text)
	}
}

// TestBrokenSchema: a schema that does not compile refuses every call, where mcp-go would let
// unchecked arguments through to a handler that trusts them.
func TestBrokenSchema(t *testing.T) {
	s := server.NewMCPServer("test", "1")
	s.Use(Check(s))
	s.AddTool(mcp.NewToolWithRawSchema("broken", "", json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","minimum":"zero"}}}`)),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("ran"), nil
		})
	text, isError := call(t, s, "broken", `{"n":1}`)
	if !isError || !strings.Contains(text, "input schema is broken") {
		t.Errorf("got %q (error %v)", text, isError)
	}
}

// TestGoValues: arguments from a Go caller (mcp-go's in-process client) are checked too: raw
// JSON, and Go types that JSON does not make.
func TestGoValues(t *testing.T) {
	c := &checker{schemas: map[string]*compiled{}}
	for _, tc := range []struct {
		args any
		want string
	}{
		{json.RawMessage(`{"query":"q","limit":5}`), ""},
		{json.RawMessage(` `), `invalid arguments: the argument "query" is missing; it is required`},
		{map[string]any{"query": "q", "limit": 500}, `invalid arguments: "limit" is 500; the most allowed is 20`},
		{map[string]any{"query": "q", "limit": []int{1, 2}}, `invalid arguments: "limit" must be an integer, not an array`},
		{struct{ Query string }{"q"}, `invalid arguments: the argument "query" is missing; it is required; search_vault takes no argument "Query"; it takes only "folder", "limit" and "query"`},
	} {
		tool := tools[1]
		tool.InputSchema.AdditionalProperties = false
		if got := c.check(tool, tc.args); got != tc.want {
			t.Errorf("%#v:\n got %q\nwant %q", tc.args, got, tc.want)
		}
	}
}
