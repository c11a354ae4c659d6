// Package interop checks that every step works with the official MCP clients as they are,
// from both revisions of the protocol: the TypeScript SDK 1.32 (the 2025-11-25 initialize
// handshake), the TypeScript client 2.4 pinned to 2026-07-28 and in auto mode, and the Go
// SDK's client (2026-07-28 by default). Each one connects over Streamable HTTP and, for the
// steps that offer -transport stdio, over stdio, where it starts the server itself as Claude
// Desktop would. Each lists the tools, calls every one with valid and with bad arguments
// (tools_test.go), and calls a tool that does not exist; on a step with resources, it lists
// the template and the notes and reads a note and a missing one. Meanwhile the server must log
// nothing at WARN or ERROR, since nothing went wrong. The MCP Inspector's CLI reads a note too
// (inspector_test.go).
//
// The TypeScript clients run in client.mjs, one node process per step, transport and client;
// the Go SDK runs in this process (gosdk_test.go). Both report the same way, checked here.
package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"vaultmcp/scripts/transcript"
)

// client is one official MCP client, and how the test drives it.
type client struct {
	name    string // in test names and in the title of the note it creates
	about   string // in failure messages
	version string // the protocol revision it must end up on with these (dual-era) steps
	drive   func(ctx context.Context, s server, p plan) (report, error)
}

// server is a step as a client reaches it: at url, or (url "") started by the client itself
// on stdio, from exe with env added to the environment.
type server struct {
	url string
	exe string
	env []string
	log string // a file for the client's stderr; over stdio the server's log goes there too
}

// plan is what a client is to do after listing the tools: Calls, in order, for the tools the
// server listed; then call UnknownTool.
type plan struct {
	Calls       []call        `json:"calls"`
	UnknownTool string        `json:"unknownTool"`
	Resources   resourcesPlan `json:"resources"`
}

// resourcesPlan is what a client reads, on a step that offers resources: a note's URI, and
// a URI that names no note.
type resourcesPlan struct {
	Read     string `json:"read"`
	Missing  string `json:"missing"`
	Complete string `json:"complete"` // what the person has typed of a path, to complete
}

type call struct {
	Tool      string         `json:"tool"`
	Arguments map[string]any `json:"arguments"`
	Until     string         `json:"until,omitempty"` // repeat, for up to 10 s, until the text holds this
	Want      string         `json:"want,omitempty"`  // valid arguments: the text must hold this
	Bad       bool           `json:"bad,omitempty"`   // bad arguments: the result must be a tool error
}

// report is what a client saw.
type report struct {
	ProtocolVersion string            `json:"protocolVersion"`
	Server          map[string]string `json:"server"` // name and version
	Tools           []string          `json:"tools"`
	Calls           []answer          `json:"calls"`
	UnknownTool     answer            `json:"unknownTool"`
	Resources       *resourcesReport  `json:"resources"` // nil when the step offers none
	Error           string            `json:"error"`     // why the client gave up, if it did
}

// resourcesReport is what a client saw of the resources.
type resourcesReport struct {
	Templates  []string          `json:"templates"`
	Listed     []string          `json:"listed"` // the URIs on the first page
	NextCursor string            `json:"nextCursor"`
	Read       []resourceContent `json:"read"`
	ReadError  *rpcError         `json:"readError"`
	Missing    struct {
		Contents []resourceContent `json:"contents"`
		Error    *rpcError         `json:"error"`
	} `json:"missing"`
	Completed []string `json:"completed"` // nil when the step offers no completions
}

type resourceContent struct {
	URI      string `json:"uri"`
	MIMEType string `json:"mimeType"`
	Text     string `json:"text"`
}

// answer is a call and what came back: a result, or a protocol error.
type answer struct {
	call
	Result *toolResult `json:"result"`
	Error  *rpcError   `json:"error"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

type toolResult struct {
	Content []struct{ Text string } `json:"content"`
	IsError bool                    `json:"isError"`
}

func (r *toolResult) text() string {
	var texts []string
	for _, c := range r.Content {
		texts = append(texts, c.Text)
	}
	return strings.Join(texts, "\n")
}

// shown is the result's text as a failure message quotes it: a note can be long.
func (r *toolResult) shown() string {
	text := r.text()
	if len(text) > 300 {
		text = strings.ToValidUTF8(text[:300], "") + "…"
	}
	return fmt.Sprintf("%q", text)
}

func TestTypeScriptClients(t *testing.T) {
	skipIfShort(t)
	root, err := transcript.Root()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "scripts", "interop")
	node := nodeBinary(t, dir)
	// The names are client.mjs's names for them.
	clients := []client{
		{name: "sdk", about: "the TypeScript SDK 1.32 client", version: "2025-11-25"},
		{name: "v2-pin", about: "the TypeScript client 2.4, pinned to 2026-07-28", version: "2026-07-28"},
		{name: "v2-auto", about: "the TypeScript client 2.4 in auto mode", version: "2026-07-28"},
	}
	for i, c := range clients {
		clients[i].drive = func(ctx context.Context, s server, p plan) (report, error) {
			return runNode(ctx, node, dir, c.name, s, p)
		}
	}
	testClients(t, root, clients)
}

// runNode runs client.mjs with the plan on its stdin, and reads the report it prints.
func runNode(ctx context.Context, node, dir, kind string, s server, p plan) (report, error) {
	args := []string{"client.mjs", kind, s.url}
	if s.url == "" {
		args = []string{"client.mjs", kind, "--stdio", s.exe}
	}
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), s.env...)
	in, err := json.Marshal(p)
	if err != nil {
		return report{}, err
	}
	cmd.Stdin = bytes.NewReader(in)
	// Over stdio the server's log comes through node's stderr.
	logFile, err := os.Create(s.log)
	if err != nil {
		return report{}, err
	}
	defer logFile.Close()
	cmd.Stderr = logFile
	out, err := cmd.Output()
	if err != nil {
		return report{}, fmt.Errorf("node %s: %v", strings.Join(args, " "), err)
	}
	var r report
	if err := json.Unmarshal(out, &r); err != nil {
		return report{}, fmt.Errorf("node %s printed %q, not a report: %v", strings.Join(args, " "), out, err)
	}
	return r, nil
}

// nodeBinary returns the node that runs client.mjs: the Node 22 npm installs beside the
// clients on Linux x64, or the one on PATH (the clients need Node 20 or later). Without node
// or the clients, it skips or fails the test (skipOrFail).
func nodeBinary(t *testing.T, dir string) string {
	t.Helper()
	for _, pkg := range []string{"sdk", "client"} {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", pkg)); err != nil {
			skipOrFail(t, "the TypeScript MCP clients are not installed; run `make interop-deps` (make check does)")
		}
	}
	if node := filepath.Join(dir, "node_modules", ".bin", "node"); isExecutable(node) {
		return node
	}
	node, err := exec.LookPath("node")
	if err != nil {
		skipOrFail(t, "node is not installed")
	}
	return node
}

func isExecutable(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.Mode()&0o111 != 0
}

// skipIfShort skips a check that needs the clients from npm under -short, as make test runs:
// installing them needs the network, and running them minutes. The Go SDK's client still runs.
func skipIfShort(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("drives every step with clients from npm; `make check` installs them and runs it")
	}
}

// skipOrFail skips on a reader's machine, where node is optional, but fails in CI, where a
// skipped interop check would hide a broken client.
func skipOrFail(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf("%s (CI must run this check)", why)
	}
	t.Skip(why)
}

// testClients drives every step with every client, over HTTP and, where the step offers it,
// over stdio. Each run has a private copy of the sample vault and its own index.
func testClients(t *testing.T, root string, clients []client) {
	steps, err := transcript.Steps(root)
	if err != nil || len(steps) == 0 {
		t.Fatalf("no steps found under %s: %v", root, err)
	}
	for _, step := range steps {
		t.Run(step.Name, func(t *testing.T) {
			t.Parallel() // each run has its own port, vault and index
			exe, stdio := binary(t, root, step)
			transports := []string{"http"}
			if stdio {
				transports = append(transports, "stdio")
			}
			for _, transport := range transports {
				for _, c := range clients {
					t.Run(transport+"/"+c.name, func(t *testing.T) {
						testClient(t, root, step.Name, exe, transport, c)
					})
				}
			}
		})
	}
}

func testClient(t *testing.T, root, step, exe, transport string, c client) {
	dir := t.TempDir()
	vault := filepath.Join(dir, "vault")
	if err := os.CopyFS(vault, os.DirFS(filepath.Join(root, "sample-vault"))); err != nil {
		t.Fatalf("copy the sample vault: %v", err)
	}
	s := server{
		exe: exe,
		env: []string{"VAULT_PATH=" + vault, "VAULTMCP_DB=" + filepath.Join(dir, "index.db"), "VAULTMCP_EMBEDDER=offline"},
		log: filepath.Join(dir, "stderr.log"),
	}
	var srv *transcript.Server
	if transport == "http" {
		var err error
		if srv, err = transcript.Start(exe, s.env); err != nil {
			t.Fatal(err)
		}
		defer srv.Stop()
		s.url = srv.URL
	}

	p := newPlan(fmt.Sprintf("Interop note from %s over %s", c.name, transport))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	got, err := c.drive(ctx, s, p)
	var problems []string
	if err != nil {
		problems = []string{err.Error()}
	} else {
		problems = check(got, c.version)
	}
	// A warning in the log means something is wrong; an official client doing what clients
	// do, bad arguments included, is not.
	stderr, _ := os.ReadFile(s.log)
	logs := string(stderr)
	if srv != nil {
		logs = srv.Logs()
	}
	for line := range strings.Lines(logs) {
		if strings.Contains(line, "level=WARN") || strings.Contains(line, "level=ERROR") {
			problems = append(problems, "the server logged: "+strings.TrimSpace(line))
		}
	}
	if len(problems) == 0 {
		return
	}
	msg := fmt.Sprintf("%s, over %s, on %s:\n  %s", c.about, transport, step, strings.Join(problems, "\n  "))
	if srv != nil {
		msg += "\nserver log:\n" + srv.Logs()
		if len(stderr) > 0 {
			msg += "client stderr:\n" + string(stderr)
		}
	} else {
		msg += "\nserver log (with anything the client wrote to stderr):\n" + string(stderr)
	}
	t.Error(msg)
}

// The sample vault's note that a client reads as a resource, and a line in it; and what a
// person types of a path, and the note it completes to.
const (
	resourceURI  = "note:///Inbox/Seed%20swap%20at%20the%20library.md"
	resourceText = "Seed swap"
	typedPath    = "tomat"
	completed    = "Garden/Tomatoes.md"
)

func newPlan(title string) plan {
	p := plan{UnknownTool: "no_such_tool", Resources: resourcesPlan{Read: resourceURI, Missing: "note:///Garden/Potatoes.md", Complete: typedPath}}
	for _, tc := range toolCases(title) {
		good := call{Tool: tc.tool, Arguments: tc.args, Want: tc.want}
		if tc.settle {
			good.Until = tc.want
		}
		p.Calls = append(p.Calls, good)
		for _, args := range tc.bad {
			p.Calls = append(p.Calls, call{Tool: tc.tool, Arguments: args, Bad: true})
		}
	}
	return p
}

// check returns what is wrong with a report, one line each.
func check(r report, version string) (problems []string) {
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if r.Error != "" {
		add("the client gave up: %s", r.Error)
		return problems
	}
	if r.ProtocolVersion != version {
		add("negotiated protocol version %q, want %q", r.ProtocolVersion, version)
		if version >= "2026-07-28" && r.ProtocolVersion < version {
			add("(the client fell back to the 2025 initialize handshake: the server did not take server/discover for %s)", version)
		}
	}
	if r.Server["name"] != "vaultmcp" {
		add("the server calls itself %v, want name vaultmcp", r.Server)
	}
	known := map[string]bool{}
	for _, tc := range toolCases("") {
		known[tc.tool] = true
	}
	called := map[string]bool{}
	for _, a := range r.Calls {
		called[a.Tool] = true
	}
	for _, tool := range r.Tools {
		switch {
		case !known[tool]:
			add("the server lists %s, which toolCases (tools_test.go) has no entry for: give it valid and bad arguments there", tool)
		case !called[tool]:
			add("the client never called %s, which the server lists", tool)
		}
	}
	for _, a := range r.Calls {
		args, _ := json.Marshal(a.Arguments)
		switch {
		case a.Error != nil:
			add("%s %s: %s, want a result", a.Tool, args, describe(a))
		case a.Result == nil:
			add("%s %s: no result and no error", a.Tool, args)
		case a.Bad && !a.Result.IsError:
			add("%s %s: %s, want a tool error (isError) the model can act on", a.Tool, args, a.Result.shown())
		case !a.Bad && (a.Result.IsError || !strings.Contains(a.Result.text(), a.Want)):
			add("%s %s: isError %v, %s; want a success holding %q", a.Tool, args, a.Result.IsError, a.Result.shown(), a.Want)
		}
	}
	// An unknown tool is a protocol error, not a tool error: -32602, invalid params.
	if u := r.UnknownTool; u.Error == nil || u.Error.Code != -32602 {
		add("calling a tool that does not exist: %s, want protocol error -32602", describe(u))
	}
	switch res := r.Resources; {
	case res != nil:
		problems = append(problems, res.check()...)
	case slices.Contains(r.Tools, "get_note"): // every step that reads notes offers them
		add("the client saw no resources capability, on a step that reads notes")
	}
	if slices.Contains(r.Tools, "get_backlinks") && (r.Resources == nil || r.Resources.Completed == nil) {
		add("the client completed no path, on a step that knows every note's name") // from step 7
	}
	return problems
}

// check returns what is wrong with what a client saw of the resources, one line each.
func (res *resourcesReport) check() (problems []string) {
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if !slices.Equal(res.Templates, []string{"note:///{+path}"}) {
		add("resources/templates/list = %q, want the one note template", res.Templates)
	}
	if !slices.Contains(res.Listed, resourceURI) || res.NextCursor != "" {
		add("resources/list = %q (next cursor %q), want every note of the sample vault on one page", res.Listed, res.NextCursor)
	}
	markdown := slices.IndexFunc(res.Read, func(c resourceContent) bool { return c.MIMEType == "text/markdown" })
	switch {
	case res.ReadError != nil:
		add("resources/read %s: protocol error %d %q, want the note", resourceURI, res.ReadError.Code, res.ReadError.Message)
	case markdown < 0 || res.Read[markdown].URI != resourceURI || !strings.Contains(res.Read[markdown].Text, resourceText):
		add("resources/read %s = %+v, want the note as text/markdown", resourceURI, res.Read)
	}
	if m := res.Missing; m.Error == nil || !strings.Contains(m.Error.Message, "not found") {
		add("resources/read of a missing note = %+v, want an error that says it is not found", m)
	}
	if res.Completed != nil && (len(res.Completed) == 0 || res.Completed[0] != completed) {
		add("completion/complete %q = %q, want %s first", typedPath, res.Completed, completed)
	}
	return problems
}

func describe(a answer) string {
	switch {
	case a.Error != nil && a.Error.Code == 0: // no JSON-RPC code: the client's own error
		return fmt.Sprintf("the client failed the call: %q", a.Error.Message)
	case a.Error != nil:
		return fmt.Sprintf("protocol error %d %q", a.Error.Code, a.Error.Message)
	case a.Result != nil:
		return fmt.Sprintf("a result, isError %v, %s", a.Result.IsError, a.Result.shown())
	}
	return "no answer"
}

// binDir holds the step binaries, built once per test run.
var binDir string

var (
	buildMu sync.Mutex
	builds  = map[string]*build{} // by step name
)

type build struct {
	once  sync.Once
	exe   string
	stdio bool // its -h mentions -transport: it serves stdio too
	err   error
}

// binary builds a step once per test run, and says whether it offers -transport stdio.
func binary(t *testing.T, root string, step transcript.Step) (exe string, stdio bool) {
	t.Helper()
	buildMu.Lock()
	b, ok := builds[step.Name]
	if !ok {
		b = &build{}
		builds[step.Name] = b
	}
	buildMu.Unlock()
	b.once.Do(func() {
		if b.exe, b.err = transcript.Build(context.Background(), root, step, binDir); b.err == nil {
			usage, _ := exec.Command(b.exe, "-h").CombinedOutput()
			b.stdio = strings.Contains(string(usage), "-transport")
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.exe, b.stdio
}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "vaultmcp-interop-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
