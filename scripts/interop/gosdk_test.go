package interop

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"vaultmcp/scripts/transcript"
)

// TestGoSDKClient drives every step with the official Go SDK's client, with its default
// settings. It needs nothing but Go, so it always runs.
func TestGoSDKClient(t *testing.T) {
	root, err := transcript.Root()
	if err != nil {
		t.Fatal(err)
	}
	testClients(t, root, []client{{
		name: "go-sdk", about: "the Go SDK v1.8.0 client", version: "2026-07-28", drive: runGoSDK,
	}})
}

// runGoSDK carries out the plan with the Go SDK's client, as client.mjs does with the
// TypeScript ones, and reports what it saw the same way.
func runGoSDK(ctx context.Context, s server, p plan) (report, error) {
	var transport mcp.Transport = &mcp.StreamableClientTransport{Endpoint: s.url}
	if s.url == "" {
		logFile, err := os.Create(s.log)
		if err != nil {
			return report{}, err
		}
		defer logFile.Close()
		cmd := exec.Command(s.exe, "-transport", "stdio")
		cmd.Env = append(os.Environ(), s.env...)
		cmd.Stderr = logFile
		transport = &mcp.CommandTransport{Command: cmd}
	}
	sdk := mcp.NewClient(&mcp.Implementation{Name: "vaultmcp-interop", Version: "1.0.0"}, nil)
	session, err := sdk.Connect(ctx, transport, nil)
	if err != nil {
		return report{Error: "connect: " + err.Error()}, nil
	}
	defer session.Close()
	// No session.Ping here: the Go SDK sends ping without the _meta every 2026-07-28 request
	// carries, so a modern server rightly refuses it (HTTP 400). The tools are called below.

	info := session.InitializeResult()
	r := report{ProtocolVersion: info.ProtocolVersion}
	if info.ServerInfo != nil {
		r.Server = map[string]string{"name": info.ServerInfo.Name, "version": info.ServerInfo.Version}
	}
	for tool, err := range session.Tools(ctx, nil) {
		if err != nil {
			r.Error = "tools/list: " + err.Error()
			return r, nil
		}
		r.Tools = append(r.Tools, tool.Name)
	}
	for _, c := range p.Calls {
		if slices.Contains(r.Tools, c.Tool) {
			r.Calls = append(r.Calls, callGo(ctx, session, c))
		}
	}
	r.UnknownTool = callGo(ctx, session, call{Tool: p.UnknownTool, Arguments: map[string]any{}})
	if info.Capabilities != nil && info.Capabilities.Resources != nil {
		r.Resources = resourcesGo(ctx, session, p.Resources, info.Capabilities.Completions != nil)
	}
	return r, nil
}

// resourcesGo does with the resources what client.mjs does: list the templates and the
// first page of notes, read a note and a note that does not exist, and complete a path.
func resourcesGo(ctx context.Context, session *mcp.ClientSession, p resourcesPlan, completes bool) *resourcesReport {
	res := &resourcesReport{}
	rpcErrorOf := func(err error) *rpcError {
		var rpcErr *jsonrpc.Error
		if errors.As(err, &rpcErr) {
			return &rpcError{Code: int(rpcErr.Code), Message: rpcErr.Message}
		}
		return &rpcError{Message: err.Error()}
	}
	if templates, err := session.ListResourceTemplates(ctx, nil); err == nil {
		for _, t := range templates.ResourceTemplates {
			res.Templates = append(res.Templates, t.URITemplate)
		}
	}
	if page, err := session.ListResources(ctx, nil); err == nil {
		for _, r := range page.Resources {
			res.Listed = append(res.Listed, r.URI)
		}
		res.NextCursor = page.NextCursor
	}
	contents := func(read *mcp.ReadResourceResult) (out []resourceContent) {
		for _, c := range read.Contents {
			out = append(out, resourceContent{URI: c.URI, MIMEType: c.MIMEType, Text: c.Text})
		}
		return out
	}
	if read, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: p.Read}); err != nil {
		res.ReadError = rpcErrorOf(err)
	} else {
		res.Read = contents(read)
	}
	if read, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: p.Missing}); err != nil {
		res.Missing.Error = rpcErrorOf(err)
	} else {
		res.Missing.Contents = contents(read)
	}
	if completes && len(res.Templates) > 0 {
		res.Completed = []string{} // asked, even if nothing comes back
		done, err := session.Complete(ctx, &mcp.CompleteParams{
			Ref:      &mcp.CompleteReference{Type: "ref/resource", URI: res.Templates[0]},
			Argument: mcp.CompleteParamsArgument{Name: "path", Value: p.Complete},
		})
		if err == nil {
			res.Completed = append(res.Completed, done.Completion.Values...)
		}
	}
	return res
}

// callGo runs one tools/call, repeated as client.mjs repeats a call with until.
func callGo(ctx context.Context, session *mcp.ClientSession, c call) answer {
	deadline := time.Now().Add(10 * time.Second)
	for {
		a := answer{call: c}
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: c.Tool, Arguments: c.Arguments})
		var rpcErr *jsonrpc.Error
		switch {
		case errors.As(err, &rpcErr):
			a.Error = &rpcError{Code: int(rpcErr.Code), Message: rpcErr.Message}
		case err != nil:
			a.Error = &rpcError{Message: err.Error()} // not from the server: code 0
		default:
			// The report reads results as JSON, whichever client saw them.
			b, _ := json.Marshal(res)
			json.Unmarshal(b, &a.Result)
		}
		if c.Until == "" || a.Result != nil && strings.Contains(a.Result.text(), c.Until) || time.Now().After(deadline) {
			return a
		}
		time.Sleep(100 * time.Millisecond)
	}
}
