package main

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"vaultmcp/shared/embed"
	"vaultmcp/shared/steptest"
	"vaultmcp/shared/store"
)

// TestCompactionStatus: index_status says how much of the vectors table is live, and why the
// latest compaction failed, in words a user can act on.
func TestCompactionStatus(t *testing.T) {
	for _, c := range []struct {
		live, dead int
		failed     error
		want       string
	}{
		{0, 0, nil, "100% of the vector slots are live; the index compacts itself below 75%"},
		{900, 100, nil, "90% of the vector slots are live; the index compacts itself below 75%"},
		{600, 400, errors.New("compact the index: the disk is full"),
			"60% of the vector slots are live; the index compacts itself below 75%; the latest compaction failed, and is tried again later: compact the index: the disk is full"},
	} {
		if got := compaction(c.live, c.dead, c.failed); got != c.want {
			t.Errorf("compaction(%d, %d, %v) =\n %q\nwant %q", c.live, c.dead, c.failed, got, c.want)
		}
	}
}

// TestComparisonFailureIsNotReady: a catch-up that cannot compare the index with the disk
// leaves the index retrying, and search says why, until a comparison succeeds.
func TestComparisonFailureIsNotReady(t *testing.T) {
	var c coverage
	c.fail(errors.New("list the vault's notes: permission denied"))
	if phase, _, _ := c.get(); phase != phaseRetrying {
		t.Errorf("after a failed comparison the phase is %q, want %q", phase, phaseRetrying)
	}
	if got := c.describe(); !strings.Contains(got, "could not be compared with the vault (list the vault's notes: permission denied)") {
		t.Errorf("describe() = %q; want the reason", got)
	}
	c.set(phaseReady, 0, 0)
	if got := c.describe(); got != "" {
		t.Errorf("once a comparison succeeds, describe() = %q; want nothing", got)
	}
}

// TestStatusLeavesOutARebuildNeverRecorded: an index that an earlier step built, with this
// embedder but no record of a rebuild, is kept, and index_status then says nothing of a
// rebuild rather than "rebuiltBecause": "".
func TestStatusLeavesOutARebuildNeverRecorded(t *testing.T) {
	vaultDir := t.TempDir()
	steptest.Write(t, filepath.Join(vaultDir, "Note.md"), "# Note\n\nThe compost heap needs air.")
	db := filepath.Join(t.TempDir(), "index.db")
	s, err := store.Open(t.Context(), db, store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	offline := embed.NewOffline()
	if err := s.Reset(t.Context(), store.Embedder{Name: "offline", Model: offline.Model(), Dimension: offline.Dimensions()}); err != nil {
		t.Fatal(err)
	}
	s.Close()

	url := startServing(t, vaultDir, "-embedder", "offline", "-db", db)
	waitReady(t, url)
	text, isError := steptest.CallTool(t, url, "index_status", map[string]any{})
	if isError || strings.Contains(text, "rebuilt") || !strings.Contains(text, `"state":"ready"`) {
		t.Errorf("index_status on an index with no rebuild recorded = %s; want no rebuiltAt or rebuiltBecause", text)
	}

	// A rebuild is recorded, and shown with its reason.
	other := filepath.Join(t.TempDir(), "index.db")
	url = startServing(t, vaultDir, "-embedder", "offline", "-db", other)
	waitReady(t, url)
	if st := status(t, url); st.RebuiltAt == "" || !strings.Contains(st.RebuiltBecause, "not been built yet") {
		t.Errorf("index_status on a new index: rebuiltAt %q, rebuiltBecause %q; want when, and why", st.RebuiltAt, st.RebuiltBecause)
	}
}
