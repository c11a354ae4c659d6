package inbox_test

import (
	"errors"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"vaultmcp/shared/inbox"
	"vaultmcp/shared/testvaults"
	"vaultmcp/shared/vault"
)

// fileNameTests are titles a hostile or careless model might send, and the file names they
// become; want "" means refused. FuzzFileName starts from them too.
var fileNameTests = []struct{ title, want string }{
	{"Meeting notes", "Meeting notes.md"},
	{"  Meeting \t  notes  ", "Meeting notes.md"},
	{"日本語のメモ", "日本語のメモ.md"},

	// Separators, drives and the characters Windows refuses become spaces.
	{"What is SQL?", "What is SQL.md"},
	{"Re: budget", "Re budget.md"},
	{"a/b", "a b.md"},
	{`a\b`, "a b.md"},
	{"../../etc/passwd", "etc passwd.md"},
	{`..\..\Windows\win.ini`, "Windows win.ini.md"},
	{`C:\Windows`, "C Windows.md"},
	{`\\server\share`, "server share.md"},
	{`\\?\C:\x`, "C x.md"},
	{"secret.md:stream", "secret.md stream.md"},
	{`<script>alert("x")</script>`, "script alert( x ) script.md"},
	{"a|b*c", "a b c.md"},
	// So do the characters Obsidian's links cannot hold.
	{"C# tips [draft] ^1", "C tips draft 1.md"},
	{"[[Other note]]", "Other note.md"},

	// Control characters and every kind of white space become one space.
	{"a\x00b", "a b.md"},
	{"a\nb\r\n", "a b.md"},
	{"a\x7fb\u0085c", "a b c.md"},
	{"a\u00a0b\u3000c\u2028d", "a b c d.md"},

	// Leading dots go, and trailing dots and spaces.
	{"Note.", "Note.md"},
	{"Note ", "Note.md"},
	{"Note. . .", "Note.md"},
	{".hidden", "hidden.md"},
	{"..secret", "secret.md"},
	{" . .x", "x.md"},
	{"Dr. Smith", "Dr. Smith.md"},
	{"v1.2", "v1.2.md"},

	// One ".md" is the extension the title meant.
	{"Plan.md", "Plan.md"},
	{"Plan.MD", "Plan.md"},
	{"Plan.md.", "Plan.md"},
	{"Plan.md.md", "Plan.md.md"},
	{"notes.txt", "notes.txt.md"},
	{".md", "md.md"},

	// Windows device names, in every form, get a "_" after the device name.
	{"CON", "CON_.md"},
	{"con", "con_.md"},
	{"con.md", "con_.md"},
	{"Aux.txt", "Aux_.txt.md"},
	{"PRN", "PRN_.md"},
	{"nul", "nul_.md"},
	{" nul. ", "nul_.md"},
	{"NUL.tar.gz", "NUL_.tar.gz.md"},
	{"COM0", "COM0_.md"},
	{"com1", "com1_.md"},
	{"COM9.log", "COM9_.log.md"},
	{"COM1:", "COM1_.md"},
	{"LPT0", "LPT0_.md"},
	{"lpt9", "lpt9_.md"},
	{"COM¹", "COM¹_.md"},
	{"com²", "com²_.md"},
	{"LPT³.txt", "LPT³_.txt.md"},
	{"CONIN$", "CONIN$_.md"},
	{"conout$.md", "conout$_.md"},
	{"AUX .txt", "AUX_ .txt.md"}, // Windows ignores the space before the dot
	// Names that only look like devices are kept.
	{"CONSOLE", "CONSOLE.md"},
	{"Con game", "Con game.md"},
	{"COM10", "COM10.md"},
	{"COM⁴", "COM⁴.md"},
	{"LPT", "LPT.md"},
	{"NULL", "NULL.md"},

	// Characters a reader sees stay; invisible ones go.
	{"👨\u200d👩\u200d👧 Family", "👨\u200d👩\u200d👧 Family.md"}, // joined by zero-width joiners
	{"Cafe\u0301", "Cafe\u0301.md"},                         // "e" and a combining accent
	{"نیم\u200cفاصله", "نیم\u200cفاصله.md"},                 // Persian needs the non-joiner
	{"\u202Egnp.exe", "gnp.exe.md"},                         // would display as "exe.png"
	{"a\u200bb", "ab.md"},                                   // zero-width space
	{"soft\u00adhyphen", "softhyphen.md"},                   // soft hyphen
	{"\ufeffBOM", "BOM.md"},                                 // byte order mark
	{"a\u2066b\u2069", "ab.md"},                             // directional isolate
	{"Scotland 🏴\U000E0067\U000E0062\U000E0073\U000E0063\U000E0074\U000E007F", "Scotland 🏴.md"}, // tag characters, invisible text

	// Nothing to name a file with.
	{"", ""},
	{"   ", ""},
	{"...", ""},
	{". . .", ""},
	{"???", ""},
	{"\x00", ""},
	{"\n\t", ""},
	{"#^[]|", ""},
	{"---", ""},
	{"🙂", ""},
	{"\u200b\u202e", ""},
	{"\u200d", ""},
	{"\xff", ""},
	{strings.Repeat("! ", 130) + "0", ""}, // the only digit is past the cut
	{strings.Repeat("a", inbox.MaxTitleLen+1), ""},
}

func TestFileName(t *testing.T) {
	for _, tc := range fileNameTests {
		got, err := inbox.FileName(tc.title)
		switch {
		case tc.want == "" && err == nil:
			t.Errorf("FileName(%q) = %q; want it refused", tc.title, got)
		case tc.want == "" && !errors.Is(err, inbox.ErrInvalid):
			t.Errorf("FileName(%q) error = %v; want an ErrInvalid refusal", tc.title, err)
		case tc.want != "" && (got != tc.want || err != nil):
			t.Errorf("FileName(%q) = %q, %v; want %q", tc.title, got, err, tc.want)
		case err == nil:
			checkName(t, tc.title, got)
		}
	}
}

func TestFileNameRefusals(t *testing.T) {
	for _, tc := range []struct{ title, want string }{
		{"???", `title "???" has no letters or digits to name a file with; send a title with letters or digits, like "Meeting notes"`},
		{"a\xffb", "title is not valid UTF-8; send it as UTF-8 text"},
		{strings.Repeat("x", 2000), "title is 2000 bytes long, more than the limit of 1024; send a short title"},
	} {
		if _, err := inbox.FileName(tc.title); err == nil || err.Error() != tc.want {
			t.Errorf("FileName(%.20q) error = %v; want %q", tc.title, err, tc.want)
		}
	}
}

// TestFileNameCut checks the cut to 255 bytes: never inside a character, and not inside
// what a reader sees as one character.
func TestFileNameCut(t *testing.T) {
	a := strings.Repeat("a", 255)
	for _, tc := range []struct{ name, title, want string }{
		{"ASCII", strings.Repeat("a", inbox.MaxTitleLen), a[:252]},
		{"CJK", strings.Repeat("語", 300), strings.Repeat("語", 84)},
		{"two-byte letter across the cut", a[:251] + "é", a[:251]},
		{"accent after the cut", a[:251] + "e\u0301", a[:251]},
		{"skin tone after the cut", a[:248] + "👍🏽", a[:248]},
		{"emoji joined by ZWJ", a[:244] + "👨\u200d👩\u200d👧", a[:244]},
		{"half a flag", a[:248] + "🇫🇷", a[:248]},
		{"two flags, cut between them", a[:244] + "🇫🇷🇩🇪", a[:244] + "🇫🇷"},
		{"dot exposed by the cut", a[:251] + ". b", a[:251]},
		{"one letter under many accents", "x" + strings.Repeat("\u0301", 300), "x" + strings.Repeat("\u0301", 125)},
	} {
		got, err := inbox.FileName(tc.title)
		if err != nil || got != tc.want+".md" {
			t.Errorf("%s: FileName = %q (%d bytes), %v; want %q", tc.name, got, len(got), err, tc.want+".md")
			continue
		}
		checkName(t, tc.title, got)
	}
}

// TestFileNameRealVaults checks that the names people gave their notes survive: the title of
// every note in the real vaults (its name without ".md") gives back its name, but for runs
// of spaces, which become one.
func TestFileNameRealVaults(t *testing.T) {
	root, err := testvaults.Root()
	if err != nil {
		t.Skipf("real vaults not available (%v); %s", err, testvaults.Fetch)
	}
	n := 0
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path.Ext(p) != ".md" {
			return err
		}
		n++
		name := filepath.Base(p)
		got, err := inbox.FileName(strings.TrimSuffix(name, ".md"))
		if want := strings.Join(strings.Split(name, "  "), " "); got != want || err != nil {
			t.Errorf("FileName(%q) = %q, %v; want %q", strings.TrimSuffix(name, ".md"), got, err, want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d note names checked", n)
}

// checkName fails the test unless name, made from title, is a file name valid on every
// operating system that get_note can read back.
func checkName(t *testing.T, title, name string) {
	t.Helper()
	stem, ok := strings.CutSuffix(name, ".md")
	switch {
	case !ok, len(name) > 255, !utf8.ValidString(name):
		t.Fatalf("%q → %q: no .md, longer than 255 bytes, or not UTF-8", title, name)
	case strings.HasPrefix(stem, "."), strings.HasPrefix(stem, " "), strings.HasSuffix(stem, "."), strings.HasSuffix(stem, " "):
		t.Fatalf("%q → %q: starts with a dot or space, or ends with one", title, name)
	case strings.Contains(stem, "  "):
		t.Fatalf("%q → %q: a run of spaces", title, name)
	case !strings.ContainsFunc(stem, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }):
		t.Fatalf("%q → %q: no letter or digit", title, name)
	}
	for _, r := range stem {
		if strings.ContainsRune(`<>:"/\|?*#^[]`, r) || unicode.IsControl(r) || (unicode.IsSpace(r) && r != ' ') ||
			(unicode.Is(unicode.Cf, r) && r != '\u200c' && r != '\u200d') {
			t.Fatalf("%q → %q: holds %q", title, name, r)
		}
	}
	// NotePath refuses device names, hidden names and anything that leaves the vault, so
	// get_note can read the note, and the vault lists it, under exactly this name.
	if p, err := vault.NotePath(name); p != name || err != nil {
		t.Fatalf("%q → %q, but vault.NotePath gives %q, %v", title, name, p, err)
	}
}

// A device name with a long tail keeps its "_" within the byte limit.
func TestFileNameDeviceAtTheLimit(t *testing.T) {
	for _, title := range []string{"CON." + strings.Repeat("a", 300), "aux." + strings.Repeat("é", 200), "LPT1." + strings.Repeat("🍅", 100)} {
		name, err := inbox.FileName(title)
		if err != nil || len(name) > 255 || !utf8.ValidString(name) || !strings.Contains(strings.ToUpper(name), "_") {
			t.Errorf("FileName(%.20q…) = %q (%d bytes), %v; want a safe device name of at most 255 bytes", title, name, len(name), err)
		}
	}
}
