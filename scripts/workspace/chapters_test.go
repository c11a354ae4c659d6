package workspace

import (
	"bufio"
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"

	"vaultmcp/scripts/transcript"
)

// capabilities are what the chapters teach, each with the step whose chapter explains it and a
// marker: a function that only that capability calls, as `go tool nm` names it in a binary. A
// marker must be large enough not to be inlined away: the teaching step must link it, or the
// test fails, so a marker that vanishes cannot make the test pass by saying nothing.
var capabilities = []struct {
	what   string
	step   int
	marker string
}{
	{"YAML frontmatter, read as YAML 1.2 reads it", 2, "vaultmcp/shared/frontmatter.emptyItems"},
	{"member names JSON readers read two ways refused before mcp-go", 2, "vaultmcp/shared/jsonrpc.ambiguousNames"},
	{"notes parsed into sections, links and tags", 3, "vaultmcp/shared/markdown.Parse"},
	{"embeddings from Ollama", 4, "vaultmcp/shared/embed.(*Ollama).EmbedDocuments"},
	{"the index in SQLite", 5, "vaultmcp/shared/store.Open"},
	{"search filtered by folder and tag", 6, "vaultmcp/shared/store.(*Store).allowedSections"},
	{"search by keywords", 6, "vaultmcp/shared/store.(*Store).KeywordNotes"},
	{"the link graph, resolved as Obsidian does", 7, "vaultmcp/shared/links.pickByName"},
	{"the file watcher", 8, "vaultmcp/shared/watch.New"},
	{"a vault folder moved away looked for, never a watcher stopped in silence", 8, "vaultmcp/shared/watch.(*Watcher).lookForVault"},
	{"polling that passes over a changed folder, not the vault", 8, "vaultmcp/shared/watch.(*Watcher).folderPass"},
	{"compaction of an index edited while it serves", 8, "vaultmcp/shared/store.(*Compaction).compactIfWasteful"},
	{"the write-ahead log emptied after writes", 8, "vaultmcp/shared/store.(*Store).trimLog"},
	{"failed writes in words, the full disk told apart", 8, "vaultmcp/shared/store.(*Store).writeError"},
	{"notes created in the inbox", 9, "vaultmcp/shared/inbox.(*Inbox).Create"},
	{"a deadline for every tool call", 9, "vaultmcp/shared/deadline.callLimit.run"},
	{"connections bounded, the idlest closed first", 9, "vaultmcp/shared/guard.(*connLimit).spare"},
	{"the catch-up with the disk", 10, "vaultmcp/shared/reconcile.Compute"},
	{"the link graph kept in the index", 10, "vaultmcp/shared/store.(*Store).AddLinkTables"},
	{"racy timestamps read as git reads them", 10, "vaultmcp/shared/reconcile.unchanged"},
	{"links and sections compared by the version of their note", 10, "vaultmcp/shared/store.(*Store).LinksDisagree"},
	{"notes no tool call can name, listed as they come and go", 10, "vaultmcp/shared/vault.Unservable"},
	{"a rebuild that records why", 10, "vaultmcp/shared/store.(*Store).Rebuilt"},
	{"another embedding model than nomic-embed-text (-model)", 10, "vaultmcp/shared/embed.(*Ollama).MeasureDimensions"},
}

// TestNoStepLinksALaterChapter builds every step and reads its symbol table: a step links
// each capability whose chapter is its own, and none whose chapter comes later, whether its
// own code calls it or a shared package does on its behalf. So a shared package grows by
// additions that only the later steps call, and make diff N shows what step N starts to use.
func TestNoStepLinksALaterChapter(t *testing.T) {
	if testing.Short() {
		t.Skip("builds all ten steps; `make check` runs it")
	}
	root, err := transcript.Root()
	if err != nil {
		t.Fatal(err)
	}
	steps, err := transcript.Steps(root)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, step := range steps {
		bin, err := transcript.Build(t.Context(), root, step, dir)
		if err != nil {
			t.Fatal(err)
		}
		linked := symbols(t.Context(), t, bin)
		for _, c := range capabilities {
			switch {
			case step.Number < c.step && linked[c.marker]:
				t.Errorf("step %s links %s (%s), which chapter %d teaches", step.Name, c.what, c.marker, c.step)
			case step.Number == c.step && !linked[c.marker]:
				t.Errorf("step %s does not link %s, the marker of %s, which its chapter teaches: is the marker's name right, or was it inlined?", step.Name, c.marker, c.what)
			}
		}
	}
}

// symbols returns the names of the functions a binary holds.
func symbols(ctx context.Context, t *testing.T, bin string) map[string]bool {
	t.Helper()
	out, err := exec.CommandContext(ctx, "go", "tool", "nm", bin).Output()
	if err != nil {
		t.Fatalf("go tool nm %s: %v", bin, err)
	}
	names := map[string]bool{}
	lines := bufio.NewScanner(bytes.NewReader(out))
	for lines.Scan() {
		// "  4a1f20 T vaultmcp/shared/store.Open"
		fields := strings.Fields(lines.Text())
		if len(fields) >= 3 && (fields[1] == "T" || fields[1] == "t") {
			names[strings.Join(fields[2:], " ")] = true
		}
	}
	return names
}
