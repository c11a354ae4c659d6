package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"vaultmcp/shared/steptest"
)

// follow opens a 2026-07-28 subscriptions/listen stream that follows uri, and returns what
// arrives on it once the server has acknowledged it.
func follow(t *testing.T, url, uri string) received {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":"listen","method":"subscriptions/listen","params":{"notifications":{"resourceSubscriptions":["` + uri + `"]},` +
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
	t.Cleanup(func() { resp.Body.Close() })
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
	return in
}

// versionOf reads a note with get_note and returns its version.
func versionOf(t *testing.T, url, path string) string {
	t.Helper()
	text, isError := callTool(t, url, "get_note", path)
	var note struct{ Version string }
	if isError || json.Unmarshal([]byte(text), &note) != nil || note.Version == "" {
		t.Fatalf("get_note(%s) gave no version: %s", path, text)
	}
	return note.Version
}

func sha(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// TestAppendReachesEveryReader appends to a note through the server, as a model would after
// reading it, and follows the change everywhere the note is read: a client that follows the
// note hears of it, search finds the new words, the link graph gains the new link, and
// resources/read gives the new text. The note's bytes are the old ones with one line added.
func TestAppendReachesEveryReader(t *testing.T) {
	vaultDir := steptest.CopyVault(t)
	file := filepath.Join(vaultDir, "Garden", "Tomatoes.md")
	before, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	url := startServer(t, vaultDir, "-embedder", "offline")
	in := follow(t, url, "note:///Garden/Tomatoes.md")

	read := versionOf(t, url, "Garden/Tomatoes")
	if read != sha(before) {
		t.Fatalf("get_note's version is %s, not the SHA-256 of the note's bytes, %s", read, sha(before))
	}
	const line = "- Nettle tea from the [[Seed swap at the library]] works as well as comfrey."
	var answer string
	start := time.Now()
	in.expect(t, "the update of the note appended to", func() {
		var isError bool
		answer, isError = steptest.CallTool(t, url, "append_to_note", map[string]any{"path": "Garden/Tomatoes.md", "heading": "Watering and feeding", "text": line, "if_match": read})
		if isError {
			t.Fatalf("append_to_note: %s", answer)
		}
	}, updatedAbout("note:///Garden/Tomatoes.md"), nothingElse)

	after, _ := os.ReadFile(file)
	want := strings.Replace(string(before), "comfrey tea works as well as anything bought.\n", "comfrey tea works as well as anything bought.\n"+line+"\n", 1)
	if string(after) != want {
		t.Errorf("the note is not the old one with the line added at the end of its section:\n%s", after)
	}
	if !strings.Contains(answer, "Its version is now "+sha(after)+".") {
		t.Errorf("append_to_note answered %q; want the new version, %s", answer, sha(after))
	}

	steptest.Eventually(t, steptest.Patience, finds(t, url, "nettle tea", "Garden/Tomatoes.md"))
	t.Logf("the added words were found by search %v after the append was sent", time.Since(start).Round(10*time.Millisecond))
	steptest.Eventually(t, steptest.Patience, func() string {
		if got := backlinksOf(t, url, "Inbox/Seed swap at the library.md"); !slices.Contains(got, "Garden/Tomatoes.md") {
			return fmt.Sprintf("the seed swap's backlinks are %v, without the link just added", got)
		}
		return ""
	})
	result, rpcErr := steptest.RPC(t, url, "resources/read", map[string]any{"uri": "note:///Garden/Tomatoes.md"})
	if rpcErr != nil || !strings.Contains(string(result), "Nettle tea") {
		t.Errorf("resources/read does not give the added text: %+v %.200s", rpcErr, result)
	}

	// The version read before the append is stale now.
	text, isError := steptest.CallTool(t, url, "append_to_note", map[string]any{"path": "Garden/Tomatoes.md", "text": "- again", "if_match": read})
	if !isError || !strings.Contains(text, "has changed since the version you sent") {
		t.Errorf("an append to the old version: %q, error %v; want a refusal", text, isError)
	}
	if again, _ := os.ReadFile(file); string(again) != string(after) {
		t.Error("the refused append changed the note")
	}
}

// TestRacingAppends sends ten appends with one version at once, over HTTP: exactly one lands.
func TestRacingAppends(t *testing.T) {
	vaultDir := steptest.CopyVault(t)
	url := startServer(t, vaultDir, "-embedder", "offline")
	read := versionOf(t, url, "Garden/Compost")

	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		answers []string
	)
	for i := range 10 {
		wg.Go(func() {
			args, _ := json.Marshal(map[string]any{"path": "Garden/Compost.md", "text": fmt.Sprintf("- racer %d", i), "if_match": read})
			body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"append_to_note","arguments":` + string(args) + `}}`
			resp, err := http.Post(url, "application/json", strings.NewReader(body))
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			var msg struct {
				Result struct {
					Content []struct{ Text string }
					IsError bool
				}
			}
			json.NewDecoder(resp.Body).Decode(&msg)
			mu.Lock()
			defer mu.Unlock()
			if len(msg.Result.Content) > 0 && !msg.Result.IsError {
				answers = append(answers, msg.Result.Content[0].Text)
			}
		})
	}
	wg.Wait()
	note, _ := os.ReadFile(filepath.Join(vaultDir, "Garden", "Compost.md"))
	if len(answers) != 1 || strings.Count(string(note), "- racer") != 1 {
		t.Errorf("%d appends were answered as added, and the note holds %d; want 1 and 1: %q", len(answers), strings.Count(string(note), "- racer"), answers)
	}
}

// TestStartRemovesLeftovers: a write cut short by a crash leaves a temporary file of ours,
// which the next start removes; a read-only start changes nothing, not even that.
func TestStartRemovesLeftovers(t *testing.T) {
	vaultDir := steptest.CopyVault(t)
	leftover := filepath.Join(vaultDir, "Garden", ".vaultmcp-0123456789abcdef.tmp")
	steptest.Write(t, leftover, "half of an append")
	old := time.Now().Add(-time.Minute)
	os.Chtimes(leftover, old, old)

	startServer(t, vaultDir, "-embedder", "offline", "-read-only")
	if _, err := os.Stat(leftover); err != nil {
		t.Fatalf("a read-only start removed a file: %v", err)
	}
	startServer(t, vaultDir, "-embedder", "offline")
	steptest.Eventually(t, steptest.Patience, func() string {
		if _, err := os.Stat(leftover); !os.IsNotExist(err) {
			return fmt.Sprintf("the leftover temporary file is still there after a start: %v", err)
		}
		return ""
	})
}
