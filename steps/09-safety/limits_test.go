package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"vaultmcp/shared/guard"
	"vaultmcp/shared/ollamatest"
	"vaultmcp/shared/steptest"
)

// callOn sends one tools/call with client, which may be used from any goroutine, and returns
// the HTTP status and the tool's answer: its text and whether it is an error.
func callOn(client *http.Client, url, tool string, arguments map[string]any) (status int, text string, isError bool, err error) {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": arguments}})
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", false, err
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var msg struct {
		Result struct {
			Content []struct{ Text string }
			IsError bool
		}
	}
	json.Unmarshal(data, &msg)
	for _, c := range msg.Result.Content {
		text = c.Text
	}
	if text == "" {
		text = string(data)
	}
	return resp.StatusCode, text, msg.Result.IsError, nil
}

// TestAStuckToolCallIsAnswered: a search whose embedding never comes back is answered with an
// error at the call's deadline (-tool-timeout), not when Ollama's own limit of minutes runs
// out, and its request slot is free again: twice as many stuck searches as the server has
// slots, in two waves, are all answered so, none refused as busy. Once Ollama answers again,
// so does search.
func TestAStuckToolCallIsAnswered(t *testing.T) {
	ollama := ollamatest.NewServer(ollamatest.Options{})
	defer ollama.Close()
	t.Setenv("OLLAMA_HOST", ollama.URL)
	vaultDir := t.TempDir()
	steptest.Write(t, filepath.Join(vaultDir, "Bread.md"), "# Bread\n\nA dense loaf is underproofed.")
	url := startServer(t, vaultDir, "-embedder", "ollama", "-tool-timeout", "2s")

	ollama.SetLatency(time.Hour, 0)              // every embedding from now on waits an hour
	client := &http.Client{Timeout: time.Minute} // less than Ollama's own limit of 2 minutes
	for wave := range 2 {
		start := time.Now()
		var wg sync.WaitGroup
		for i := range guard.DefaultMaxInFlight {
			wg.Go(func() {
				status, text, isError, err := callOn(client, url, "search_vault", map[string]any{"query": fmt.Sprintf("loaf %d %d", wave, i)})
				if err != nil || status != http.StatusOK || !isError || !strings.Contains(text, "search_vault did not finish within 2s") {
					t.Errorf("wave %d, search %d: %d %.200q (isError %v, %v); want an isError answer at the 2s deadline", wave, i, status, text, isError, err)
				}
			})
		}
		wg.Wait()
		t.Logf("wave %d of %d stuck searches answered in %v", wave, guard.DefaultMaxInFlight, time.Since(start).Round(time.Millisecond))
	}

	ollama.SetLatency(0, 0)
	if _, text, isError, err := callOn(client, url, "search_vault", map[string]any{"query": "dense loaf"}); err != nil || isError || !strings.Contains(text, "Bread.md") {
		t.Errorf("search_vault once Ollama answers again: %.200q (isError %v, %v); want Bread.md", text, isError, err)
	}
}

// TestIdleConnectionsDoNotLockOut: 600 connections that never send a byte, as a page or a
// program could hold open, do not keep an ordinary call from being answered.
func TestIdleConnectionsDoNotLockOut(t *testing.T) {
	url := startServer(t, filepath.Join("..", "..", "sample-vault"), "-embedder", "offline")
	addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp")
	for i := range 600 {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		defer conn.Close()
	}
	client := &http.Client{Transport: &http.Transport{}, Timeout: time.Minute} // a connection of its own
	status, text, isError, err := callOn(client, url, "get_note", map[string]any{"path": "Home"})
	if err != nil || status != http.StatusOK || isError {
		t.Errorf("get_note after 600 idle connections: %d %.200q (isError %v, %v); want the note", status, text, isError, err)
	}
}
