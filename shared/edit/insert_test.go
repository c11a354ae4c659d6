package edit

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"vaultmcp/shared/markdown"
)

// TestInsert compares bytes: the text lands where it should, in the note's line endings, and
// every other byte of the note is where it was.
func TestInsert(t *testing.T) {
	for _, tc := range []struct {
		name, content, text, heading, want string
	}{
		{"at the end", "# Plan\n\nSoil.\n", "- Water", "", "# Plan\n\nSoil.\n- Water\n"},
		{"no final newline: one line break before, none after", "# Plan\n\nSoil.", "- Water", "", "# Plan\n\nSoil.\n- Water"},
		{"an empty note", "", "- Water", "", "- Water\n"},
		{"a note that holds only a BOM", "\ufeff", "- Water", "", "\ufeff- Water\n"},
		{"a BOM stays", "\ufeff# Plan\nSoil.\n", "- Water", "", "\ufeff# Plan\nSoil.\n- Water\n"},
		{"CRLF: the text takes the note's line endings", "---\r\ntags: [a]\r\n---\r\n# Plan\r\nSoil.\r\n", "- Water\n- Feed\n", "",
			"---\r\ntags: [a]\r\n---\r\n# Plan\r\nSoil.\r\n- Water\r\n- Feed\r\n"},
		{"LF: CRLF and CR in the text become LF", "# Plan\n", "a\r\nb\rc", "", "# Plan\na\nb\nc\n"},
		{"the text's own final line breaks go", "# Plan\n", "a\n\n\n", "", "# Plan\na\n"},
		{"a leading blank line is the model's to send", "Para.\n", "\nNew para.", "", "Para.\n\nNew para.\n"},
		{"trailing blank lines at the end stay before the text", "Para.\n\n\n", "x", "", "Para.\n\n\nx\n"},

		{"a section: after its last line, before the blank lines and the next heading",
			"# Day\n## Log\n- 08:00 up\n\n## Ideas\n- boat\n", "- 09:00 tea", "Log",
			"# Day\n## Log\n- 08:00 up\n- 09:00 tea\n\n## Ideas\n- boat\n"},
		{"a section runs over its subsections, to the next heading of its level",
			"## Log\nx\n### Morning\ny\n\n## Ideas\n", "z", "Log",
			"## Log\nx\n### Morning\ny\nz\n\n## Ideas\n"},
		{"a subsection ends at a heading above it", "# A\n## B\nb\n# C\nc\n", "new", "B", "# A\n## B\nb\nnew\n# C\nc\n"},
		{"the last section, with no final newline", "## Log\n- a", "- b", "Log", "## Log\n- a\n- b"},
		{"an empty section", "## Log\n\n## Ideas\n", "- a", "Log", "## Log\n- a\n\n## Ideas\n"},
		{"a heading inside a code fence is code", "## Log\n```\n## Ideas\n```\n## Ideas\ni\n", "- a", "Log",
			"## Log\n```\n## Ideas\n```\n- a\n## Ideas\ni\n"},
		{"a heading inside a comment is not one", "## Log\n%%\n## Ideas\n%%\n\n## Ideas\n", "- a", "Log",
			"## Log\n%%\n## Ideas\n%%\n- a\n\n## Ideas\n"},
		{"CRLF in a section", "## Log\r\n- a\r\n\r\n## Ideas\r\n", "- b", "Log", "## Log\r\n- a\r\n- b\r\n\r\n## Ideas\r\n"},
		{"frontmatter and a BOM before the heading", "\ufeff---\ntitle: x\n---\n## Log\n- a\n## End\n", "- b", "Log",
			"\ufeff---\ntitle: x\n---\n## Log\n- a\n- b\n## End\n"},
		{"the heading as written", "## Log\n- a\n", "- b", "## Log", "## Log\n- a\n- b\n"},
		{"case, when nothing matches as written", "## Log\n- a\n", "- b", "log", "## Log\n- a\n- b\n"},
		{"as written wins over case", "## LOG\nA\n## Log\nb\n", "x", "Log", "## LOG\nA\n## Log\nb\nx\n"},
		{"a path picks one of two", "## Home\n### Log\nh\n## Work\n### Log\nw\n", "x", "Work > Log", "## Home\n### Log\nh\n## Work\n### Log\nw\nx\n"},
		{"a path may start at the note's title, as search results do", "## Log\na\n", "x", "Day > Log", "## Log\na\nx\n"},
		{"the note's path and a heading, as search results name a section", "# Day\n## Work\n### Log\nw\n## Ideas\n", "x", "Notes/Day.md > Log",
			"# Day\n## Work\n### Log\nw\nx\n## Ideas\n"},
		{"the note's path without its extension, and a path below it", "## Home\n### Log\nh\n## Work\n### Log\nw\n", "x", "notes/day > Work > Log",
			"## Home\n### Log\nh\n## Work\n### Log\nw\nx\n"},
		{"the title before a heading deeper down", "# Day\n## Work\n### Log\nw\n", "x", "Day > Log", "# Day\n## Work\n### Log\nw\nx\n"},
		{"a heading whose text holds '>'", "## A > B\na\n## B\nb\n", "x", "A > B", "## A > B\na\nx\n## B\nb\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Insert("Notes/Day.md", []byte(tc.content), tc.text, tc.heading)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("Insert(%q, %q, %q)\n got %q\nwant %q", tc.content, tc.text, tc.heading, got, tc.want)
			}
		})
	}
}

func TestInsertRefusals(t *testing.T) {
	many := ""
	for i := range 30 {
		many += fmt.Sprintf("## H%d\n", i)
	}
	for _, tc := range []struct {
		name, content, heading, want string
	}{
		{"no such heading", "# Day\n## Log\n## Ideas\n", "Journal",
			`note "Notes/Day.md" has no heading "Journal"; its headings are "Day", "Day > Log", "Day > Ideas"; send one of them, or leave heading out to add at the end of the note`},
		{"no headings at all", "Just text.\n", "Log", `note "Notes/Day.md" has no headings; leave heading out to add at the end of the note`},
		{"the list is bounded", many, "H99", `note "Notes/Day.md" has no heading "H99"; its headings are "H0", "H1", "H2", "H3", "H4", "H5", "H6", "H7", "H8", "H9", "H10", "H11", "H12", "H13", "H14", "H15", "H16", "H17", "H18", "H19" and 10 more; send one of them, or leave heading out to add at the end of the note`},
		{"two headings of one name", "## Home\n### Log\n## Work\n### Log\n", "Log",
			`note "Notes/Day.md" has 2 headings "Log": "Home > Log" (line 2), "Work > Log" (line 4); send the one you mean as its path, like "Home > Log"`},
		{"two headings of one path", "## Log\na\n## Log\nb\n", "Log",
			`note "Notes/Day.md" has 2 headings "Log": "Log" (line 1), "Log" (line 3), and no path tells some of them apart; leave heading out to add at the end of the note, or ask the user to rename one`},
		{"the note's path, then a heading it does not have", "## Log\n", "Notes/Day.md > Journal",
			`note "Notes/Day.md" has no heading "Journal"; its headings are "Log"; send one of them, or leave heading out to add at the end of the note`},
		{"a heading in the frontmatter is YAML", "---\n# a comment\n---\n## Log\n", "a comment",
			`note "Notes/Day.md" has no heading "a comment"; its headings are "Log"; send one of them, or leave heading out to add at the end of the note`},
		{"a heading in a code fence is code", "```\n## Log\n```\n", "Log", `note "Notes/Day.md" has no headings; leave heading out to add at the end of the note`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Insert("Notes/Day.md", []byte(tc.content), "x", tc.heading)
			if !errors.Is(err, ErrHeading) || err.Error() != tc.want {
				t.Errorf("Insert under %q:\n got %v\nwant %s", tc.heading, err, tc.want)
			}
		})
	}
}

// TestInsertPastMaxSections: past markdown.MaxSections, markdown.Parse folds short sections
// into the one before; Insert still ends a section at the next heading.
func TestInsertPastMaxSections(t *testing.T) {
	var note strings.Builder
	for i := range 300 {
		fmt.Fprintf(&note, "## H%d\n- %d\n", i, i)
	}
	if n := markdown.Parse("Day.md", note.String()); len(n.Headings) >= 300 {
		t.Fatalf("Parse kept all %d headings; the test needs a note past its bound", len(n.Headings))
	}
	got, err := Insert("Day.md", []byte(note.String()), "- new", "H250")
	if err != nil {
		t.Fatal(err)
	}
	if want := "## H250\n- 250\n- new\n## H251\n"; !strings.Contains(string(got), want) {
		t.Errorf("the text did not land at the end of H250's section: %q", got[strings.Index(string(got), "## H250"):][:60])
	}
}

// FuzzInsert: whatever the note and the text, the result is the note with one run of bytes
// added, and no byte of the note lost or moved. That run is the text as whole lines in the
// note's line endings, with one line break: nothing else is added. Without a heading, the
// note comes first, whole.
func FuzzInsert(f *testing.F) {
	f.Add("# A\n## Log\n- a\n\n## B\n", "- b\n", "Log")
	f.Add("\ufeff---\r\nx: 1\r\n---\r\n## Log\r\nx", "y\r\n", "")
	f.Add("```\n## Log\n```\n## Log\n", "z", "log")
	f.Add("# A\r\n## Home\r\n### Log\r\n- h\r\n## Work\r\n### Log\r\n- w\r\n", "- x\n- y", "Work > Log")
	f.Add("## Log\n", "a\rb\r\nc\n\n", "A > Log")
	f.Fuzz(func(t *testing.T, content, text, heading string) {
		if strings.TrimSpace(text) == "" {
			return
		}
		got, err := Insert("Day.md", []byte(content), text, heading)
		if err != nil {
			if !errors.Is(err, ErrHeading) {
				t.Fatalf("an error that is not a heading refusal: %v", err)
			}
			return
		}
		prefix := commonPrefix(got, []byte(content))
		suffix := commonPrefix(reverse(got[prefix:]), reverse([]byte(content[prefix:])))
		if prefix+suffix != len(content) {
			t.Fatalf("bytes of the note were changed:\nnote %q\ngot  %q", content, got)
		}
		// Where the run starts is ambiguous when the bytes around it repeat its own, so it is
		// compared as a rotation of the lines it must hold.
		eol := "\n"
		if first, _, found := strings.Cut(content, "\n"); found && strings.HasSuffix(first, "\r") {
			eol = "\r\n"
		}
		oneBreak := strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n")
		lines := strings.Split(strings.TrimRight(oneBreak, "\n"), "\n")
		want := strings.Join(lines, eol) + eol
		added := string(got[prefix : len(got)-suffix])
		if len(added) != len(want) || !strings.Contains(want+want, added) {
			t.Fatalf("added %q; want the text as lines in the note's line endings, %q, and nothing else", added, want)
		}
		if heading == "" && !bytes.HasPrefix(got, []byte(content)) {
			t.Fatalf("without a heading, the text did not go after the whole note: %q", got)
		}
	})
}

func commonPrefix(a, b []byte) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func reverse(b []byte) []byte {
	r := bytes.Clone(b)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return r
}
