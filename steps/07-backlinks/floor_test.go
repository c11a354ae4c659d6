package main

import (
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"vaultmcp/shared/embed"
	"vaultmcp/shared/steptest"
	"vaultmcp/shared/store"
)

// TestFloorWaitsForSections: an index with no sections has nothing to find and nothing to
// measure chance on, so the floor is not measured there, nor logged as 0; the first search
// after a note is stored measures it.
func TestFloorWaitsForSections(t *testing.T) {
	ctx := t.Context()
	offline := embed.NewOffline()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "index.db"), store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Reset(ctx, store.Embedder{Name: "offline", Model: offline.Model(), Dimension: offline.Dimensions()}); err != nil {
		t.Fatal(err)
	}
	var logs steptest.Logs
	f := &floor{logger: slog.New(slog.NewTextHandler(&logs, nil))}
	if v, err := f.get(ctx, offline, db); err != nil || v != 0 || strings.Contains(logs.String(), "score floor measured") {
		t.Fatalf("floor of an empty index = %v, %v; want 0, not measured; log:\n%s", v, err, logs.String())
	}
	text := "Tomatoes split after heavy rain."
	vectors, err := offline.EmbedDocuments(ctx, []string{text})
	if err != nil {
		t.Fatal(err)
	}
	note := store.Note{Path: "Tomatoes.md", Title: "Tomatoes", Hash: "1"}
	if err := db.PutNote(ctx, note, []store.Section{{Heading: "Tomatoes", Text: text}}, vectors); err != nil {
		t.Fatal(err)
	}
	if _, err := f.get(ctx, offline, db); err != nil || !strings.Contains(logs.String(), "score floor measured") {
		t.Errorf("floor once the index holds a section: %v; want it measured and logged; log:\n%s", err, logs.String())
	}
}
