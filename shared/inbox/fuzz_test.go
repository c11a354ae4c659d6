package inbox_test

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"vaultmcp/shared/inbox"
)

// FuzzFileName throws arbitrary titles at FileName. Run it with
//
//	go test -fuzz FuzzFileName -fuzztime 2000000x ./shared/inbox/
func FuzzFileName(f *testing.F) {
	for _, tc := range fileNameTests {
		f.Add(tc.title)
	}
	f.Fuzz(func(t *testing.T, title string) {
		name, err := inbox.FileName(title)
		if err != nil {
			if !errors.Is(err, inbox.ErrInvalid) {
				t.Fatalf("FileName(%q) error %v is not an ErrInvalid refusal", title, err)
			}
			return
		}
		checkName(t, title, name)
		// A file name is its own title: cleaning is done once and for all.
		if again, err := inbox.FileName(name); again != name || err != nil {
			t.Fatalf("FileName(%q) = %q, but FileName(%q) = %q, %v", title, name, name, again, err)
		}
	})
}

// FuzzCreate creates notes from arbitrary titles, contents and tags (comma-separated), and
// reads each back as the index will: the note is where FileName says, its frontmatter holds
// exactly the tags written, its body is the content byte for byte, and nothing else in or
// beside the vault changed. Run it with
//
//	go test -fuzz FuzzCreate -fuzztime 300000x ./shared/inbox/
func FuzzCreate(f *testing.F) {
	for i, tc := range fileNameTests {
		// Long seeds make the fuzzer's minimizing slow (it tries removing every run of
		// bytes); FuzzFileName covers long titles.
		if len(tc.title) <= 100 {
			f.Add(tc.title, hostileContents[i%len(hostileContents)], hostileTags[i%len(hostileTags)].tag)
		}
	}
	for _, content := range hostileContents {
		f.Add("Note", content, "#project,true,---,-a,2024-01-01")
	}
	for _, tc := range hostileTags {
		f.Add("Tags", "body", tc.tag+",x")
	}

	v, _ := newVault(f)
	in := openInbox(f, v, "Inbox")
	// The first note makes the inbox folder; make it now, so that it is in the snapshot.
	if err := os.Mkdir(filepath.Join(v.Dir(), "Inbox"), 0o755); err != nil {
		f.Fatal(err)
	}
	parent := filepath.Dir(v.Dir())
	before := tree(f, parent)

	f.Fuzz(func(t *testing.T, title, content, tagList string) {
		var tags []string
		if tagList != "" {
			tags = strings.Split(tagList, ",")
		}
		note, err := in.Create(title, content, tags)
		if err != nil {
			// The inbox is emptied after every note, so nothing can exist already.
			if !errors.Is(err, inbox.ErrInvalid) {
				t.Fatalf("Create(%q, %q, %q) error %v is not an ErrInvalid refusal", title, content, tags, err)
			}
			if files, _ := os.ReadDir(filepath.Join(v.Dir(), "Inbox")); len(files) > 0 {
				t.Fatalf("Create(%q, %q, %q) was refused but left %q", title, content, tags, files[0].Name())
			}
			return
		}
		defer os.Remove(filepath.Join(v.Dir(), filepath.FromSlash(note)))

		name, _ := inbox.FileName(title)
		if note != "Inbox/"+name {
			t.Fatalf("Create(%q) = %q; want %q", title, note, "Inbox/"+name)
		}
		checkName(t, title, name)
		var want []string
		for _, tag := range tags {
			if tag = strings.TrimPrefix(tag, "#"); !slices.Contains(want, tag) {
				want = append(want, tag)
			}
		}
		readBack(t, v, note, want, content)

		after := tree(t, parent)
		delete(after, filepath.Join("vault", "Inbox", name))
		if !maps.Equal(after, before) {
			t.Fatalf("Create(%q) changed other files: %q", title, after)
		}
	})
}
