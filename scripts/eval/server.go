package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"vaultmcp/scripts/transcript"
)

// server is a step running over one vault, and an MCP client connected to it: the official Go
// SDK's, over Streamable HTTP, as a user's client would connect.
type server struct {
	proc    *transcript.Server
	session *mcp.ClientSession
}

// startServer runs the step binary bin over vaultDir with its index in dbFile, waits until the
// index holds the whole vault, and connects. env sets the embedder and whatever a leg needs,
// args are the leg's flags. The vault and the index go in environment variables, which every
// step from 4 on reads (step 4 keeps its index in memory), so any of them can be measured.
// While the index is built, w hears how it goes (see waitReady).
func startServer(ctx context.Context, bin, vaultDir, dbFile string, env []string, w indexWatch, args ...string) (*server, error) {
	env = append(clearedEnv(), append([]string{"VAULT_PATH=" + vaultDir, "VAULTMCP_DB=" + dbFile}, env...)...)
	proc, err := transcript.Start(bin, env, args...)
	if err != nil {
		return nil, err
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "vaultmcp-eval", Version: "1.0.0"}, nil)
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: proc.URL}, nil)
	if err != nil {
		proc.Stop()
		return nil, fmt.Errorf("connect to %s: %w", proc.URL, err)
	}
	s := &server{proc: proc, session: session}
	if err := s.waitReady(ctx, w); err != nil {
		s.Close()
		return nil, fmt.Errorf("%w\nthe server's log:\n%s", err, proc.Logs())
	}
	return s, nil
}

// clearedEnv empties the settings a developer may have in their shell (a -min-score of their
// own, another model), so that the eval measures the server as it ships. A leg that needs one
// sets it again after these.
func clearedEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "VAULTMCP_") || name == "VAULT_PATH" || name == "OLLAMA_HOST" {
			env = append(env, name+"=")
		}
	}
	return env
}

// indexWatch is how waitReady reports on an index being built, and how it tells a slow index
// from a stuck one.
type indexWatch struct {
	// Progress hears the state index_status reports, how many of the vault's notes are
	// indexed (total 0 when the step does not say), and how long it has taken.
	Progress func(state string, done, total int, waited time.Duration)
	// Activity, if set, counts work done outside the server, such as texts the embedder has
	// embedded: the server counts a note only once its whole batch is stored, which can take
	// minutes with a slow model.
	Activity func() int
}

const (
	// stallWait is how long indexing may go with neither a note more indexed nor any
	// Activity: then it is stuck.
	stallWait = 5 * time.Minute
	// progressEvery is how often progress hears of an index still building.
	progressEvery = 15 * time.Second
)

// waitReady polls index_status until the index has caught up with the vault. Steps 5 to 7
// index before they listen and report no state; step 4 has no index_status at all. Notes
// that could not be indexed are an error: the figures would measure a smaller vault.
func (s *server) waitReady(ctx context.Context, w indexWatch) error {
	tools, err := s.session.ListTools(ctx, nil)
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(tools.Tools, func(t *mcp.Tool) bool { return t.Name == "index_status" }) {
		return nil
	}
	start := time.Now()
	lastDone, lastMove, lastTold := -1, start, start
	for {
		res, err := s.session.CallTool(ctx, &mcp.CallToolParams{Name: "index_status", Arguments: map[string]any{}})
		if err != nil {
			return fmt.Errorf("index_status: %w", err)
		}
		var status struct {
			State      string            `json:"state"`
			VaultNotes int               `json:"vaultNotes"`
			UpToDate   int               `json:"upToDate"`
			NotIndexed map[string]string `json:"notIndexed"`
		}
		if err := json.Unmarshal([]byte(text(res)), &status); err != nil {
			return fmt.Errorf("index_status answered %q: %w", text(res), err)
		}
		if status.State == "" || status.State == "ready" {
			if len(status.NotIndexed) > 0 {
				return fmt.Errorf("%d notes could not be indexed: %v", len(status.NotIndexed), status.NotIndexed)
			}
			return nil
		}
		now := time.Now()
		done := status.UpToDate
		if w.Activity != nil {
			done += w.Activity()
		}
		if done != lastDone {
			lastDone, lastMove = done, now
		}
		if now.Sub(lastMove) > stallWait {
			return fmt.Errorf("the index was still %q, at %d of %d notes, after %v without progress",
				status.State, status.UpToDate, status.VaultNotes, stallWait)
		}
		if w.Progress != nil && now.Sub(lastTold) >= progressEvery {
			w.Progress(status.State, status.UpToDate, status.VaultNotes, now.Sub(start))
			lastTold = now
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Search asks search_vault for the Depth best notes and returns their paths and scores, best
// first. Steps before 6 give no scores: scores is then nil.
func (s *server) Search(ctx context.Context, query string) (paths []string, scores []float64, err error) {
	res, err := s.session.CallTool(ctx, &mcp.CallToolParams{
		Name:      "search_vault",
		Arguments: map[string]any{"query": query, "limit": Depth},
	})
	if err != nil {
		return nil, nil, err
	}
	if res.IsError {
		return nil, nil, errors.New(text(res))
	}
	// From step 6 the results are structured; before, the text is the same JSON.
	raw := []byte(text(res))
	if res.StructuredContent != nil {
		if raw, err = json.Marshal(res.StructuredContent); err != nil {
			return nil, nil, err
		}
	}
	var out struct {
		Results []struct {
			Path  string   `json:"path"`
			Score *float64 `json:"score"`
		} `json:"results"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, nil, fmt.Errorf("cannot read the results %.200q: %w", raw, err)
	}
	paths = make([]string, len(out.Results))
	for i, r := range out.Results {
		paths[i] = r.Path
		if r.Score != nil {
			scores = append(scores, *r.Score)
		}
	}
	if len(scores) != len(paths) {
		scores = nil
	}
	return paths, scores, nil
}

// Close disconnects and stops the server as Ctrl-C would.
func (s *server) Close() {
	s.session.Close()
	s.proc.Stop()
}

// text is the text of a tool result.
func text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}
