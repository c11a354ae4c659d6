package main

import (
	"encoding/json"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"vaultmcp/shared/markdown"
	"vaultmcp/shared/steptest"
)

// TestNotesAsWritten serves the notes real vaults hold and tidy examples lack: a template's
// empty lists, properties nested deeper than the index can store, names that Linux and macOS
// allow and Windows does not (so no synced vault can hold them everywhere), names no tool call
// can carry, and an image saved as a note.
// Each is read as Obsidian reads it, or listed in index_status with a reason a user can act on.
func TestNotesAsWritten(t *testing.T) {
	vaultDir := t.TempDir()
	note := func(name, content string) { steptest.Write(t, filepath.Join(vaultDir, name), content) }
	note("Template.md", "---\ntags:\n- \naliases:\n-\npublish: true\n---\n# Template\n\nSourdough starter.\n")
	note("Deep.md", "---\na: "+strings.Repeat("[", 1000)+strings.Repeat("]", 1000)+"\n---\nPaper lanterns.\n")
	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + strings.Repeat("\x13\x00\x7f\x01", 500)
	note("photo.md", png)
	unix := runtime.GOOS != "windows"
	if unix {
		note("Meeting 10:30.md", "# Meeting\n\nWe chose the blue kayak.\n")
		note(`back\slash.md`, "# Backslash\n")
	}
	url := startServer(t, vaultDir, "-embedder", "offline")

	// The template's empty lists are lists of null, and publish stays a property.
	text, isError := callTool(t, url, "get_note", "Template")
	var got noteJSON
	if err := json.Unmarshal([]byte(text), &got); isError || err != nil {
		t.Fatalf("get_note(Template) = %s", text)
	}
	if fm, _ := json.Marshal(got.Frontmatter); string(fm) != `{"aliases":[null],"publish":true,"tags":[null]}` {
		t.Errorf("Template's frontmatter = %s; want the YAML reading, with publish a property of its own", fm)
	}

	// Properties nested 1,000 deep are an error in words, and the body is searchable.
	text, _ = callTool(t, url, "get_note", "Deep")
	if !strings.Contains(text, `"frontmatterError":"the frontmatter nests lists and maps more than 32 levels deep"`) {
		t.Errorf("get_note(Deep) = %.200s; want the frontmatter reported as too deeply nested", text)
	}
	if msg := finds(t, url, "paper lanterns", "Deep.md")(); msg != "" {
		t.Error(msg)
	}

	// The image is not a note: not searchable, listed with the reason, refused by get_note.
	st := status(t, url)
	if why := st.NotIndexed["photo.md"]; !strings.Contains(why, `"photo.md" is not a note: it holds NUL bytes`) {
		t.Errorf("index_status notIndexed[photo.md] = %q; want it named as not a note", why)
	}
	if text, isError := callTool(t, url, "get_note", "photo.md"); !isError || !strings.Contains(text, "is not a note") {
		t.Errorf("get_note(photo.md) = %.200q (isError %v); want a tool error saying it is not a note", text, isError)
	}
	if msg := findsNone(t, url, "IHDR", "photo.md")(); msg != "" {
		t.Error(msg)
	}
	// A note an image is saved over leaves the index, and is listed.
	if msg := finds(t, url, "sourdough starter", "Template.md")(); msg != "" {
		t.Error(msg)
	}
	note("Template.md", png)
	steptest.Eventually(t, steptest.Patience, findsNone(t, url, "sourdough starter", "Template.md"))
	if why := status(t, url).NotIndexed["Template.md"]; !strings.Contains(why, "is not a note") {
		t.Errorf("index_status notIndexed[Template.md] = %q, after an image was saved over it", why)
	}
	if !unix {
		return
	}

	// A ':' cannot be in a name on Windows, and a backslash reads as a folder separator: both
	// notes are listed with the reason, and get_note refuses the ':' with the same rule.
	if why := st.NotIndexed["Meeting 10:30.md"]; !strings.Contains(why, "holds ':', which Windows and Obsidian refuse") {
		t.Errorf(`index_status notIndexed[Meeting 10:30.md] = %q; want the reason`, why)
	}
	if why := st.NotIndexed[`back\slash.md`]; !strings.Contains(why, "holds a backslash") {
		t.Errorf(`index_status notIndexed[back\slash.md] = %q; want the reason`, why)
	}
	if len(st.NotIndexed) != 3 {
		t.Errorf("index_status notIndexed = %v; want only photo.md, Meeting 10:30.md and back\\slash.md", st.NotIndexed)
	}
	if msg := findsNone(t, url, "blue kayak", "Meeting 10:30.md")(); msg != "" {
		t.Error(msg)
	}
	if text, isError := callTool(t, url, "get_note", "Meeting 10:30"); !isError || !strings.Contains(text, "contains ':'") {
		t.Errorf("get_note(Meeting 10:30) = %.200q (isError %v); want it refused for the ':'", text, isError)
	}
}

// A note the parser fails on is left out, with the reason in index_status, and the server
// keeps running: it indexes the rest, at start and when the note changes, and takes the note
// in once the parser can read it.
func TestParserFailureLeavesOneNoteOut(t *testing.T) {
	parseMarkdown = func(path, text string) markdown.Note {
		if strings.Contains(text, "BOOM") {
			panic("a bug in the parser")
		}
		return markdown.Parse(path, text)
	}
	t.Cleanup(func() { parseMarkdown = markdown.Parse })
	vaultDir := steptest.CopyVault(t)
	writeNote(t, vaultDir, "Boom.md", "# Boom\n\nBOOM, and a rare word: quillwort.")
	url := startServer(t, vaultDir)

	st := status(t, url)
	if why := st.NotIndexed["Boom.md"]; !strings.Contains(why, "the parser failed on this note") || !strings.Contains(why, "a bug in the parser") {
		t.Errorf("index_status notIndexed[Boom.md] = %q; want the parser's failure", why)
	}
	if msg := finds(t, url, "dense loaf", "Kitchen/Bread/Dense loaf troubleshooting.md")(); msg != "" {
		t.Error(msg)
	}

	// Saved again with the same bug, while the server runs; then without it.
	writeNote(t, vaultDir, "Boom.md", "# Boom\n\nBOOM again, quillwort.")
	writeNote(t, vaultDir, "Later.md", "# Later\n\nA note saved after: hornwort.")
	steptest.Eventually(t, steptest.Patience, finds(t, url, "hornwort", "Later.md"))
	writeNote(t, vaultDir, "Boom.md", "# Boom\n\nMended: quillwort.")
	steptest.Eventually(t, steptest.Patience, finds(t, url, "quillwort", "Boom.md"))
	if why, ok := status(t, url).NotIndexed["Boom.md"]; ok {
		t.Errorf("index_status still lists Boom.md once the parser reads it: %q", why)
	}
}
