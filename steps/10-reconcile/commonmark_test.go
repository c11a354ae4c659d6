package main

import (
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

	got, errText := searchFor(t, url, map[string]any{"query": "found after the comment"})
	if errText != "" || len(got.Results) == 0 || got.Results[0].Path != "Unclosed comment.md" || got.Results[0].Heading != "Later" {
		t.Errorf("search_vault = %+v %s; want the section after the unclosed comment first", got, errText)
	}
	// Neither "[text](My Note.md)" nor the "[[Link]]" in code is a link, so no note is missing.
	for _, missing := range []string{"My", "My Note", "Link"} {
		if text, isError := callTool(t, url, "get_backlinks", missing); !isError {
			t.Errorf("get_backlinks(%q) = %s; want not found: no note links there", missing, text)
		}
	}
	for _, path := range []string{"Space in link.md", "Code over lines.md"} {
		if text, isError := callTool(t, url, "get_backlinks", path); isError || !strings.Contains(text, "(no links)") {
			t.Errorf("get_backlinks(%q) = %s; want no links", path, text)
		}
	}
	if text, _ := callTool(t, url, "get_note", "Zip.md"); !strings.Contains(text, `"zip":1234`) {
		t.Errorf("get_note(Zip.md) = %s; want zip 1234", text)
	}
}
