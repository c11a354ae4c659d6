package markdown_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"vaultmcp/shared/markdown"
	"vaultmcp/shared/testvaults"
)

// realNotes reads every note of the real vaults, keyed by vault-relative path.
func realNotes(tb testing.TB, vault string) map[string]string {
	tb.Helper()
	dir := testvaults.Dir(tb, vault)
	notes := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".md") {
			return err
		}
		content, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		notes[filepath.ToSlash(rel)] = string(content)
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return notes
}

var realVaults = []string{"data-engineering-wiki", "obsidian-garden", "tasks-test-data"}

func TestRealVaults(t *testing.T) {
	for _, vault := range realVaults {
		t.Run(vault, func(t *testing.T) {
			notes := realNotes(t, vault)
			if len(notes) < 40 {
				t.Fatalf("only %d notes found", len(notes))
			}
			for path, content := range notes {
				checkNote(t, path, content, markdown.Parse(path, content))
			}
		})
	}
}

// The wiki's README counts its wikilinks: 358, embeds included, with a pattern that ends a
// link at its first ']' and skips code blocks (the vault has Mermaid diagrams, where
// "B[[Message Broker]]" is a shape). We find one more: "Guides/SQL Guide.md" links to
// [[SQL#[SQL Variants](http://…)|variant of SQL]], whose heading holds a ']'. A link ends at
// the first "]]", so that is a link to SQL shown as "variant of SQL", as its author meant.
func TestRealVaultWikilinkCount(t *testing.T) {
	wikilinks := 0
	for path, content := range realNotes(t, "data-engineering-wiki") {
		for _, l := range markdown.Parse(path, content).Links {
			if !l.Markdown {
				wikilinks++
			}
		}
	}
	if wikilinks != 358+1 {
		t.Errorf("found %d wikilinks, want the README's 358 and the one in the SQL Guide", wikilinks)
	}
}

// checkNote asserts what must hold for any note, real or fuzzed.
func checkNote(t *testing.T, path, content string, n markdown.Note) {
	t.Helper()
	content = strings.ToValidUTF8(content, "\uFFFD")
	lines := strings.Split(content, "\n")
	inRange := func(line int) bool { return line >= 1 && line <= len(lines) }

	for _, h := range n.Headings {
		if !inRange(h.Line) || h.Level < 1 || h.Level > 6 || h.Text == "" {
			t.Errorf("%s: bad heading %+v", path, h)
		}
	}
	headings, previous := 0, 0
	for _, s := range n.Sections {
		if s.Level > 0 {
			headings++
		}
		if !inRange(s.Line) || s.Line < previous || len(s.Trail) > s.Level {
			t.Errorf("%s: bad section %q at line %d", path, s.Heading, s.Line)
		}
		previous = s.Line
		var covered strings.Builder
		for _, c := range s.Chunks {
			head, body, ok := strings.Cut(c, "\n\n")
			if len(c) > markdown.MaxChunk || !utf8.ValidString(c) || !ok || !strings.HasPrefix(head, n.Title) {
				t.Errorf("%s: bad chunk of %d bytes in section %q: %.80q", path, len(c), s.Heading, c)
			}
			covered.WriteString(body)
		}
		// Chunks cut at whitespace and drop nothing else: they hold all of the text.
		if withoutSpace(covered.String()) != withoutSpace(s.Text) {
			t.Errorf("%s: the chunks of section %q do not hold its text", path, s.Heading)
		}
	}
	if headings != len(n.Headings) {
		t.Errorf("%s: %d headings but %d heading sections", path, len(n.Headings), headings)
	}
	for _, l := range n.Links {
		// A Markdown link may run over lines: its first line is on the link's.
		first, _, _ := strings.Cut(l.Original, "\n")
		if l.Key == "" && (!inRange(l.Line) || !strings.Contains(lines[l.Line-1], first) || !strings.Contains(content, l.Original)) {
			t.Errorf("%s: link %q is not on line %d", path, l.Original, l.Line)
		}
	}
	for _, tag := range n.Tags {
		if tag.Name == "" || strings.IndexFunc(tag.Name, unicode.IsSpace) >= 0 || strings.Trim(tag.Name, "0123456789") == "" {
			t.Errorf("%s: bad tag %q", path, tag.Name)
		}
		if tag.Line != 0 && (!inRange(tag.Line) || !strings.Contains(lines[tag.Line-1], "#"+tag.Name)) {
			t.Errorf("%s: tag %q is not on line %d", path, tag.Name, tag.Line)
		}
	}
}

func withoutSpace(s string) string {
	return strings.Join(strings.Fields(s), "")
}

// FuzzSections checks the section and chunk splitter on arbitrary notes.
func FuzzSections(f *testing.F) {
	for _, seed := range []string{
		"", "# A\ntext\n## B\nmore", "```\n# no\n```\n# yes", "~~~~\n~~~\n~~~~", "> ```\n> # x\n# y",
		"%%\n# hidden\n%%", "---\na: 1\n---\n# H", strings.Repeat("word ", 450), strings.Repeat("é", 1100),
		"# " + strings.Repeat("x", 2100) + "\ntext", "a\n\n\nb\r\n\r\nc", "\xff\xfe# broken",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, content string) {
		checkNote(t, "fuzz.md", content, markdown.Parse("fuzz.md", content))
	})
}

// FuzzLinks checks the link and tag parser on arbitrary notes.
func FuzzLinks(f *testing.F) {
	for _, seed := range []string{
		"[[a]] [[a#h|x]] ![[b#^c]]", `| [[a\|b]] |`, "[t](a%20b.md#h) ![x](<y z.png>)", "[[a [[b]] [[]] [[",
		"#tag #1 a#b `#c` http://x/#y", "%% [[a]] %% <!-- #b --> [[c]]", "\\[\\[x\\]\\] \\#y", "[a](b.md \"t\")",
		"---\nk: \"[[fm]]\"\ntags: [a, '#b']\n---\n[[body]]", "[[|]] [[|a]] [[#^]]", "![[",
		"a <!-- b\n[[c]] -->\n\n<!--\n[[d]]", "`a\n[[b]]`\n- `c\n- [[d]]`", "$$\n[[x]]\n$$ [[y]]", "[a](b c) [d](<e f>)",
		"[a\n](\nb.md\n'c\nd')", "#Bob#Alice #1#x", "> <!--\n> [[a]]\n[[b]]", "%% a\n\n`b %%` [[c]]",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, content string) {
		checkNote(t, "fuzz.md", content, markdown.Parse("fuzz.md", content))
	})
}

func BenchmarkParseRealVaults(b *testing.B) {
	var paths, contents []string
	size := 0
	for _, vault := range realVaults {
		for path, content := range realNotes(b, vault) {
			paths, contents = append(paths, path), append(contents, content)
			size += len(content)
		}
	}
	b.SetBytes(int64(size))
	for b.Loop() {
		for i := range contents {
			markdown.Parse(paths[i], contents[i])
		}
	}
}

func BenchmarkParseSyntheticNote(b *testing.B) {
	note := syntheticNote(200)
	b.SetBytes(int64(len(note)))
	for b.Loop() {
		markdown.Parse("Synthetic.md", note)
	}
}

// BenchmarkParseHostileLine parses long lines of unclosed brackets and backticks, where a link
// or code span is tried from every one. maxLink bounds each try, so MB/s does not fall as the
// line grows (without it, the 200 KB "[a" line took six seconds).
func BenchmarkParseHostileLine(b *testing.B) {
	lines := map[string]string{}
	for _, unit := range []string{"[a", "[[a", "[a](", "`a``", "<!--", "<a b='", "<!a", "$$", "]("} {
		lines[unit] = strings.Repeat(unit, 100_000)
	}
	// One paragraph of many lines, read as a whole, as code spans and links may cross lines.
	lines["a paragraph of `a`` lines"] = strings.Repeat("`a``\n", 100_000)
	// Backtick runs of every length, none closed: each opening has to look for its closer.
	var growing strings.Builder
	for n := 1; growing.Len() < 1<<20; n++ {
		growing.WriteString(strings.Repeat("`", n) + " ")
	}
	lines["growing backtick runs"] = growing.String()
	for unit, line := range lines {
		b.Run(unit, func(b *testing.B) {
			b.SetBytes(int64(len(line)))
			for b.Loop() {
				markdown.Parse("Hostile.md", line)
			}
		})
	}
}

// syntheticNote writes a note with frontmatter and the given number of sections, each with
// prose, links, tags, a comment, a list and a code block.
func syntheticNote(sections int) string {
	var b strings.Builder
	b.WriteString("---\naliases: [Synthetic, Test note]\ntags: [bench, generated]\nrelated: \"[[Other]]\"\n---\n")
	for i := range sections {
		fmt.Fprintf(&b, "## Section %d\n\n", i)
		fmt.Fprintf(&b, "Some prose about topic %d, linking to [[Note %d]] and [[Folder/Note %d#Part|a part]], "+
			"tagged #topic/%d, with `inline code` and a [markdown link](Other%%20Note.md).\n", i, i, i+1, i%7)
		b.WriteString("A second line of the paragraph, long enough to look like writing rather than a test.\n\n")
		b.WriteString("- a list item %% with a comment %%\n- another with ![[image.png]]\n\n")
		b.WriteString("```go\n// #not-a-tag [[not a link]]\nfunc main() {}\n```\n\n")
	}
	return b.String()
}
