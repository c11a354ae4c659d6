package markdown_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vaultmcp/shared/markdown"
)

// shapes are notes that once cost the index more than their size, and two that never did.
var shapes = []struct {
	name string
	make func(size int) string
}{
	{"a heading half the note long", func(size int) string {
		return "# " + strings.Repeat("word ", size/10) + "\n\n" + paragraphs(size/2)
	}},
	{"six-byte sections", func(size int) string { return strings.Repeat("# a\nb\n", size/6) }},
	{"one long line", func(size int) string { return strings.Repeat("lorem ipsum ", size/12) }},
	{"plain paragraphs", paragraphs},
}

func paragraphs(size int) string {
	return strings.Repeat(strings.Repeat("lorem ipsum ", 45)+"\n\n", size/542)
}

// TestCostIsLinear: what the index stores of a note, each chunk with its section's heading,
// and the number of chunks, each of which costs a vector, grow with the note and no faster.
// Before the bounds, a 1 MiB note with a 0.5 MiB heading stored 254 MB (the heading with each
// of its chunks), and a 1 MiB note of six-byte sections made 174,762 chunks.
func TestCostIsLinear(t *testing.T) {
	for _, shape := range shapes {
		for _, size := range []int{256 << 10, 1 << 20} {
			content := shape.make(size)
			n := markdown.Parse("Note.md", content)
			stored, chunks := 0, 0
			for _, s := range n.Sections {
				for _, c := range s.Chunks {
					stored += len(s.Heading) + len(c)
					chunks++
				}
			}
			if stored > len(content)*3/2 || chunks > 100+len(content)/200 {
				t.Errorf("%s, %d KiB: %d sections, %d chunks, %d bytes stored; want at most %d chunks and %d bytes",
					shape.name, size>>10, len(n.Sections), chunks, stored, 100+len(content)/200, len(content)*3/2)
			}
		}
	}
}

// TestHeadingsAreBounded: a heading longer than MaxHeading is cut, and says so.
func TestHeadingsAreBounded(t *testing.T) {
	n := markdown.Parse("Note.md", "# "+strings.Repeat("é", markdown.MaxHeading)+"\n\ntext")
	h := n.Sections[0].Heading
	if len(h) > markdown.MaxHeading || !strings.HasSuffix(h, "é…") || n.Headings[0].Text != h || n.Sections[0].Trail[0] != h {
		t.Errorf("%d bytes: %q", len(h), h)
	}
}

// TestManySections: past MaxSections, a heading with little text under it becomes a line of
// the section before it. Its words are still in a chunk, for search, and every section after
// the bound holds enough text to be worth its chunk.
func TestManySections(t *testing.T) {
	var b strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&b, "## Entry %d\nshort\n", i)
	}
	content := b.String()
	n := markdown.Parse("Note.md", content)
	limit := markdown.MaxSections(len(content))
	if len(n.Sections) <= limit || len(n.Sections) > limit+len(content)/512 || len(n.Headings) != len(n.Sections) {
		t.Fatalf("%d sections and %d headings for %d headings written; want between %d and %d", len(n.Sections), len(n.Headings), 5000, limit, limit+len(content)/512)
	}
	if n.Sections[limit-1].Heading != fmt.Sprintf("Entry %d", limit-1) {
		t.Errorf("section %d is %q: the sections below the bound must be as written", limit-1, n.Sections[limit-1].Heading)
	}
	last := n.Sections[len(n.Sections)-1]
	if text := strings.Join(last.Chunks, "\n"); !strings.Contains(text, "## Entry 4999\nshort") {
		t.Errorf("the last section's chunks lack the last heading: %.200q", text)
	}
	for _, s := range n.Sections[limit : len(n.Sections)-1] {
		if len(s.Text) < 512 {
			t.Fatalf("section %q past the bound holds %d bytes", s.Heading, len(s.Text))
		}
	}
}

// TestLinksAndTagsAreBounded: a note keeps at most MaxLinks links and MaxTags tags.
func TestLinksAndTagsAreBounded(t *testing.T) {
	n := markdown.Parse("Note.md", strings.Repeat("[[a]] #t ", 2*markdown.MaxLinks))
	if len(n.Links) != markdown.MaxLinks || len(n.Tags) != markdown.MaxTags {
		t.Errorf("%d links and %d tags; want %d and %d", len(n.Links), len(n.Tags), markdown.MaxLinks, markdown.MaxTags)
	}
}

// TestOrdinaryNotesAreWhole: no note of the sample vault, nor of the real vaults when they are
// there, comes near MaxSections, so the bound changes nothing in how they are indexed.
func TestOrdinaryNotesAreWhole(t *testing.T) {
	notes := map[string]string{}
	err := filepath.WalkDir(filepath.Join("..", "..", "sample-vault"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".md") {
			return err
		}
		content, err := os.ReadFile(path)
		notes[path] = string(content)
		return err
	})
	if err != nil || len(notes) == 0 {
		t.Fatalf("no sample vault: %v", err)
	}
	if _, err := os.Stat(filepath.Join("..", "..", "..", "shared", "vaults")); err == nil {
		for _, vault := range realVaults {
			for path, content := range realNotes(t, vault) {
				notes[vault+"/"+path] = content
			}
		}
	}
	for path, content := range notes {
		if n := markdown.Parse(path, content); len(n.Sections) >= markdown.MaxSections(0)/2 {
			t.Errorf("%s: %d sections", path, len(n.Sections))
		}
	}
}
