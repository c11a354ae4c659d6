package vault

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// cleanPathTests are the spellings a hostile or confused model might send. FuzzCleanPath
// starts from them too.
var cleanPathTests = []struct {
	in   string
	want string // the cleaned path, when kind is nil
	kind error
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
	// Windows's rules, on every system: a vault synced to Windows cannot hold these names.
	{in: "What is SQL?.md", kind: ErrInvalidPath},
	{in: "a<b>.md", kind: ErrInvalidPath},
	{in: `say "hi".md`, kind: ErrInvalidPath},
	{in: "this|that.md", kind: ErrInvalidPath},
	{in: "*.md", kind: ErrInvalidPath},
	{in: "secret.md.", kind: ErrInvalidPath},
	{in: "secret.md ", kind: ErrInvalidPath},
	{in: "secret.md. . ", kind: ErrInvalidPath},
	{in: "Folder./Note.md", kind: ErrInvalidPath},
	{in: "CON", kind: ErrInvalidPath},
	{in: "nul.md", kind: ErrInvalidPath},
	{in: "Folder/com1.md", kind: ErrInvalidPath},
	{in: "LPT¹.md", kind: ErrInvalidPath},
	{in: "conout$.md", kind: ErrInvalidPath},
	{in: "AUX .md", kind: ErrInvalidPath},

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
	{in: "C:x.md", kind: ErrOutside},
	{in: "./A:", kind: ErrOutside},
	{in: "x/../C:/y.md", kind: ErrOutside},
	{in: "c:/x.md", kind: ErrOutside},
	{in: "Z:", kind: ErrOutside},
	{in: "Meeting 10:30.md", kind: ErrOutside},
	{in: "Q: why/A: because.md", kind: ErrOutside},
	{in: `\\?\C:\x.md`, kind: ErrOutside},
	{in: `\??\C:\x.md`, kind: ErrOutside},
	{in: `\\.\PhysicalDrive0`, kind: ErrOutside},
	{in: `\\server\share\x.md`, kind: ErrOutside},
	{in: "//server/share/x.md", kind: ErrOutside},
	{in: "Note.md:secret", kind: ErrOutside},
	{in: "Note.md::$DATA", kind: ErrOutside},
	{in: "file:///etc/passwd", kind: ErrOutside},
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

func TestCleanPath(t *testing.T) {
	for _, tc := range cleanPathTests {
		got, err := CleanPath(tc.in)
		if tc.kind == nil {
			if err != nil || got != tc.want {
				t.Errorf("CleanPath(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
			continue
		}
		if !errors.Is(err, tc.kind) {
			t.Errorf("CleanPath(%q) = %q, %v; want an error matching %q", tc.in, got, err, tc.kind)
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
		"why?.md":     `path "why?.md" contains one of <>"|?*, which no note's name can hold on Windows or in Obsidian; send the exact name of the note`,
		"nul.md":      `path "nul.md" uses "nul.md", which Windows reserves for a device; send a path relative to the vault root, like "Folder/Note.md"`,
		"a\x00.md":    `path "a\x00.md" contains a control character; send a path relative to the vault root, like "Folder/Note.md"`,
		// A long path is not echoed back.
		strings.Repeat("a", 5000): `path is 5000 bytes long, more than the limit of 1024; send a path relative to the vault root, like "Folder/Note.md"`,
	} {
		_, err := CleanPath(in)
		if err == nil || err.Error() != want {
			t.Errorf("CleanPath(%q) error:\n got %v\nwant %s", in, err, want)
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

// TestReservedStartsWithALetterOfADevice: Reserved passes over names whose first letter
// cannot begin a device name in upper case. It must answer as upper-casing the whole name
// would, whatever the first rune: every rune is tried before the rest of a device name that
// starts with each of the five letters.
func TestReservedStartsWithALetterOfADevice(t *testing.T) {
	devices := []string{"CON", "PRN", "AUX", "NUL", "LPT¹"}
	upperCased := func(name string) bool {
		base, _, _ := strings.Cut(name, ".")
		base = strings.ToUpper(strings.TrimRight(base, " "))
		return slices.Contains(devices, base)
	}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue // surrogates are not runes of UTF-8 text
		}
		for _, d := range devices {
			name := string(r) + d[1:] + ".md"
			if got, want := Reserved(name), upperCased(name); got != want {
				t.Fatalf("Reserved(%q) = %v, want %v", name, got, want)
			}
		}
	}
}

// TestServableName holds servableName, which a walk of the vault asks of each name it finds,
// to CleanPath, which a tool call's path goes through: a name passes exactly when CleanPath
// returns a path ending in it as it is. FuzzCleanPath asks the same of every name it makes.
func TestServableName(t *testing.T) {
	names := []string{"Note.md", "Ünïcödé.md", "日本語.md", "a b.md", "CON", "con.md", "Conın$.md",
		"COM1.md", "COM10.md", "lpt¹", "a.", "a ", " a", ".obsidian", "..", ".", "", "a:b.md",
		`a\b.md`, "a/b.md", "a\x01.md", "a\x7f.md", "a\u0085.md", "\xff.md", "a<b.md", "a|b", "a?.md", "a*"}
	for _, tc := range cleanPathTests {
		names = append(names, strings.Split(tc.in, "/")...)
	}
	for _, name := range names {
		checkServableName(t, name)
	}
}

// checkServableName fails the test unless servableName(name) says what CleanPath says of a
// path that ends in name, at the top of the vault and in a folder. A name holds no '/': a
// folder's listing never shows one.
func checkServableName(t *testing.T, name string) {
	t.Helper()
	if strings.Contains(name, "/") {
		return
	}
	for _, p := range []string{name, "Folder/" + name} {
		if len(p) > MaxPathLen {
			continue // the caller checks the whole path's length
		}
		clean, err := CleanPath(p)
		if want := err == nil && clean == p; servableName(name) != want {
			t.Errorf("servableName(%q) = %v, but CleanPath(%q) = %q, %v", name, !want, p, clean, err)
		}
	}
}
