package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vaultmcp/shared/steptest"
)

// settle is how long a test lets the server handle a change that must bring no notification
// before it makes the next: the watcher's debounce window (half a second), and more. A
// notification the server should not have sent then comes before the next one and fails the
// test. How soon a client hears of a change is for the benchmarks to measure: a test waits
// for it as long as steptest.Patience, so that a busy machine does not fail it.
const settle = time.Second

// message is one JSON-RPC message from the server: an answer or a notification.
type message struct {
	ID     any    `json:"id"`
	Method string `json:"method"`
	Params struct {
		URI  string         `json:"uri"`
		Meta map[string]any `json:"_meta"`
	} `json:"params"`
	Result json.RawMessage `json:"result"`
}

// received holds what a client has received, for a test to wait on.
type received chan message

// next returns the next message, or fails the test when none comes within d.
func (in received) next(t *testing.T, d time.Duration, waitingFor string) message {
	t.Helper()
	select {
	case m, ok := <-in:
		if !ok {
			t.Fatalf("the connection closed while waiting for %s", waitingFor)
		}
		return m
	case <-time.After(d):
		t.Fatalf("no %s within %v", waitingFor, d)
		return message{}
	}
}

// expect saves a change with do, and waits for the notification of it: want(m) is true.
// Every notification before it must be one allowed(m) accepts.
func (in received) expect(t *testing.T, what string, do func(), want, allowed func(message) bool) message {
	t.Helper()
	do()
	saved := time.Now()
	for {
		m := in.next(t, steptest.Patience-time.Since(saved), what)
		if want(m) {
			t.Logf("%s: %v after the save", what, time.Since(saved).Round(time.Millisecond))
			return m
		}
		if !allowed(m) {
			t.Fatalf("while waiting for %s, got %s %q", what, m.Method, m.Params.URI)
		}
	}
}

func updatedAbout(uri string) func(message) bool {
	return func(m message) bool {
		return m.Method == "notifications/resources/updated" && m.Params.URI == uri
	}
}

func listChanged(m message) bool { return m.Method == "notifications/resources/list_changed" }

func nothingElse(message) bool { return false }

// followAndHear drives one client through what a person's edits look like to it, following
// Garden/Tomatoes by a URI in another case and without ".md". listenID is the id every
// notification must carry (nil for a 2025 client).
func followAndHear(t *testing.T, vaultDir string, in received, listenID any, stopFollowing func()) {
	t.Helper()
	tagged := func(m message) {
		if got := m.Params.Meta["io.modelcontextprotocol/subscriptionId"]; listenID != nil && got != listenID {
			t.Errorf("%s carries subscriptionId %v, want %v", m.Method, got, listenID)
		}
	}
	const followed = "note:///garden/TOMATOES"
	edit := func(note string) func() {
		return func() {
			f, err := os.OpenFile(filepath.Join(vaultDir, filepath.FromSlash(note)), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString("\nOne more line.\n")
			f.Close()
		}
	}
	create := func(note string) func() {
		return func() { steptest.Write(t, filepath.Join(vaultDir, note), "# "+note) }
	}
	tagged(in.expect(t, "the update of a followed note", edit("Garden/Tomatoes.md"), updatedAbout(followed), nothingElse))
	tagged(in.expect(t, "the list change of a new note", create("First new note.md"), listChanged, nothingElse))
	// A note nobody follows is edited without a word; the next list change comes alone.
	edit("Home.md")()
	time.Sleep(settle)
	tagged(in.expect(t, "the list change of a deleted note", func() { os.Remove(filepath.Join(vaultDir, "First new note.md")) }, listChanged, nothingElse))
	if stopFollowing != nil {
		stopFollowing()
		edit("Garden/Tomatoes.md")()
		time.Sleep(settle)
		in.expect(t, "the list change after unsubscribing", create("Second new note.md"), listChanged, nothingElse)
	}
}

// TestNotifyOverHTTP: a 2026-07-28 client opens a subscriptions/listen stream and hears, on
// it, of the note it follows and of the list of notes.
func TestNotifyOverHTTP(t *testing.T) {
	vaultDir := steptest.CopyVault(t)
	url := startServer(t, vaultDir)
	body := `{"jsonrpc":"2.0","id":"listen-1","method":"subscriptions/listen","params":{"notifications":{"resourcesListChanged":true,"resourceSubscriptions":["note:///garden/TOMATOES"]},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "subscriptions/listen")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != http.StatusOK || !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("subscriptions/listen: %s, %s; want a 200 event stream", resp.Status, ct)
	}
	in := make(received, 16)
	go func() {
		defer close(in)
		events := bufio.NewScanner(resp.Body)
		for events.Scan() {
			var m message
			if data, ok := strings.CutPrefix(events.Text(), "data: "); ok && json.Unmarshal([]byte(data), &m) == nil {
				in <- m
			}
		}
	}()
	if ack := in.next(t, steptest.Patience, "the acknowledgement"); ack.Method != "notifications/subscriptions/acknowledged" {
		t.Fatalf("the stream opens with %s, want notifications/subscriptions/acknowledged", ack.Method)
	}
	followAndHear(t, vaultDir, in, "listen-1", nil)
}

// TestNotifyOverStdio: over stdio, a 2025-11-25 client follows a note with resources/subscribe
// after its handshake and hears every list change; a 2026-07-28 client asks for both on a
// subscriptions/listen request, as over HTTP.
func TestNotifyOverStdio(t *testing.T) {
	for _, revision := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(revision, func(t *testing.T) {
			vaultDir := steptest.CopyVault(t)
			env := map[string]string{"VAULT_PATH": vaultDir, "VAULTMCP_TRANSPORT": "stdio", "VAULTMCP_EMBEDDER": "offline",
				"VAULTMCP_DB": filepath.Join(t.TempDir(), "index.db")}
			stdin, toServer := io.Pipe()
			fromServer, stdout := io.Pipe()
			done := make(chan error, 1)
			go func() {
				done <- run(t.Context(), []string{"vaultmcp"}, func(k string) string { return env[k] }, stdin, stdout, io.Discard)
				stdout.Close()
			}()
			t.Cleanup(func() {
				toServer.Close()
				if err := <-done; err != nil {
					t.Errorf("run: %v", err)
				}
			})
			in := make(received, 16)
			go func() {
				defer close(in)
				lines := bufio.NewScanner(fromServer)
				lines.Buffer(nil, 1<<20)
				for lines.Scan() {
					var m message
					if json.Unmarshal(lines.Bytes(), &m) == nil {
						in <- m
					}
				}
			}()
			send := func(msg string) { io.WriteString(toServer, msg+"\n") }
			answer := func(id string) {
				t.Helper()
				if m := in.next(t, steptest.Patience, "the answer "+id); m.ID != id || m.Result == nil {
					t.Fatalf("got %s %v %s, want the answer to %s", m.Method, m.ID, m.Result, id)
				}
			}
			meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
			// Changes made while a server catches up with the disk wait for the catch-up; so
			// does the test, until index_status says it is done (a step without a catch-up
			// has no state).
			waitReady := func() {
				t.Helper()
				for deadline := time.Now().Add(steptest.Patience); ; {
					send(`{"jsonrpc":"2.0","id":"status","method":"tools/call","params":{"name":"index_status","arguments":{}}}`)
					m := in.next(t, steptest.Patience, "index_status")
					var result struct{ Content []struct{ Text string } }
					var status struct{ State *string }
					if json.Unmarshal(m.Result, &result) == nil && len(result.Content) > 0 &&
						json.Unmarshal([]byte(result.Content[0].Text), &status) == nil && (status.State == nil || *status.State == "ready") {
						break
					}
					if time.Now().After(deadline) {
						t.Fatalf("the index was not ready within %v: %s", steptest.Patience, m.Result)
					}
					time.Sleep(20 * time.Millisecond)
				}
			}
			if revision == "2025-11-25" {
				send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`)
				// A stdio session lasts, so it is promised what it then hears; over stateless
				// HTTP the transcript shows the same answer without the two.
				var init struct {
					Capabilities struct{ Resources map[string]bool }
				}
				if m := in.next(t, steptest.Patience, "the answer to initialize"); json.Unmarshal(m.Result, &init) != nil ||
					!init.Capabilities.Resources["subscribe"] || !init.Capabilities.Resources["listChanged"] {
					t.Fatalf("initialize over stdio: %s; want resources.subscribe and resources.listChanged", m.Result)
				}
				send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
				waitReady()
				send(`{"jsonrpc":"2.0","id":"sub","method":"resources/subscribe","params":{"uri":"note:///garden/TOMATOES"}}`)
				answer("sub")
				followAndHear(t, vaultDir, in, nil, func() {
					send(`{"jsonrpc":"2.0","id":"unsub","method":"resources/unsubscribe","params":{"uri":"note:///garden/TOMATOES"}}`)
					answer("unsub")
				})
				return
			}
			waitReady()
			send(`{"jsonrpc":"2.0","id":"listen-1","method":"subscriptions/listen","params":{"notifications":{"resourcesListChanged":true,"resourceSubscriptions":["note:///garden/TOMATOES"]},` + meta + `}}`)
			if ack := in.next(t, steptest.Patience, "the acknowledgement"); ack.Method != "notifications/subscriptions/acknowledged" {
				t.Fatalf("the stream opens with %s, want notifications/subscriptions/acknowledged", ack.Method)
			}
			followAndHear(t, vaultDir, in, "listen-1", nil)
		})
	}
}
