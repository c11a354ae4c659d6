package main

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"vaultmcp/scripts/transcript"
)

// TestShownSectionsFindWhatTheyNeed: a reader pastes the commands a chapter shows, and only
// those, into a fresh copy of the sample vault. A shown section that reads a note, adds to
// it or removes it finds the note as the last section to write it left it; if the chapter
// does not show that section, the reader finds the note missing, or with other text, and the
// chapter's answers are not theirs.
func TestShownSectionsFindWhatTheyNeed(t *testing.T) {
	root, err := transcript.Root()
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(root, "guide", "*.md"))
	parsed := map[string][]transcript.Section{}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		chapter := filepath.Base(file)
		shown := map[[2]string]bool{}
		var order [][2]string
		for _, line := range strings.Split(string(data), "\n") {
			m := directive.FindStringSubmatch(strings.TrimSpace(line))
			if m == nil || m[1] == "code" {
				continue
			}
			key := [2]string{m[2], strings.Trim(m[3], `"`)}
			if !shown[key] {
				shown[key] = true
				order = append(order, key)
			}
		}
		for _, key := range order {
			source, title := key[0], key[1]
			sections, ok := parsed[source]
			if !ok {
				sections, err = transcript.ParseFile(filepath.Join(root, source, "transcript.txt"))
				if err != nil {
					t.Fatal(err)
				}
				parsed[source] = sections
			}
			at := -1
			for i, s := range sections {
				if s.Title == title {
					at = i
				}
			}
			if at < 0 {
				continue // TestExcerptsMatchTheSource names a section that is not there
			}
			for _, p := range vaultUse(sections[at]).needs {
				for i := at - 1; i >= 0; i-- {
					if !vaultUse(sections[i]).writes[p] {
						continue
					}
					if !shown[[2]string{source, sections[i].Title}] {
						t.Errorf("%s shows %q, which finds %s as the section %q leaves it, but not that section: "+
							"a reader pasting only what the chapter shows meets another note; show it too, with a transcript or transcript-part marker",
							chapter, title, p, sections[i].Title)
					}
					break
				}
			}
		}
	}
}

// use is what one section does with the notes of the vault it runs against.
type use struct {
	needs  []string        // notes it reads, adds to or removes before it writes them whole
	writes map[string]bool // notes it writes, adds to, creates or removes
}

var (
	// A path in the vault as a transcript's shell command names it, with what comes before.
	shellPath = regexp.MustCompile(`(\S*)\s+"\$` + transcript.VaultVar + `/([^"]+)"`)
	// The JSON-RPC body a curl sends.
	curlBody = regexp.MustCompile(`(?s)-d '(\{.*?\})'`)
)

// vaultUse reads a section's commands, in order, for the notes they touch: through the shell
// ("> $VAULT_COPY/P" writes P whole; rm, >>, cat and the like need it as it is) and through
// tools (create_note writes a note whole; append_to_note and any tool given a path need it).
func vaultUse(s transcript.Section) use {
	u := use{writes: map[string]bool{}}
	touch := func(p string, whole, writes bool) {
		if !strings.HasSuffix(p, ".md") {
			p += ".md" // as the tools resolve "Inbox/Seedling log"
		}
		if !whole && !u.writes[p] {
			u.needs = append(u.needs, p)
		}
		if writes || whole {
			u.writes[p] = true
		}
	}
	for _, c := range s.Commands {
		for _, m := range shellPath.FindAllStringSubmatch(c.Shell, -1) {
			switch m[1] {
			case ">":
				touch(m[2], true, true)
			case ">>", "rm", "mv", "cp", "touch":
				touch(m[2], false, true)
			default:
				touch(m[2], false, false)
			}
		}
		body := curlBody.FindStringSubmatch(c.Shell)
		if body == nil {
			continue
		}
		var call struct {
			Params struct {
				Name      string
				Arguments struct {
					Path, Title string
				}
			}
		}
		if json.Unmarshal([]byte(body[1]), &call) != nil {
			continue
		}
		args := call.Params.Arguments
		switch {
		case call.Params.Name == "create_note" && args.Title != "":
			touch("Inbox/"+args.Title, true, true)
		case args.Path != "":
			touch(args.Path, false, call.Params.Name == "append_to_note")
		}
	}
	return u
}

func TestVaultUse(t *testing.T) {
	sections, err := transcript.Parse(strings.NewReader(`## writes, then reads its own note
$ printf 'x' > "$VAULT_COPY/Garden/New.md"
$ cat "$VAULT_COPY/Garden/New.md"
x

## needs notes others wrote
$ curl -s $MCP -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"append_to_note","arguments":{"path":"Garden/Old.md","text":"y"}}}'
{}
$ curl -s $MCP -d '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_note","arguments":{"path":"Inbox/Log"}}}'
{}
$ rm "$VAULT_COPY/Garden/Gone.md"

## creates through a tool
$ curl -s $MCP -d '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"create_note","arguments":{"title":"Plan","content":"x"}}}'
{}
$ sha256sum "$VAULT_COPY/Inbox/Plan.md"
`))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []struct {
		needs  string
		writes string
	}{
		{"", "Garden/New.md"},
		{"Garden/Old.md Inbox/Log.md Garden/Gone.md", "Garden/Gone.md Garden/Old.md"}, // sorted
		{"", "Inbox/Plan.md"},
	} {
		u := vaultUse(sections[i])
		if got := strings.Join(u.needs, " "); got != want.needs {
			t.Errorf("%q needs %q; want %q", sections[i].Title, got, want.needs)
		}
		if got := strings.Join(slices.Sorted(maps.Keys(u.writes)), " "); got != want.writes {
			t.Errorf("%q writes %q; want %q", sections[i].Title, got, want.writes)
		}
	}
}
