package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"vaultmcp/shared/steptest"
	"vaultmcp/shared/vault"
)

// TestReadResourceStaysInsideTheVault: a resource URI comes from a client, which may have built
// it from anything. Each hostile one is an error that shows nothing outside the vault.
func TestReadResourceStaysInsideTheVault(t *testing.T) {
	base := t.TempDir()
	vaultDir := filepath.Join(base, "vault")
	steptest.Write(t, filepath.Join(base, "secret.md"), "TOP SECRET")
	steptest.Write(t, filepath.Join(vaultDir, "Notes", "inside.md"), "inside the vault")
	if err := os.Symlink(filepath.Join(base, "secret.md"), filepath.Join(vaultDir, "Notes", "link.md")); err != nil {
		t.Skipf("cannot create symlinks here: %v", err)
	}
	url := startServer(t, vaultDir)

	for _, uri := range []string{
		"note:///../secret.md", "note:///Notes/../../secret.md", "note:///%2E%2E/secret.md",
		"note:///Notes%2F..%2F..%2Fsecret.md", "note:///..%5Csecret.md", "note:///" + filepath.ToSlash(filepath.Join(base, "secret.md")),
		"note:////secret.md", "file://" + filepath.ToSlash(filepath.Join(base, "secret.md")), "note:///Notes/link.md",
		"note:///Notes/inside.md%00.png", "note:///Notes/inside.md\x00", "note:///" + strings.Repeat("a/", 3000) + "b.md",
		"note:///", "note:///Notes/missing.md", "note:///C:/secret.md",
	} {
		result, rpcErr := steptest.RPC(t, url, "resources/read", map[string]any{"uri": uri})
		if rpcErr == nil || strings.Contains(string(result), "TOP SECRET") {
			t.Errorf("resources/read %.80q = %s, want an error", uri, result)
			continue
		}
		if strings.Contains(rpcErr.Message, base) && !strings.Contains(uri, filepath.ToSlash(base)) {
			t.Errorf("resources/read %.80q reveals where the vault is on disk: %q", uri, rpcErr.Message)
		}
		if len(rpcErr.Message) > 4096 {
			t.Errorf("resources/read %.80q: the error is %d bytes long", uri, len(rpcErr.Message))
		}
	}
	// After all that, the server still serves the note that is really there, by its URI.
	result, rpcErr := steptest.RPC(t, url, "resources/read", map[string]any{"uri": "note:///Notes/inside.md"})
	if rpcErr != nil || !strings.Contains(string(result), `"text":"inside the vault"`) || !strings.Contains(string(result), `"mimeType":"text/markdown"`) {
		t.Errorf("resources/read note:///Notes/inside.md = %s, %v", result, rpcErr)
	}
}

// TestListResourcesPages: resources/list pages through every note, notesPerPage at a time,
// each by the URI that reads it.
func TestListResourcesPages(t *testing.T) {
	vaultDir := t.TempDir()
	var want []string
	for i := range notesPerPage + 5 {
		note := fmt.Sprintf("Folder %d/Note %02d.md", i%3, i)
		steptest.Write(t, filepath.Join(vaultDir, filepath.FromSlash(note)), fmt.Sprintf("note %d", i))
		want = append(want, note)
	}
	steptest.Write(t, filepath.Join(vaultDir, ".obsidian", "hidden.md"), "not a note")
	slices.Sort(want)
	url := startServer(t, vaultDir)

	var got []string
	params := map[string]any{}
	for page := 1; ; page++ {
		result, rpcErr := steptest.RPC(t, url, "resources/list", params)
		var list struct {
			Resources  []struct{ URI, Name, MIMEType string }
			NextCursor string
		}
		if rpcErr != nil || json.Unmarshal(result, &list) != nil || len(list.Resources) > notesPerPage {
			t.Fatalf("resources/list page %d = %s, %v", page, result, rpcErr)
		}
		for i, r := range list.Resources {
			got = append(got, r.Name)
			if i%100 != 0 {
				continue // read a few
			}
			text, rpcErr := steptest.RPC(t, url, "resources/read", map[string]any{"uri": r.URI})
			if rpcErr != nil || !strings.Contains(string(text), "note ") {
				t.Errorf("resources/read %q, listed for %q = %s, %v", r.URI, r.Name, text, rpcErr)
			}
		}
		if list.NextCursor == "" {
			break
		}
		params["cursor"] = list.NextCursor
	}
	if !slices.Equal(got, want) {
		t.Errorf("resources/list, every page = %q\nwant %q", got, want)
	}
	if _, rpcErr := steptest.RPC(t, url, "resources/list", map[string]any{"cursor": "not a cursor!"}); rpcErr == nil || rpcErr.Code != -32602 {
		t.Errorf("resources/list with a broken cursor = %v, want -32602 invalid params", rpcErr)
	}
}

// TestResourcePanicIsAnError: a fault in a resources/read handler is answered as an internal
// error, and the server goes on to answer the next request.
func TestResourcePanicIsAnError(t *testing.T) {
	vaultDir := t.TempDir()
	steptest.Write(t, filepath.Join(vaultDir, "Faulty.md"), "found on disk, so the request reaches mcp-go")
	steptest.Write(t, filepath.Join(vaultDir, "Fine.md"), "fine")
	notes, err := vault.Open(vaultDir)
	if err != nil {
		t.Fatal(err)
	}
	defer notes.Close()
	logger := slog.New(slog.DiscardHandler)
	hooks := &server.Hooks{}
	mcpServer := newMCPServer(hooks)
	addResources(mcpServer, hooks, notes, logger)
	// mcp-go tries a resource registered by its URI before the note template.
	mcpServer.AddResource(mcp.NewResource("note:///Faulty.md", "Faulty.md"),
		func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			panic("a fault in the handler")
		})
	ln, err := listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := newHTTPServer(ln, mcpServer, findNotes(notes), logger)
	if err != nil {
		t.Fatal(err)
	}
	srv.ErrorLog = log.New(io.Discard, "", 0) // where net/http reports a panic it recovered
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	url := "http://" + ln.Addr().String() + "/mcp"

	body := `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"note:///Faulty.md"}}`
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	var answer struct{ Error *steptest.RPCError }
	if resp, err := http.DefaultClient.Do(req); err != nil {
		t.Errorf("resources/read of a panicking handler: no answer (%v), want a JSON-RPC error", err)
	} else {
		defer resp.Body.Close()
		if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil || answer.Error == nil || answer.Error.Code != -32603 {
			t.Errorf("resources/read of a panicking handler = %+v (%v), want -32603, internal error", answer.Error, err)
		}
	}

	result, rpcErr := steptest.RPC(t, url, "resources/read", map[string]any{"uri": "note:///Fine.md"})
	if rpcErr != nil || !strings.Contains(string(result), `"text":"fine"`) {
		t.Errorf("resources/read after the panic = %s, %v; want the note", result, rpcErr)
	}
}
