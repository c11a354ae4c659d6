package vault

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"vaultmcp/shared/permtest"
	"vaultmcp/shared/testvaults"
)

const secret = "the secret beside the vault"

// newVault writes files (vault-relative path → content) into a fresh vault folder and opens
// it. Beside the vault, outside it, lies secret.md, which no read may ever return.
func newVault(t *testing.T, files map[string]string) *Vault {
	t.Helper()
	parent := t.TempDir()
	write(t, filepath.Join(parent, "secret.md"), secret)
	dir := filepath.Join(parent, "vault")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		write(t, filepath.Join(dir, filepath.FromSlash(name)), content)
	}
	v, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	return v
}

func write(t *testing.T, name, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// symlink makes a symbolic link inside the vault, or skips the test where the OS or the
// user may not make one (Windows without developer mode).
func symlink(t *testing.T, v *Vault, target, name string) {
	t.Helper()
	if err := os.Symlink(target, filepath.Join(v.Dir(), filepath.FromSlash(name))); err != nil {
		t.Skipf("cannot make symbolic links here: %v", err)
	}
}

// caseSensitive reports whether the file system under v tells "a.md" from "A.md"
// (Linux does; macOS and Windows by default do not).
func caseSensitive(t *testing.T, v *Vault) bool {
	t.Helper()
	write(t, filepath.Join(v.Dir(), "case-probe.md"), "")
	defer os.Remove(filepath.Join(v.Dir(), "case-probe.md"))
	_, err := os.Stat(filepath.Join(v.Dir(), "CASE-PROBE.md"))
	return err != nil
}

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "note.md")
	write(t, file, "")
	for _, tc := range []struct{ dir, want string }{
		{"", "no vault folder given"},
		{filepath.Join(dir, "missing"), "vault folder " + filepath.Join(dir, "missing") + " does not exist"},
		{file, "vault folder " + file + " is a file, not a folder"},
	} {
		if _, err := Open(tc.dir); err == nil || err.Error() != tc.want {
			t.Errorf("Open(%q) error = %v; want %q", tc.dir, err, tc.want)
		}
	}

	t.Chdir(dir)
	v, err := Open(".")
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if wd, _ := os.Getwd(); v.Dir() != wd {
		t.Errorf("Dir() = %q; want the absolute path %q", v.Dir(), wd)
	}
}

func TestReadNote(t *testing.T) {
	v := newVault(t, map[string]string{
		"Home.md":              "# Home",
		"Projects/plan.md":     "# plan",
		"Projects/Planning.md": "# Planning",
		"Folder.md/inside.md":  "inside",
		"image.png":            "png",
		"exactly.md":           strings.Repeat("x", MaxNoteSize),
		"big.md":               strings.Repeat("x", MaxNoteSize+1),
	})

	for _, tc := range []struct{ in, note, content string }{
		{"Home.md", "Home.md", "# Home"},
		{"Home", "Home.md", "# Home"},
		{`Projects\Planning`, "Projects/Planning.md", "# Planning"},
		{"Projects/../Home.md", "Home.md", "# Home"},
		{"Folder.md/inside", "Folder.md/inside.md", "inside"},
	} {
		note, content, err := v.ReadNote(tc.in)
		if err != nil || note != tc.note || string(content) != tc.content {
			t.Errorf("ReadNote(%q) = %q, %q, %v; want %q, %q", tc.in, note, content, err, tc.note, tc.content)
		}
	}
	if _, content, err := v.ReadNote("exactly.md"); err != nil || len(content) != MaxNoteSize {
		t.Errorf("ReadNote(exactly.md) = %d bytes, %v; want %d bytes", len(content), err, MaxNoteSize)
	}

	for _, tc := range []struct {
		in   string
		kind error
		want string // the whole message, when given
	}{
		{"Missing.md", ErrNotFound, `note "Missing.md" not found; paths are relative to the vault root, like "Folder/Note.md"`},
		{"Projects/Plann.md", ErrNotFound, `note "Projects/Plann.md" not found; did you mean "Projects/plan.md" or "Projects/Planning.md"?`},
		{"Home.md/Other.md", ErrNotFound, ""},
		{"image.png", ErrNotNote, ""},
		{"Folder.md", ErrNotNote, `"Folder.md" is a folder, not a note; send the path of a note inside it, like "Folder.md/Note.md"`},
		{"Projects", ErrNotNote, `"Projects" is a folder, not a note; send the path of a note inside it, like "Projects/Note.md"`},
		{"big.md", ErrTooLarge, `note "big.md" is larger than 8 MiB, too large to read`},
		{"../secret.md", ErrOutside, ""},
		{"C:/secret.md", ErrOutside, ""},
	} {
		note, content, err := v.ReadNote(tc.in)
		if !errors.Is(err, tc.kind) || note != "" || content != nil {
			t.Errorf("ReadNote(%q) = %q, %d bytes, %v; want an error matching %q", tc.in, note, len(content), err, tc.kind)
			continue
		}
		if tc.want != "" && err.Error() != tc.want {
			t.Errorf("ReadNote(%q) error:\n got %v\nwant %s", tc.in, err, tc.want)
		}
	}
}

// TestReadNoteText refuses files that are not text, whatever their name, and keeps notes
// that are text, even in an old encoding.
func TestReadNoteText(t *testing.T) {
	noise := make([]byte, 4096) // bytes without a NUL, as compressed data might start
	for i := range noise {
		noise[i] = byte(i*131%255 + 1)
	}
	latin1 := strings.Repeat("Le ch\xe2teau \xe9tait tr\xe8s \xe9l\xe9gant, \xe0 c\xf4t\xe9 de l'\xe9glise. ", 100)
	cp1251 := strings.Repeat("\xcf\xf0\xe8\xe2\xe5\xf2, \xea\xe0\xea \xe4\xe5\xeb\xe0? ", 200) // "Привет, как дела?"
	v := newVault(t, map[string]string{
		"image.md":    "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00",
		"utf16.md":    "\xff\xfe#\x00 \x00T\x00i\x00t\x00l\x00e\x00",
		"noise.md":    string(noise),
		"cp1251.md":   cp1251,
		"latin1.md":   latin1,
		"late.md":     strings.Repeat("text ", sniffSize/5+1) + "\x00 a NUL past the start",
		"controls.md": "# Log\n\x1b[1mbold\x1b[0m\ttab\fform feed\r\n",
		"empty.md":    "",
	})
	for _, note := range []string{"image.md", "utf16.md", "noise.md", "cp1251.md"} {
		_, content, err := v.ReadNote(note)
		if !errors.Is(err, ErrNotNote) || content != nil || !strings.HasPrefix(err.Error(), fmt.Sprintf("%q is not a note: ", note)) {
			t.Errorf("ReadNote(%q) = %d bytes, %v; want it refused as not a note", note, len(content), err)
		}
	}
	for _, note := range []string{"latin1.md", "late.md", "controls.md", "empty.md"} {
		if _, _, err := v.ReadNote(note); err != nil {
			t.Errorf("ReadNote(%q): %v; want the note", note, err)
		}
	}
}

func TestReadNoteSymlinks(t *testing.T) {
	v := newVault(t, map[string]string{"Home.md": "# Home", "Projects/plan.md": "# plan"})
	parent := filepath.Dir(v.Dir())
	symlink(t, v, "Home.md", "linked.md")
	symlink(t, v, "Projects", "Linked folder")
	symlink(t, v, filepath.Join("..", "secret.md"), "relative.md")
	symlink(t, v, filepath.Join(parent, "secret.md"), "absolute.md")
	symlink(t, v, "..", "up")
	symlink(t, v, parent, "up-absolute")
	symlink(t, v, "loop.md", "loop.md")

	// Inside pointing inside: allowed, as in Obsidian. The path is the link's own.
	for in, want := range map[string]string{"linked.md": "# Home", "Linked folder/plan.md": "# plan"} {
		if note, content, err := v.ReadNote(in); err != nil || note != in || string(content) != want {
			t.Errorf("ReadNote(%q) = %q, %q, %v; want %q", in, note, content, err, want)
		}
	}

	// Pointing outside: refused by os.Root, with a message that does not say where.
	for _, in := range []string{"relative.md", "absolute.md", "up/secret.md", "up-absolute/secret.md", "up/vault/Home.md"} {
		_, content, err := v.ReadNote(in)
		if !errors.Is(err, ErrOutside) || content != nil {
			t.Errorf("ReadNote(%q) = %q, %v; want an error matching %q", in, content, err, ErrOutside)
			continue
		}
		want := `"` + in + `" leads outside the vault through a symbolic link; only notes inside the vault can be read`
		if err.Error() != want {
			t.Errorf("ReadNote(%q) error:\n got %v\nwant %s", in, err, want)
		}
	}

	_, _, err := v.ReadNote("loop.md")
	if err == nil || errors.Is(err, ErrNotFound) || strings.Contains(err.Error(), parent) {
		t.Errorf("ReadNote(loop.md) error = %v; want a failure that does not show the vault's folder", err)
	}
}

func TestNotes(t *testing.T) {
	v := newVault(t, map[string]string{
		"Home.md":                       "",
		"a b.md":                        "",
		"a/b.md":                        "",
		"Projects/plan.md":              "",
		"Projects/Planning.MD":          "",
		"Folder.md/inside.md":           "",
		"image.png":                     "",
		"notes.txt":                     "",
		"README":                        "",
		".hidden.md":                    "",
		".obsidian/app.json":            "",
		".obsidian/plugins/x/README.md": "",
		".trash/Old.md":                 "",
		".git/notes.md":                 "",
		"Folder/.draft.md":              "",
	})
	want := []string{"Folder.md/inside.md", "Home.md", "Projects/Planning.MD", "Projects/plan.md", "a b.md", "a/b.md"}

	// Names that Linux and macOS allow but Windows does not, or that a model cannot send back,
	// are left out, each with the reason: a vault answers alike on every system.
	wantSkipped := map[string]string{}
	if runtime.GOOS != "windows" {
		for name, why := range map[string]string{
			`back\slash.md`:     "holds a backslash, which tool calls read as a folder separator",
			"line\nbreak.md":    "holds a control character, so no tool call can name it",
			"bad\xff.md":        "is not valid UTF-8, so no tool call can name it",
			"tab\tfolder/in.md": "holds a control character, so no tool call can name it",
			"C:/drive.md":       "holds ':', which Windows and Obsidian refuse in a name",
			"Meeting 10:30.md":  "holds ':', which Windows and Obsidian refuse in a name",
			"What is SQL?.md":   `holds one of <>"|?*, which Windows and Obsidian refuse in a name`,
			"trailing /x.md":    "has a name ending in a space or a dot, which Windows drops",
			"Folder./x.md":      "has a name ending in a space or a dot, which Windows drops",
			"Aux/nul.md":        "uses a name Windows keeps for a device (CON, NUL, COM1 and the like)",
		} {
			write(t, filepath.Join(v.Dir(), name), "")
			wantSkipped[name] = "not indexed: its path " + why + "; rename the note or its folder to index it"
		}
		write(t, filepath.Join(v.Dir(), ".hidden\\x.md"), "")  // hidden: left out without a word
		write(t, filepath.Join(v.Dir(), `back\slash.txt`), "") // not a note
	}
	if os.Symlink("Home.md", filepath.Join(v.Dir(), "linked.md")) == nil {
		os.Symlink("..", filepath.Join(v.Dir(), "up"))
		os.Symlink(filepath.Join("..", "secret.md"), filepath.Join(v.Dir(), "outside.md"))
		os.Symlink("Projects", filepath.Join(v.Dir(), "Linked folder"))
		want = append(want, "linked.md")
		slices.Sort(want)
	}

	got, err := v.Notes()
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("Notes() = %q, %v\nwant %q", got, err, want)
	}
	// NotesAfter pages through the same list, whatever the page size.
	for _, n := range []int{1, 2, 3, len(want) - 1, len(want), len(want) + 1} {
		if paged := pages(t, v, n); !slices.Equal(paged, want) {
			t.Errorf("NotesAfter, %d at a time = %q\nwant %q", n, paged, want)
		}
	}
	for _, note := range got {
		if clean, err := NotePath(note); clean != note || err != nil {
			t.Errorf("NotePath(%q) = %q, %v; want it unchanged", note, clean, err)
		}
		if read, _, err := v.ReadNote(note); read != note || err != nil {
			t.Errorf("ReadNote(%q) = %q, %v; want the note", note, read, err)
		}
	}

	// NoteInfos lists the same notes, each with what Stat says of it (a link's target), and
	// says why it leaves the others out.
	infos, skipped, err := v.NoteInfos()
	if err != nil || len(infos) != len(want) {
		t.Fatalf("NoteInfos() = %d notes, %v; want %d", len(infos), err, len(want))
	}
	for name, why := range wantSkipped {
		if err := skipped[name]; err == nil || err.Error() != why || !errors.Is(err, ErrInvalidPath) {
			t.Errorf("NoteInfos() skipped %q: %v\nwant %s", name, err, why)
		}
	}
	if len(skipped) != len(wantSkipped) {
		t.Errorf("NoteInfos() skipped %v, want only %v", skipped, wantSkipped)
	}
	for _, note := range want {
		_, stat, err := v.Stat(note)
		info, ok := infos[note]
		if err != nil || !ok || info.Size() != stat.Size() || !info.ModTime().Equal(stat.ModTime()) || !info.Mode().IsRegular() {
			t.Errorf("NoteInfos()[%q] = %v, want what Stat says: %v (%v)", note, info, stat, err)
		}
	}
}

// pages lists every note with NotesAfter, n at a time, checking that each page but the
// last is full and says more follow.
func pages(t *testing.T, v *Vault, n int) []string {
	t.Helper()
	var all []string
	for after := ""; ; {
		page, more, err := v.NotesAfter(after, n)
		if err != nil || len(page) > n || more && len(page) < n {
			t.Fatalf("NotesAfter(%q, %d) = %q, %v, %v", after, n, page, more, err)
		}
		all = append(all, page...)
		if !more {
			return all
		}
		after = page[len(page)-1]
	}
}

// TestUnreadableFolder: a folder this process may not read, such as lost+found or another
// user's folder, is left out of the listing and named with the reason; the rest is listed. As
// root, whom permissions do not bind, it runs as the user nobody.
func TestUnreadableFolder(t *testing.T) {
	if permtest.Unprivileged(t) {
		return
	}
	v := newVault(t, map[string]string{"Home.md": "", "Private/Diary.md": "", "Private/Deeper/Plan.md": "", "Open/Plan.md": ""})
	permtest.Chmod(t, filepath.Join(v.Dir(), "Private"), 0)
	want := []string{"Home.md", "Open/Plan.md"}
	skipped := map[string]string{"Private": "permission denied"}

	got, err := v.Notes()
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("Notes() = %q, %v; want %q", got, err, want)
	}
	if got := v.SkippedFolders(); !maps.Equal(got, skipped) {
		t.Errorf("after Notes, SkippedFolders() = %q; want %q", got, skipped)
	}
	if paged := pages(t, v, 1); !slices.Equal(paged, want) {
		t.Errorf("NotesAfter, one at a time = %q; want %q", paged, want)
	}
	infos, _, err := v.NoteInfos()
	if err != nil || len(infos) != len(want) {
		t.Errorf("NoteInfos() = %d notes, %v; want %d", len(infos), err, len(want))
	}
	if got := v.SkippedFolders(); !maps.Equal(got, skipped) {
		t.Errorf("after NoteInfos, SkippedFolders() = %q; want %q", got, skipped)
	}
}

// TestGarden runs on a real vault: emoji names, and a note "⏰ ToDo Lists.md" beside a folder
// "⏰ Todo Lists" whose name differs only in case.
func TestGarden(t *testing.T) {
	dir := testvaults.Dir(t, "obsidian-garden")
	v, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()

	notes, err := v.Notes()
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(p) == ".md" {
			rel, _ := filepath.Rel(dir, p)
			want = append(want, filepath.ToSlash(rel))
		}
		return err
	})
	slices.Sort(want)
	if !slices.Equal(notes, want) {
		t.Errorf("Notes() =\n%q\nwant\n%q", notes, want)
	}
	if paged := pages(t, v, 7); !slices.Equal(paged, want) {
		t.Errorf("NotesAfter, 7 at a time =\n%q\nwant\n%q", paged, want)
	}
	for _, note := range []string{"⏰ ToDo Lists.md", "⏰ Todo Lists/Obsidian Garden Todo.md", "👨‍👧‍👦 People/👨🏻‍🌾 Bob.md"} {
		if !slices.Contains(notes, note) {
			t.Errorf("Notes() lacks %q", note)
		}
	}
	for _, note := range notes {
		if got, content, err := v.ReadNote(note); got != note || len(content) == 0 || err != nil {
			t.Errorf("ReadNote(%q) = %q, %d bytes, %v", note, got, len(content), err)
		}
	}

	// Obsidian-style, without ".md": the note, not the folder beside it.
	if _, content, err := v.ReadNote("⏰ ToDo Lists"); err != nil || !strings.Contains(string(content), "Todo") {
		t.Errorf(`ReadNote("⏰ ToDo Lists") = %.40q, %v`, content, err)
	}
	_, _, err = v.ReadNote("⏰ todo lists")
	if err != nil && !strings.Contains(err.Error(), `did you mean "⏰ ToDo Lists.md"`) {
		t.Errorf(`ReadNote("⏰ todo lists") error = %v; want it to suggest "⏰ ToDo Lists.md"`, err)
	}
}

func TestStat(t *testing.T) {
	v := newVault(t, map[string]string{"Notes/a.md": "12345"})
	note, info, err := v.Stat(`Notes\a`)
	if err != nil || note != "Notes/a.md" || info.Size() != 5 {
		t.Fatalf("Stat = %q, %v, %v; want Notes/a.md of 5 bytes", note, info, err)
	}
	for in, kind := range map[string]error{"Notes": ErrNotNote, "Notes/b.md": ErrNotFound, "../a.md": ErrOutside} {
		if _, _, err := v.Stat(in); !errors.Is(err, kind) {
			t.Errorf("Stat(%q) = %v, want %v", in, err, kind)
		}
	}
}
