package watch

import (
	"testing"
)

func TestIsNote(t *testing.T) {
	notes := []string{
		"a.md",
		"Folder/Sub/Note.md",
		"UPPER.MD",
		"Dr. Smith.md",
		"Meeting 2024.01.05.md",
		"x.md.md",
	}
	ignored := []string{
		// Obsidian's own folders, version control, hidden files.
		".obsidian/app.json", ".obsidian/workspace.md", ".trash/a.md", ".git/HEAD",
		".hidden.md", "Folder/.hidden.md", ".DS_Store", "Folder/.git/x.md",
		// Not notes.
		"notes.txt", "image.png", "Board.canvas", "Folder",
		// Editors' and sync tools' files (the list in ignore.go).
		"x.md.swp", "x.md.swx", ".x.md.swp", "4913", "x.md~", "#x.md#", ".#x.md",
		"x.md.tmp", ".x.md.tmp", "x.md___jb_tmp___", ".~lock.x.md#", "x.md.crdownload",
		"x.md.part", ".syncthing.x.md.tmp", "._x.md", ".vaultmcp-0123456789abcdef.tmp",
		// Names vault.CleanPath refuses or changes on every system.
		`back\slash.md`, "line\nbreak.md", "C:/x.md",
		"Folder./x.md", "con.md", "Meeting 10:30.md", "Why?.md",
	}

	for _, p := range notes {
		if !isNote(p) {
			t.Errorf("isNote(%q) = false, want true", p)
		}
	}
	for _, p := range ignored {
		if isNote(p) {
			t.Errorf("isNote(%q) = true, want false", p)
		}
	}
}
