package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"vaultmcp/shared/steptest"
)

// commonMarkNotes are four notes that a parser reading line by line, and YAML 1.1's rules,
// once misread. As CommonMark and YAML 1.2 read them: an unclosed "<!--" in a line is text and
// hides nothing; a destination with a space is no link unless written in <...>; a code span may
// cross a line end; a leading zero is no octal.
var commonMarkNotes = map[string]string{
	"Unclosed comment.md": "# HTML\nsee a <!-- unterminated\n## Later\nfound after the comment\n",
	"Space in link.md":    "See [text](My Note.md).\n",
	"Code over lines.md":  "A `start\n[[Link]] end` of code.\n",
	"Zip.md":              "---\nzip: 01234\n---\nA zip code.\n",
}

func TestNotesReadAsCommonMark(t *testing.T) {
	dir := t.TempDir()
	for name, content := range commonMarkNotes {
		steptest.Write(t, filepath.Join(dir, name), content)
	}
	url := startServer(t, dir, "-embedder", "offline")
	type outline struct {
		Sections []struct {
			Heading string
			Chunks  []string
		}
		Links []struct{ Target string }
	}
	outlineOf := func(path string) (o outline) {
		text, isError := callTool(t, url, "get_outline", path)
		if err := json.Unmarshal([]byte(text), &o); isError || err != nil {
			t.Fatalf("get_outline(%q) = %s (%v)", path, text, err)
		}
		return o
	}

	o := outlineOf("Unclosed comment.md")
	if len(o.Sections) != 2 || o.Sections[1].Heading != "Later" || !strings.Contains(strings.Join(o.Sections[1].Chunks, ""), "found after the comment") {
		t.Errorf("Unclosed comment.md: %+v; want the section Later and its text", o.Sections)
	}
	for _, path := range []string{"Space in link.md", "Code over lines.md"} {
		if o := outlineOf(path); len(o.Links) != 0 {
			t.Errorf("%s: links %+v, want none", path, o.Links)
		}
	}
	text, _ := callTool(t, url, "get_note", "Zip.md")
	if !strings.Contains(text, `"zip":1234`) {
		t.Errorf("get_note(Zip.md) = %s; want zip 1234", text)
	}
}
