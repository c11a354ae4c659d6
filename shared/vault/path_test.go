package vault

import (
	"errors"
	"strings"
	"testing"
)

// cleanPathTests are the spellings a hostile or confused model might send. FuzzCleanPath
// starts from them too.
var cleanPathTests = []struct {
	in      string
	want    string // the cleaned path, when kind is nil or applies on Windows only
	kind    error
	windows bool // kind applies on Windows only; elsewhere the path is accepted as want
}{
	// Accepted, and cleaned.
	{in: "Folder/Note.md", want: "Folder/Note.md"},
	{in: `Folder\Note.md`, want: "Folder/Note.md"},
	{in: "./Folder//Note.md", want: "Folder/Note.md"},
	{in: "Folder/Note.md/", want: "Folder/Note.md"},
	{in: "a/../b.md", want: "b.md"},
	{in: "a/b/../../c.md", want: "c.md"},
	{in: "Projects", want: "Projects"},
	{in: "⏰ ToDo Lists.md", want: "⏰ ToDo Lists.md"},
	{in: "What is SQL?.md", want: "What is SQL?.md"},
	{in: " leading space.md", want: " leading space.md"},
	{in: "CONSOLE.md", want: "CONSOLE.md"},
	{in: "COM10.md", want: "COM10.md"},
	// Percent-encoding is not decoded: "%2e%2e" is a folder named that, inside the vault.
	{in: "%2e%2e/%2e%2e/etc/passwd", want: "%2e%2e/%2e%2e/etc/passwd"},
	{in: "%2e%2e%2fsecret.md", want: "%2e%2e%2fsecret.md"},
	{in: "~/notes.md", want: "~/notes.md"},
	{in: "$HOME/notes.md", want: "$HOME/notes.md"},
	{in: strings.Repeat("a/", 510) + "b.md", want: strings.Repeat("a/", 510) + "b.md"}, // 1024 bytes

	// Malformed.
	{in: "", kind: ErrInvalidPath},
	{in: ".", kind: ErrInvalidPath},
	{in: "./", kind: ErrInvalidPath},
	{in: "a/..", kind: ErrInvalidPath},
	{in: "a\x00.md", kind: ErrInvalidPath},
	{in: "secret.md\x00.png", kind: ErrInvalidPath},
	{in: "a\nb.md", kind: ErrInvalidPath},
	{in: "a\u0085b.md", kind: ErrInvalidPath}, // a C1 control character
	{in: "\xff\xfe.md", kind: ErrInvalidPath},
	{in: "a\xc0\xaf.md", kind: ErrInvalidPath},                      // overlong UTF-8 for '/'
	{in: strings.Repeat("a/", 510) + "bc.md", kind: ErrInvalidPath}, // 1025 bytes
	{in: strings.Repeat("a", 5000), kind: ErrInvalidPath},
	// Windows's own rules (windows: true): ordinary names on Linux and macOS.
	{in: "secret.md.", kind: ErrInvalidPath, windows: true, want: "secret.md."},
	{in: "secret.md ", kind: ErrInvalidPath, windows: true, want: "secret.md "},
	{in: "secret.md. . ", kind: ErrInvalidPath, windows: true, want: "secret.md. . "},
	{in: "Folder./Note.md", kind: ErrInvalidPath, windows: true, want: "Folder./Note.md"},
	{in: "CON", kind: ErrInvalidPath, windows: true, want: "CON"},
	{in: "nul.md", kind: ErrInvalidPath, windows: true, want: "nul.md"},
	{in: "Folder/com1.md", kind: ErrInvalidPath, windows: true, want: "Folder/com1.md"},
	{in: "LPT¹.md", kind: ErrInvalidPath, windows: true, want: "LPT¹.md"},
	{in: "conout$.md", kind: ErrInvalidPath, windows: true, want: "conout$.md"},
	{in: "AUX .md", kind: ErrInvalidPath, windows: true, want: "AUX .md"},

	// Outside the vault.
	{in: "/", kind: ErrOutside},
	{in: "/etc/passwd", kind: ErrOutside},
	{in: `\etc\passwd`, kind: ErrOutside},
	{in: "..", kind: ErrOutside},
	{in: "../x.md", kind: ErrOutside},
	{in: "a/../../x.md", kind: ErrOutside},
	{in: `..\..\x.md`, kind: ErrOutside},
	{in: `a\..\..\x.md`, kind: ErrOutside},
	{in: "../vault/Note.md", kind: ErrOutside},
	{in: `C:\Windows\win.ini`, kind: ErrOutside},
	{in: "C:x.md", kind: ErrOutside, windows: true, want: "C:x.md"},
	{in: "./A:", kind: ErrOutside},
	{in: "x/../C:/y.md", kind: ErrOutside},
	{in: "c:/x.md", kind: ErrOutside},
	{in: "Z:", kind: ErrOutside},
	{in: "Meeting 10:30.md", kind: ErrOutside, windows: true, want: "Meeting 10:30.md"},
	{in: "Q: why/A: because.md", kind: ErrOutside, windows: true, want: "Q: why/A: because.md"},
	{in: `\\?\C:\x.md`, kind: ErrOutside},
	{in: `\??\C:\x.md`, kind: ErrOutside},
	{in: `\\.\PhysicalDrive0`, kind: ErrOutside},
	{in: `\\server\share\x.md`, kind: ErrOutside},
	{in: "//server/share/x.md", kind: ErrOutside},
	{in: "Note.md:secret", kind: ErrOutside, windows: true, want: "Note.md:secret"},
	{in: "Note.md::$DATA", kind: ErrOutside, windows: true, want: "Note.md::$DATA"},
	{in: "file:///etc/passwd", kind: ErrOutside, windows: true, want: "file:/etc/passwd"},
	{in: ".obsidian/app.json", kind: ErrOutside},
	{in: ".trash/Old.md", kind: ErrOutside},
	{in: "Folder/.git/config", kind: ErrOutside},
	{in: ".env", kind: ErrOutside},
	{in: "..%2fsecret.md", kind: ErrOutside}, // a name starting with a dot: hidden
	{in: ".. /secret.md", kind: ErrOutside},  // Windows would read ".. " as ".."
	{in: "....//secret.md", kind: ErrOutside},
	{in: `....\\secret.md`, kind: ErrOutside},
	{in: ".../secret.md", kind: ErrOutside},
}

// TestCleanPath runs the table with Windows's rules and without, whatever the system.
func TestCleanPath(t *testing.T) {
	for _, windows := range []bool{true, false} {
		for _, tc := range cleanPathTests {
			got, err := cleanPath(tc.in, windows)
			if tc.kind == nil || tc.windows && !windows {
				if err != nil || got != tc.want {
					t.Errorf("cleanPath(%q, windows %v) = %q, %v; want %q", tc.in, windows, got, err, tc.want)
				}
				continue
			}
			if !errors.Is(err, tc.kind) {
				t.Errorf("cleanPath(%q, windows %v) = %q, %v; want an error matching %q", tc.in, windows, got, err, tc.kind)
			}
		}
	}
}

func TestCleanPathMessages(t *testing.T) {
	for in, want := range map[string]string{
		"":            `path is empty; send a path relative to the vault root, like "Folder/Note.md"`,
		"../x.md":     `path "../x.md" leaves the vault; send a path relative to the vault root, like "Folder/Note.md"`,
		"/etc/passwd": `path "/etc/passwd" is absolute; send a path relative to the vault root, like "Folder/Note.md"`,
		`C:\x.md`:     `path "C:\\x.md" contains ':', which names a drive or a file stream; send a path relative to the vault root, like "Folder/Note.md"`,
		"secret.md.":  `path "secret.md." has a name ending in a dot or space ("secret.md."); send the exact name of the note`,
		".trash/a.md": `path ".trash/a.md" includes ".trash"; hidden files and folders (names starting with a dot) are not part of the vault`,
		"nul.md":      `path "nul.md" uses "nul.md", which Windows reserves for a device; send a path relative to the vault root, like "Folder/Note.md"`,
		"a\x00.md":    `path "a\x00.md" contains a control character; send a path relative to the vault root, like "Folder/Note.md"`,
		// A long path is not echoed back.
		strings.Repeat("a", 5000): `path is 5000 bytes long, more than the limit of 1024; send a path relative to the vault root, like "Folder/Note.md"`,
	} {
		_, err := cleanPath(in, true)
		if err == nil || err.Error() != want {
			t.Errorf("cleanPath(%q, windows) error:\n got %v\nwant %s", in, err, want)
		}
	}
}

func TestNotePath(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		kind     error
	}{
		{in: "Folder/Note.md", want: "Folder/Note.md"},
		{in: "Folder/Note.MD", want: "Folder/Note.MD"},
		{in: "Folder/Note", want: "Folder/Note.md"},
		{in: `Folder\Note`, want: "Folder/Note.md"},
		{in: "Dr. Smith", want: "Dr. Smith.md"},
		{in: "Release v1.2", want: "Release v1.2.md"},
		{in: "Meeting 2024.01.05", want: "Meeting 2024.01.05.md"},
		// At the limit without ".md", over it with: the fuzzer's find.
		{in: strings.Repeat("a/", 510) + "bc", kind: ErrInvalidPath},
		{in: "Tools/Node.js.md", want: "Tools/Node.js.md"},
		{in: "Folder.v2/Note", want: "Folder.v2/Note.md"},
		{in: "image.png", kind: ErrNotNote},
		{in: "Board.canvas", kind: ErrNotNote},
		{in: "Tools/Node.js", kind: ErrNotNote},
		{in: "notes.txt", kind: ErrNotNote},
		{in: "../Note", kind: ErrOutside},
		{in: "", kind: ErrInvalidPath},
	} {
		got, err := NotePath(tc.in)
		if tc.kind == nil {
			if err != nil || got != tc.want {
				t.Errorf("NotePath(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
			continue
		}
		if !errors.Is(err, tc.kind) {
			t.Errorf("NotePath(%q) = %q, %v; want an error matching %q", tc.in, got, err, tc.kind)
		}
	}

	_, err := NotePath("Tools/Node.js")
	want := `path "Tools/Node.js" is not a note: only Markdown notes (.md) can be read; if the note's name really ends in ".js", send "Tools/Node.js.md"`
	if err == nil || err.Error() != want {
		t.Errorf("NotePath error:\n got %v\nwant %s", err, want)
	}
}
