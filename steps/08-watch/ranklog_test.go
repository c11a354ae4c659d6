package main

import (
	"io"
	"path/filepath"
	"strings"
	"testing"

	"vaultmcp/shared/steptest"
)

// TestKeywordRankingLogsNoFloor: with -rank keyword no vector score is cut, so the start-up
// log must say there is no floor, not promise one measured at the first search.
func TestKeywordRankingLogsNoFloor(t *testing.T) {
	vaultDir := t.TempDir()
	steptest.Write(t, filepath.Join(vaultDir, "Note.md"), "# Note\n\nzebra crossing\n")
	getenv := steptest.Env("VAULT_PATH", vaultDir, "VAULTMCP_DB", filepath.Join(t.TempDir(), "index.db"))
	for rank, want := range map[string]string{
		"keyword": `rank=keyword min_score="none: keyword ranking has no vector scores to cut"`,
		"hybrid":  `rank=hybrid min_score="measured at the first search"`,
	} {
		var logs steptest.Logs
		args := []string{"vaultmcp", "-transport", "stdio", "-embedder", "offline", "-rank", rank}
		if err := run(t.Context(), args, getenv, strings.NewReader(""), io.Discard, &logs); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(logs.String(), want) {
			t.Errorf("-rank %s: the log has no %s:\n%s", rank, want, logs.String())
		}
	}
}
