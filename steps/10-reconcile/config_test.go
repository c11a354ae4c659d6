package main

import (
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vaultmcp/shared/embed"
	"vaultmcp/shared/ollamatest"
	"vaultmcp/shared/steptest"
	"vaultmcp/shared/store"
)

// TestBadSettingsNameThemselves: a value the server cannot use, from a flag or from the
// environment, stops it before it creates, opens or listens on anything, with an error that
// names the flag, the variable and the value.
func TestBadSettingsNameThemselves(t *testing.T) {
	steptest.RefusesBadSettings(t, run, []steptest.Setting{
		{Flag: "transport", Env: "VAULTMCP_TRANSPORT", Bad: "carrier-pigeon"},
		{Flag: "addr", Env: "VAULTMCP_ADDR", Bad: "nowhere"},
		{Flag: "addr", Env: "VAULTMCP_ADDR", Bad: "0.0.0.0:3000"},
		{Flag: "embedder", Env: "VAULTMCP_EMBEDDER", Bad: "telepathy"},
		{Flag: "dimensions", Env: "VAULTMCP_DIMENSIONS", Bad: "half"},
		{Flag: "dimensions", Env: "VAULTMCP_DIMENSIONS", Bad: "0"},
		{Flag: "min-score", Env: "VAULTMCP_MIN_SCORE", Bad: "abc"},
		{Flag: "min-score", Env: "VAULTMCP_MIN_SCORE", Bad: "1.5"},
		{Flag: "rank", Env: "VAULTMCP_RANK", Bad: "alphabetical"},
		{Flag: "watch", Env: "VAULTMCP_WATCH", Bad: "bogus"},
		{Flag: "inbox", Env: "VAULTMCP_INBOX", Bad: "../outside"},
		{Flag: "read-only", Env: "VAULTMCP_READ_ONLY", Bad: "maybe"},
		{Flag: "allow-origin", Env: "VAULTMCP_ORIGINS", Bad: "localhost:6274"},
		{Flag: "tool-timeout", Env: "VAULTMCP_TOOL_TIMEOUT", Bad: "soon"},
		{Flag: "tool-timeout", Env: "VAULTMCP_TOOL_TIMEOUT", Bad: "0s"},
		{Flag: "tool-timeout", Env: "VAULTMCP_TOOL_TIMEOUT", Bad: "3m"}, // the answer could no longer be written
	})
}

// TestOnlyOllamasVectorsAreCut: -dimensions with the offline embedder is refused with the
// fix, since its vectors are word hashes that no cut keeps meaningful.
func TestOnlyOllamasVectorsAreCut(t *testing.T) {
	dir := t.TempDir()
	getenv := func(string) string { return "" }
	_, err := readConfig([]string{"vaultmcp", "-vault", dir, "-embedder", "offline", "-dimensions", "256"}, getenv, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "-dimensions") || !strings.Contains(err.Error(), "offline") {
		t.Fatalf("-embedder offline -dimensions 256: %v; want an error naming -dimensions and the offline embedder", err)
	}
	c, err := readConfig([]string{"vaultmcp", "-vault", dir, "-dimensions", "256"}, getenv, io.Discard)
	if err != nil || c.dimensions != 256 {
		t.Fatalf("-dimensions 256: %d, %v; want 256", c.dimensions, err)
	}
}

// TestToolCallsHaveADeadline: unless told otherwise, a tool call gets 2 minutes; the flag and
// the variable change it.
func TestToolCallsHaveADeadline(t *testing.T) {
	for _, c := range []struct {
		args []string
		env  string
		want time.Duration
	}{
		{nil, "", 2 * time.Minute},
		{[]string{"-tool-timeout", "45s"}, "", 45 * time.Second},
		{nil, "90s", 90 * time.Second},
		{[]string{"-tool-timeout", "1m"}, "90s", time.Minute},
	} {
		cfg, err := readConfig(append([]string{"vaultmcp"}, c.args...), steptest.Env("VAULT_PATH", t.TempDir(), "VAULTMCP_TOOL_TIMEOUT", c.env), io.Discard)
		if err != nil || cfg.toolTimeout != c.want {
			t.Errorf("%q with VAULTMCP_TOOL_TIMEOUT=%q: %v, %v; want %v", c.args, c.env, cfg.toolTimeout, err, c.want)
		}
	}
}

// TestDimensionsWaitForOllama: with -embedder auto, an index Ollama built is kept while Ollama
// is down, at the length it was built with; a -dimensions that asks for another length cannot
// take effect yet, and the log says so rather than dropping it without a word.
func TestDimensionsWaitForOllama(t *testing.T) {
	ctx := t.Context()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "index.db"), store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Reset(ctx, store.Embedder{Name: "ollama", Model: embed.DefaultModel, Dimension: 256}); err != nil {
		t.Fatal(err)
	}
	down := ollamatest.NewServer(ollamatest.Options{})
	defer down.Close()
	down.SetFailure(ollamatest.Down, 0)
	for _, c := range []struct {
		dimensions int
		warns      bool
	}{{512, true}, {256, false}, {0, false}} {
		var log strings.Builder
		cfg := config{embedder: "auto", model: embed.DefaultModel, ollama: down.Client(), dimensions: c.dimensions}
		e, err := chooseEmbedder(ctx, cfg, db, slog.New(slog.NewTextHandler(&log, nil)))
		if err != nil || e.Dimensions() != 256 {
			t.Fatalf("-dimensions %d with Ollama down: %v, %v; want the 256-number index kept", c.dimensions, e, err)
		}
		if warned := strings.Contains(log.String(), "-dimensions (VAULTMCP_DIMENSIONS) IGNORED"); warned != c.warns {
			t.Errorf("-dimensions %d with Ollama down over a 256-number index: warned %v, want %v; log:\n%s", c.dimensions, warned, c.warns, log.String())
		}
	}
}
