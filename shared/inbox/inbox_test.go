package inbox_test

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"vaultmcp/shared/frontmatter"
	"vaultmcp/shared/inbox"
	"vaultmcp/shared/markdown"
	"vaultmcp/shared/permtest"
	"vaultmcp/shared/vault"
)

const secret = "the secret beside the vault"

// newVault makes an empty vault folder and, beside it, a folder "outside" holding secret.md,
// which no note may ever overwrite or land next to. It returns the open vault and the
// outside folder.
func newVault(t testing.TB) (*vault.Vault, string) {
	t.Helper()
	parent := t.TempDir()
	outside := filepath.Join(parent, "outside")
	write(t, filepath.Join(outside, "secret.md"), secret)
	dir := filepath.Join(parent, "vault")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	v, err := vault.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	return v, outside
}

func openInbox(t testing.TB, v *vault.Vault, folder string) *inbox.Inbox {
	t.Helper()
	in, err := inbox.Open(v, folder)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close() })
	return in
}

func write(t testing.TB, name, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// symlink makes a symbolic link, or skips the test where the OS or the user may not make
// one (Windows without developer mode).
func symlink(t *testing.T, target, name string) {
	t.Helper()
	if err := os.Symlink(target, name); err != nil {
		t.Skipf("cannot make symbolic links here: %v", err)
	}
}

// tree returns every file, folder and link under dir with its content (a link's target),
// without following links, to show that nothing changed.
func tree(t testing.TB, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			files[rel] = "→ " + target
			return err
		case d.IsDir():
			files[rel+"/"] = ""
		default:
			b, err := os.ReadFile(p)
			files[rel] = string(b)
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// readBack reads note as get_note and the index will, and fails the test unless it holds
// exactly the tags and the body that were written.
func readBack(t testing.TB, v *vault.Vault, note string, tags []string, content string) {
	t.Helper()
	_, data, err := v.ReadNote(note)
	if err != nil {
		t.Fatalf("reading %q back: %v", note, err)
	}
	want := map[string]any{"created_by": "vaultmcp"}
	if len(tags) > 0 {
		list := make([]any, len(tags))
		for i, tag := range tags {
			list[i] = tag
		}
		want["tags"] = list
	}
	fm, body, _ := frontmatter.Split(string(data))
	if !fm.Present || fm.Err != nil || !reflect.DeepEqual(fm.Fields, want) {
		t.Fatalf("%q: frontmatter %#v (error %v); want %#v\nnote:\n%s", note, fm.Fields, fm.Err, want, data)
	}
	if body != content {
		t.Fatalf("%q: body %q; want %q", note, body, content)
	}
	// The index finds the tags through shared/markdown.
	var got []string
	for _, tag := range markdown.Parse(note, string(data)).Tags {
		if tag.Line == 0 {
			got = append(got, tag.Name)
		}
	}
	if !slices.Equal(got, tags) {
		t.Fatalf("%q: markdown reads the frontmatter tags %q; want %q", note, got, tags)
	}
}

func TestCreate(t *testing.T) {
	v, _ := newVault(t)
	in := openInbox(t, v, inbox.DefaultFolder)

	note, err := in.Create("Re: budget?", "Numbers for Q3.\n", []string{"#finance", "q3", "finance"})
	if err != nil {
		t.Fatal(err)
	}
	if note != "Inbox/Re budget.md" {
		t.Errorf("Create returned %q; want %q", note, "Inbox/Re budget.md")
	}
	got, err := os.ReadFile(filepath.Join(v.Dir(), "Inbox", "Re budget.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := "---\ncreated_by: vaultmcp\ntags:\n  - finance\n  - q3\n---\nNumbers for Q3.\n"
	if string(got) != want {
		t.Errorf("the note on disk is\n%s\nwant\n%s", got, want)
	}
	readBack(t, v, note, []string{"finance", "q3"}, "Numbers for Q3.\n")

	// Without tags the note still opens with frontmatter, so its own "---" is body.
	note, err = in.Create("Empty", "---\ntags: [evil]\n---\n", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(v.Dir(), "Inbox", "Empty.md")); string(got) != "---\ncreated_by: vaultmcp\n---\n---\ntags: [evil]\n---\n" {
		t.Errorf("the note on disk is %q", got)
	}
	readBack(t, v, note, nil, "---\ntags: [evil]\n---\n")
}

func TestOpen(t *testing.T) {
	v, _ := newVault(t)
	for _, tc := range []struct{ folder, want string }{
		{"Inbox", "Inbox"},
		{"Inbox/", "Inbox"},
		{"./Notes//Inbox", "Notes/Inbox"},
		{`Notes\Later`, "Notes/Later"},
	} {
		in := openInbox(t, v, tc.folder)
		if in.Folder() != tc.want {
			t.Errorf("Open(%q).Folder() = %q; want %q", tc.folder, in.Folder(), tc.want)
		}
		if _, err := os.Stat(filepath.Join(v.Dir(), filepath.FromSlash(tc.want))); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Open(%q) made the folder before any note was created (%v)", tc.folder, err)
		}
	}

	for _, tc := range []struct {
		folder string
		kind   error // or nil
		want   string
	}{
		{"", vault.ErrInvalidPath, `inbox folder: path is empty; send a path relative to the vault root, like "Folder/Note.md"`},
		{".", vault.ErrInvalidPath, ""},
		{"..", vault.ErrOutside, ""},
		{"../Inbox", vault.ErrOutside, ""},
		{"/tmp/Inbox", vault.ErrOutside, ""},
		{`C:\Inbox`, vault.ErrOutside, ""},
		{".obsidian", vault.ErrOutside, ""},
		{"con", vault.ErrInvalidPath, ""},
		{strings.Repeat("a/", 384) + "b", nil, ""}, // 769 bytes: no room left for a 255-byte name
	} {
		in, err := inbox.Open(v, tc.folder)
		switch {
		case err == nil:
			in.Close()
			t.Errorf("Open(%.20q) succeeded; want it refused", tc.folder)
		case tc.kind != nil && !errors.Is(err, tc.kind):
			t.Errorf("Open(%.20q) error = %v; want a %v", tc.folder, err, tc.kind)
		case tc.want != "" && err.Error() != tc.want:
			t.Errorf("Open(%.20q) error = %v; want %q", tc.folder, err, tc.want)
		}
	}
}

// TestOpenWritesNothing: a server that starts makes no change to the vault. The inbox folder
// appears with the first note.
func TestOpenWritesNothing(t *testing.T) {
	v, _ := newVault(t)
	before := tree(t, v.Dir())
	in := openInbox(t, v, "Notes/Inbox")
	if after := tree(t, v.Dir()); !maps.Equal(after, before) {
		t.Fatalf("Open changed the vault:\nbefore %q\nafter  %q", before, after)
	}
	note, err := in.Create("First", "text", nil)
	if err != nil {
		t.Fatal(err)
	}
	readBack(t, v, note, nil, "text")
}

// TestCreateReadOnly: a vault this server may only read still opens, and Create says why it
// cannot write and who can change that, whether the inbox folder is missing or there.
func TestCreateReadOnly(t *testing.T) {
	if permtest.Unprivileged(t) {
		return
	}
	for _, existing := range []bool{false, true} {
		v, _ := newVault(t)
		folder := v.Dir()
		if existing {
			folder = filepath.Join(v.Dir(), "Inbox")
			if err := os.Mkdir(folder, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		permtest.Chmod(t, folder, 0o555)
		in := openInbox(t, v, "Inbox")
		_, err := in.Create("Plan", "text", nil)
		if !errors.Is(err, inbox.ErrReadOnly) {
			t.Fatalf("inbox exists %v: Create error = %v; want ErrReadOnly", existing, err)
		}
		for _, want := range []string{"may not write", "permission denied", "tell the user", "-inbox"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("inbox exists %v: Create error = %q; want it to say %q", existing, err, want)
			}
		}
	}
}

// TestCreateInTheWay puts things where the inbox folder should be: a file, a file where a
// folder on its path should be, and a symbolic link to nowhere. Open accepts each, so a server
// that only reads still starts; Create refuses each and changes nothing.
func TestCreateInTheWay(t *testing.T) {
	v, _ := newVault(t)
	write(t, filepath.Join(v.Dir(), "File"), "a file, not a folder")
	for _, folder := range []string{"File", "File/Inbox"} {
		before := tree(t, v.Dir())
		_, err := openInbox(t, v, folder).Create("Plan", "text", nil)
		if want := fmt.Sprintf("the inbox folder %q cannot be made: a file stands in its way", folder); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("inbox %q: Create error = %v; want %q", folder, err, want)
		}
		if after := tree(t, v.Dir()); !maps.Equal(after, before) {
			t.Errorf("files changed:\nbefore %q\nafter  %q", before, after)
		}
	}

	symlink(t, "Missing", filepath.Join(v.Dir(), "Inbox"))
	before := tree(t, v.Dir())
	if _, err := openInbox(t, v, "Inbox").Create("Plan", "text", nil); err == nil {
		t.Error("inbox is a link to nowhere: Create succeeded; want it refused")
	}
	if after := tree(t, v.Dir()); !maps.Equal(after, before) {
		t.Errorf("files changed:\nbefore %q\nafter  %q", before, after)
	}
}

// TestCreateTwins: a name that differs from an existing note's only in case, or in how an
// accent is encoded, is one file on macOS (and on Windows for case), and is refused with the
// existing name and the reason that applies.
func TestCreateTwins(t *testing.T) {
	v, _ := newVault(t)
	in := openInbox(t, v, "Inbox")
	write(t, filepath.Join(v.Dir(), "Inbox", "Seed swap at the library.md"), "mine")
	write(t, filepath.Join(v.Dir(), "Inbox", "Cafe\u0301 visit.md"), "NFD, as older Macs write it")
	write(t, filepath.Join(v.Dir(), "Inbox", "Crème fraîche.md"), "NFC")
	before := tree(t, v.Dir())

	const inCase, inEncoding = "only in case: one file on macOS and Windows", "only in how its accents are encoded: one file on macOS, and two names that look the same elsewhere"
	for title, want := range map[string][2]string{
		"SEED SWAP AT THE LIBRARY":  {"Seed swap at the library.md", inCase},
		"seed swap at the Library":  {"Seed swap at the library.md", inCase},
		"Café visit":                {"Cafe\u0301 visit.md", inEncoding},
		"CAFÉ VISIT":                {"Cafe\u0301 visit.md", "only in case and in how its accents are encoded: one file on macOS"},
		"Cre\u0300me frai\u0302che": {"Crème fraîche.md", inEncoding},
	} {
		_, err := in.Create(title, "twin", nil)
		if !errors.Is(err, inbox.ErrExists) || !strings.Contains(err.Error(), fmt.Sprintf("%q", want[0])) || !strings.Contains(err.Error(), want[1]) {
			t.Errorf("Create(%q) error = %v; want ErrExists naming %q and saying %q", title, err, want[0], want[1])
		}
	}
	if after := tree(t, v.Dir()); !maps.Equal(after, before) {
		t.Errorf("files changed:\nbefore %q\nafter  %q", before, after)
	}
	if _, err := in.Create("Seed swap at the library, part two", "another", nil); err != nil {
		t.Errorf("a name that is not a twin: %v", err)
	}
}

func TestCreateExists(t *testing.T) {
	v, _ := newVault(t)
	in := openInbox(t, v, "Inbox")
	mine := filepath.Join(v.Dir(), "Inbox", "Plan.md")
	write(t, mine, "my own plan, not to be touched\n")

	for _, title := range []string{"Plan", "Plan.md", "Plan.", " Plan?"} {
		_, err := in.Create(title, "overwritten!", []string{"evil"})
		if !errors.Is(err, inbox.ErrExists) {
			t.Fatalf("Create(%q) error = %v; want ErrExists", title, err)
		}
		if want := `a note named "Plan.md" already exists in "Inbox"; choose another title`; err.Error() != want {
			t.Errorf("Create(%q) error = %q; want %q", title, err, want)
		}
	}
	if got, _ := os.ReadFile(mine); string(got) != "my own plan, not to be touched\n" {
		t.Errorf("the existing note changed: %q", got)
	}
}

// TestCreateConcurrent races ten requests for one name: exactly one may win, and the note
// holds the winner's content only.
func TestCreateConcurrent(t *testing.T) {
	v, _ := newVault(t)
	in := openInbox(t, v, "Inbox")

	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		winners []string
	)
	for i := range 10 {
		wg.Go(func() {
			content := fmt.Sprintf("written by request %d\n", i)
			_, err := in.Create("Race", content, nil)
			switch {
			case err == nil:
				mu.Lock()
				winners = append(winners, content)
				mu.Unlock()
			case !errors.Is(err, inbox.ErrExists):
				t.Errorf("request %d: %v; want success or ErrExists", i, err)
			}
		})
	}
	wg.Wait()
	if len(winners) != 1 {
		t.Fatalf("%d requests created the note; want exactly 1", len(winners))
	}
	readBack(t, v, "Inbox/Race.md", nil, winners[0])
}

// TestCreateSymlinkOut puts symbolic links in the inbox where a new note would go, pointing
// out of the vault: to an existing file and to one that does not exist yet. Neither is
// followed.
func TestCreateSymlinkOut(t *testing.T) {
	v, outside := newVault(t)
	in := openInbox(t, v, "Inbox")
	// Open makes no folder (the first Create does); the links need one to sit in.
	if err := os.Mkdir(filepath.Join(v.Dir(), "Inbox"), 0o755); err != nil {
		t.Fatal(err)
	}
	symlink(t, filepath.Join(outside, "secret.md"), filepath.Join(v.Dir(), "Inbox", "Plan.md"))
	symlink(t, filepath.Join(outside, "new.md"), filepath.Join(v.Dir(), "Inbox", "Dangling.md"))
	symlink(t, "../../outside/secret.md", filepath.Join(v.Dir(), "Inbox", "Relative.md"))
	before := tree(t, filepath.Dir(v.Dir()))

	for _, title := range []string{"Plan", "Dangling", "Relative"} {
		if _, err := in.Create(title, "overwritten!", nil); !errors.Is(err, inbox.ErrExists) {
			t.Errorf("Create(%q) error = %v; want ErrExists", title, err)
		}
	}
	if after := tree(t, filepath.Dir(v.Dir())); !maps.Equal(after, before) {
		t.Errorf("files changed:\nbefore %q\nafter  %q", before, after)
	}
}

// TestInboxOutside points the inbox folder out of the vault with a symbolic link: before
// Open, and after Open, between two notes.
func TestInboxOutside(t *testing.T) {
	v, outside := newVault(t)
	symlink(t, outside, filepath.Join(v.Dir(), "Inbox"))
	symlink(t, filepath.Dir(v.Dir()), filepath.Join(v.Dir(), "Up"))
	before := tree(t, filepath.Dir(v.Dir()))

	for _, folder := range []string{"Inbox", "Up/outside", "Up/vault/Inbox", "Inbox/Sub"} {
		if _, err := openInbox(t, v, folder).Create("Note", "", nil); !errors.Is(err, vault.ErrOutside) {
			t.Errorf("inbox %q: Create error = %v; want ErrOutside", folder, err)
		}
	}
	if after := tree(t, filepath.Dir(v.Dir())); !maps.Equal(after, before) {
		t.Errorf("files changed:\nbefore %q\nafter  %q", before, after)
	}

	// The user, or something else, swaps the inbox for a link after Open.
	in := openInbox(t, v, "Later")
	if _, err := in.Create("First", "", nil); err != nil {
		t.Fatal(err)
	}
	later := filepath.Join(v.Dir(), "Later")
	if err := os.Rename(later, filepath.Join(v.Dir(), "Earlier")); err != nil {
		t.Fatal(err)
	}
	symlink(t, outside, later)
	before = tree(t, filepath.Dir(v.Dir()))
	_, err := in.Create("Second", "", nil)
	if !errors.Is(err, vault.ErrOutside) {
		t.Fatalf("Create after the swap: error = %v; want ErrOutside", err)
	}
	if want := `the inbox folder "Later" leads outside the vault through a symbolic link; notes are only created inside the vault`; err.Error() != want {
		t.Errorf("error = %q; want %q", err, want)
	}
	if after := tree(t, filepath.Dir(v.Dir())); !maps.Equal(after, before) {
		t.Errorf("files changed:\nbefore %q\nafter  %q", before, after)
	}
}

func TestCreateInboxDeleted(t *testing.T) {
	v, _ := newVault(t)
	in := openInbox(t, v, "Notes/Inbox")
	if err := os.RemoveAll(filepath.Join(v.Dir(), "Notes")); err != nil {
		t.Fatal(err)
	}
	note, err := in.Create("Still here", "text", nil)
	if err != nil {
		t.Fatal(err)
	}
	readBack(t, v, note, nil, "text")
}

func TestCreateLimits(t *testing.T) {
	long := func(n int) string { return strings.Repeat("a", n) }
	many := func(n int) []string {
		tags := make([]string, n)
		for i := range tags {
			tags[i] = fmt.Sprintf("tag%d", i)
		}
		return tags
	}
	// Accepted at the limit.
	for _, tc := range []struct {
		name       string
		content    string
		tags, want []string
	}{
		{"largest content", long(inbox.MaxContentSize), nil, nil},
		{"most tags", "", many(inbox.MaxTags), many(inbox.MaxTags)},
		{"longest tags", "", []string{long(inbox.MaxTagLen), "#b" + long(inbox.MaxTagLen-2)}, []string{long(inbox.MaxTagLen), "b" + long(inbox.MaxTagLen-2)}},
	} {
		v, _ := newVault(t)
		note, err := openInbox(t, v, "Inbox").Create(tc.name, tc.content, tc.tags)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		readBack(t, v, note, tc.want, tc.content)
	}

	// Refused, with nothing written.
	for _, tc := range []struct {
		content string
		tags    []string
		want    string
	}{
		{long(inbox.MaxContentSize + 1), nil, "content is 262145 bytes, more than the limit of 256 KiB; send less, or split it over several calls"},
		{"a\xffb", nil, "content is not valid UTF-8; send it as UTF-8 text"},
		{"a\x00b", nil, `content contains a NUL character (\x00), which would make the note a binary file; send text without it`},
		{strings.Repeat("\x1b", 19), nil, `content is mostly control characters (such as \x1b), which is not text a note can hold; send plain text`},
		{"", many(inbox.MaxTags + 1), "21 tags given, more than the limit of 20; send the 20 that matter most"},
		{"", []string{"ok", long(inbox.MaxTagLen + 1)}, `tag 2 is 101 bytes long, more than the limit of 100; send short tags, like "project/alpha"`},
		{"", []string{"\xff"}, "tag 1 is not valid UTF-8; send it as UTF-8 text"},
		{"", []string{""}, `tag 1 is empty; send tags like "project/alpha"`},
		{"", []string{"#"}, `tag 1 is empty; send tags like "project/alpha"`},
		{"", []string{"my project"}, `tag "my project" contains ' ', which a tag cannot hold; a tag is letters, digits, '_', '-' and '/' (for nested tags), without spaces, like "project/alpha"`},
		{"", []string{"2024"}, `tag "2024" is only digits, which Obsidian does not read as a tag; add a letter, like "y2024"`},
	} {
		v, _ := newVault(t)
		_, err := openInbox(t, v, "Inbox").Create("Note", tc.content, tc.tags)
		if !errors.Is(err, inbox.ErrInvalid) || err.Error() != tc.want {
			t.Errorf("Create(content %.20q, tags %.40q) error = %v; want %q", tc.content, tc.tags, err, tc.want)
		}
		if files := tree(t, v.Dir()); len(files) != 1 {
			t.Errorf("a refused note left files or folders behind: %q", files)
		}
	}
}

// hostileTags are tags that YAML would read as something else, or that would break out of
// the frontmatter, if they were written without care. Each is either refused or written so
// that it reads back exactly.
var hostileTags = []struct {
	tag, want string // want "" means refused
}{
	{"#project", "project"},
	{"##project", ""},
	{"project/alpha/2024", "project/alpha/2024"},
	{"---", "---"},
	{"-", "-"},
	{"-a", "-a"},
	{"_", "_"},
	{"true", "true"},
	{"False", "False"},
	{"null", "null"},
	{"Null", "Null"},
	{"yes", "yes"},
	{"off", "off"},
	{"y", "y"},
	{"NaN", "NaN"},
	{"inf", "inf"},
	{"2024-01-01", "2024-01-01"},
	{"2024-01", "2024-01"},
	{"-1", "-1"},
	{"1_000", "1_000"},
	{"0x1F", "0x1F"},
	{"0o17", "0o17"},
	{"0b101", "0b101"},
	{"1e3", "1e3"},
	{"2024/01", "2024/01"},
	{"é", "é"},
	{"中文", "中文"},
	{"👨\u200d👩\u200d👧", "👨\u200d👩\u200d👧"},
	{"2024", ""},
	{".inf", ""},
	{"a.b", ""},
	{"a b", ""},
	{"a\nb", ""},
	{"a\n---\nb", ""},
	{"a: b", ""},
	{"a:b", ""},
	{"*a", ""},
	{"&a", ""},
	{"!!binary", ""},
	{"{{date}}", ""},
	{"[a]", ""},
	{`"q"`, ""},
	{"'q'", ""},
	{"a,b", ""},
	{"a#b", ""},
	{"~", ""},
	{"<<", ""},
	{"a\x00b", ""},
	{"a\u0085b", ""},
	{"a\u2028b", ""},
	{"a\u202eb", ""},
	{"a\u200bb", ""},
	{"\ufffd", ""},
}

// hostileContents are bodies that look like frontmatter, YAML or Obsidian syntax. Each must
// come back byte for byte as the body, with the frontmatter untouched.
var hostileContents = []string{
	"",
	"\n",
	"---",
	"---\n",
	"---\ncreated_by: someone else\ntags: [evil]\n---\nbody\n",
	"\ufeff---\nx: 1\n---\n",
	"---\r\n---\r\n",
	"...\n---\n",
	"created_by: attacker\n",
	"a: b\n# Heading #tag\n*a &a {{date}} %% comment %%\n- item\n",
	"```yaml\n---\n```\n",
	"no newline at the end",
	"ünïcödé \u2028 \u202e \u200b",
	strings.Repeat("line\r\n", 20),
}

// TestRoundTrip writes hostile titles, tags and contents, and reads each note back as the
// index will: the fields are exactly those written, and the body is the content.
func TestRoundTrip(t *testing.T) {
	v, _ := newVault(t)
	i := 0
	folder := func() string { i++; return fmt.Sprintf("Inbox/%d", i) }

	for _, tc := range hostileTags {
		note, err := openInbox(t, v, folder()).Create("Tags", "body", []string{tc.tag})
		switch {
		case tc.want == "" && !errors.Is(err, inbox.ErrInvalid):
			t.Errorf("tag %q: error = %v; want an ErrInvalid refusal", tc.tag, err)
		case tc.want != "" && err != nil:
			t.Errorf("tag %q: %v", tc.tag, err)
		case tc.want != "":
			readBack(t, v, note, []string{tc.want}, "body")
		}
	}

	var tags []string
	for _, tc := range hostileTags {
		if tc.want != "" && !slices.Contains(tags, tc.want) {
			tags = append(tags, tc.want)
		}
	}
	for _, content := range hostileContents {
		note, err := openInbox(t, v, folder()).Create("Contents", content, tags[:inbox.MaxTags])
		if err != nil {
			t.Errorf("content %.40q: %v", content, err)
			continue
		}
		readBack(t, v, note, tags[:inbox.MaxTags], content)
	}

	for _, tc := range fileNameTests {
		in := openInbox(t, v, folder())
		content := "# " + tc.want
		note, err := in.Create(tc.title, content, nil)
		switch {
		case tc.want == "" && !errors.Is(err, inbox.ErrInvalid):
			t.Errorf("title %.40q: error = %v; want an ErrInvalid refusal", tc.title, err)
		case tc.want == "":
		case err != nil || note != in.Folder()+"/"+tc.want:
			t.Errorf("title %q: Create = %q, %v; want %q", tc.title, note, err, in.Folder()+"/"+tc.want)
		default:
			readBack(t, v, note, nil, content)
		}
	}
}
