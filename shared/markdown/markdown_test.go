package markdown_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"vaultmcp/shared/markdown"
)

func TestTitle(t *testing.T) {
	for path, want := range map[string]string{
		"Note.md":                 "Note",
		"folder/My Note.md":       "My Note",
		"a/b/🌱 Seeds.md":          "🌱 Seeds",
		"v1.2 release notes.md":   "v1.2 release notes",
		"folder/no extension":     "no extension",
		"folder/archive.md.md":    "archive.md",
		"folder/UPPER CASE.md":    "UPPER CASE",
		"Daily/2024-07-21.md":     "2024-07-21",
		"folder/name with.dot.md": "name with.dot",
	} {
		if got := markdown.Parse(path, "").Title; got != want {
			t.Errorf("title of %q = %q, want %q", path, got, want)
		}
	}
}

func TestHeadings(t *testing.T) {
	for _, tc := range []struct {
		name    string
		content string
		want    []markdown.Heading
	}{
		{"levels", "# One\n## Two\n###### Six", []markdown.Heading{{"One", 1, 1}, {"Two", 2, 2}, {"Six", 6, 3}}},
		{"seven is too many", "####### Seven", nil},
		{"a space must follow", "#tag\n##nospace", nil},
		{"up to three spaces of indentation", "   # Three\n    # Four", []markdown.Heading{{"Three", 1, 1}}},
		{"a closing run of # is dropped", "## Title ##\n## C#", []markdown.Heading{{"Title", 2, 1}, {"C#", 2, 2}}},
		{"a heading needs text", "#\n## ", nil},
		{"links and tags stay in the text", "## See [[a]] #tag", []markdown.Heading{{"See [[a]] #tag", 2, 1}}},
		{"not inside a code fence", "```\n# comment in a shell script\n```\n# Real", []markdown.Heading{{"Real", 1, 4}}},
		{"a longer fence holds a shorter one", "````md\n```\n# code\n````\n# Out", []markdown.Heading{{"Out", 1, 5}}},
		{"tildes fence too", "~~~\n# code\n~~~\n# Out", []markdown.Heading{{"Out", 1, 4}}},
		{"an unclosed fence runs to the end", "```\n# code", nil},
		{"not inside a comment", "%%\n# hidden\n%%\n# Shown %% note %%", []markdown.Heading{{"Shown", 1, 4}}},
		{"not in a blockquote", "> # Quoted", nil},
		{"setext headings are not read", "Title\n=====", nil},
		{"lines count from the top of the file", "---\na: 1\n---\n# After", []markdown.Heading{{"After", 1, 4}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := markdown.Parse("n.md", tc.content).Headings; !reflect.DeepEqual(got, tc.want) {
				t.Errorf("headings of %q = %v, want %v", tc.content, got, tc.want)
			}
		})
	}
}

func TestSections(t *testing.T) {
	content := `---
tags: [x]
---
Intro text.

# Guide
Welcome.
## Install
Run it.
%% a note to self %%
## Use
### Flags
Pass -v.
# Appendix
`
	type section struct {
		Heading string
		Trail   []string
		Level   int
		Line    int
		Text    string
	}
	want := []section{
		{"", nil, 0, 4, "Intro text."},
		{"Guide", []string{"Guide"}, 1, 6, "Welcome."},
		{"Install", []string{"Guide", "Install"}, 2, 8, "Run it."},
		{"Use", []string{"Guide", "Use"}, 2, 11, ""},
		{"Flags", []string{"Guide", "Use", "Flags"}, 3, 12, "Pass -v."},
		{"Appendix", []string{"Appendix"}, 1, 14, ""},
	}
	var got []section
	for _, s := range markdown.Parse("Tool.md", content).Sections {
		got = append(got, section{s.Heading, s.Trail, s.Level, s.Line, s.Text})
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("sections:\n got %+v\nwant %+v", got, want)
	}
}

func TestChunks(t *testing.T) {
	t.Run("each chunk names where it comes from", func(t *testing.T) {
		n := markdown.Parse("Tool.md", "Intro.\n# Tool\nAbout.\n## Install\nRun it.\n## Empty\n")
		var got []string
		for _, s := range n.Sections {
			got = append(got, s.Chunks...)
		}
		want := []string{
			"Tool\n\nIntro.",
			"Tool\n\nAbout.", // a first heading that repeats the title is said once
			"Tool > Install\n\nRun it.",
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("chunks = %q, want %q", got, want)
		}
	})

	t.Run("a long section is cut between paragraphs", func(t *testing.T) {
		para := strings.Repeat("word ", 150) // 750 bytes
		n := markdown.Parse("n.md", "# H\n"+para+"\n\n"+para+"\n\n"+para+"\n")
		chunks := n.Sections[0].Chunks
		if len(chunks) != 2 {
			t.Fatalf("got %d chunks, want 2 (two paragraphs fit in one, the third does not)", len(chunks))
		}
		for _, c := range chunks {
			body := strings.TrimPrefix(c, "n > H\n\n")
			if len(c) > markdown.MaxChunk || strings.Count(body, strings.TrimSpace(para)) != len(body)/len(para) {
				t.Errorf("chunk of %d bytes does not hold whole paragraphs: %q", len(c), c)
			}
		}
	})

	t.Run("a giant paragraph is cut without splitting a character", func(t *testing.T) {
		giant := strings.Repeat("é", 3*markdown.MaxChunk) // two bytes each, no spaces at all
		n := markdown.Parse("n.md", giant)
		chunks := n.Sections[0].Chunks
		var body strings.Builder
		for _, c := range chunks {
			if len(c) > markdown.MaxChunk || !utf8.ValidString(c) {
				t.Fatalf("chunk of %d bytes, valid UTF-8 %v", len(c), utf8.ValidString(c))
			}
			body.WriteString(strings.TrimPrefix(c, "n\n\n"))
		}
		if body.String() != giant {
			t.Errorf("the chunks do not add up to the paragraph")
		}
	})

	t.Run("a giant heading leaves room for text", func(t *testing.T) {
		n := markdown.Parse("n.md", "# "+strings.Repeat("long ", 1000)+"\ntext")
		c := n.Sections[0].Chunks
		if len(c) != 1 || len(c[0]) > markdown.MaxChunk || !strings.HasSuffix(c[0], "\n\ntext") {
			t.Errorf("chunks = %q", c)
		}
	})
}

func TestLinks(t *testing.T) {
	type L = markdown.Link
	for _, tc := range []struct {
		content string
		want    []L
	}{
		{"[[a]]", []L{{Target: "a", Line: 1, Original: "[[a]]"}}},
		{"[[a.md]]", []L{{Target: "a.md", Line: 1, Original: "[[a.md]]"}}},
		{"[[folder/a]]", []L{{Target: "folder/a", Line: 1, Original: "[[folder/a]]"}}},
		{"[[a#Heading]]", []L{{Target: "a", Heading: "Heading", Line: 1, Original: "[[a#Heading]]"}}},
		{"[[a#H#Sub]]", []L{{Target: "a", Heading: "H#Sub", Line: 1, Original: "[[a#H#Sub]]"}}},
		{"[[a#^b1]]", []L{{Target: "a", Block: "b1", Line: 1, Original: "[[a#^b1]]"}}},
		{"[[#Here]]", []L{{Heading: "Here", Line: 1, Original: "[[#Here]]"}}},
		{"[[a|shown]]", []L{{Target: "a", Display: "shown", Line: 1, Original: "[[a|shown]]"}}},
		{`| [[a\|shown]] |`, []L{{Target: "a", Display: "shown", Line: 1, Original: `[[a\|shown]]`}}},
		{"![[pic.png]]", []L{{Target: "pic.png", Embed: true, Line: 1, Original: "![[pic.png]]"}}},
		{"![[a#H|x]]", []L{{Target: "a", Heading: "H", Display: "x", Embed: true, Line: 1, Original: "![[a#H|x]]"}}},
		{"[[a]] and [[b]]", []L{{Target: "a", Line: 1, Original: "[[a]]"}, {Target: "b", Line: 1, Original: "[[b]]"}}},
		{"[[a [[b]]", []L{{Target: "b", Line: 1, Original: "[[b]]"}}},
		{"[text](note.md)", []L{{Target: "note.md", Display: "text", Markdown: true, Line: 1, Original: "[text](note.md)"}}},
		{"[t](My%20Note.md#Part)", []L{{Target: "My Note.md", Heading: "Part", Display: "t", Markdown: true, Line: 1, Original: "[t](My%20Note.md#Part)"}}},
		{"[t](<My Note.md>)", []L{{Target: "My Note.md", Display: "t", Markdown: true, Line: 1, Original: "[t](<My Note.md>)"}}},
		{`[t](a.md "title")`, []L{{Target: "a.md", Display: "t", Markdown: true, Line: 1, Original: `[t](a.md "title")`}}},
		{"![alt](pic.png)", []L{{Target: "pic.png", Display: "alt", Embed: true, Markdown: true, Line: 1, Original: "![alt](pic.png)"}}},
		{"[t](#Here)", []L{{Heading: "Here", Display: "t", Markdown: true, Line: 1, Original: "[t](#Here)"}}},
		{"[see [1]](a.md)", []L{{Target: "a.md", Display: "see [1]", Markdown: true, Line: 1, Original: "[see [1]](a.md)"}}},
		{"[![logo](logo.png)](a.md)", []L{ // an image that is a link: both, as CommonMark reads them
			{Target: "a.md", Display: "![logo](logo.png)", Markdown: true, Line: 1, Original: "[![logo](logo.png)](a.md)"},
			{Target: "logo.png", Display: "logo", Embed: true, Markdown: true, Line: 1, Original: "![logo](logo.png)"},
		}},
		{"[unclosed [t](a.md)", []L{{Target: "a.md", Display: "t", Markdown: true, Line: 1, Original: "[t](a.md)"}}},
		{"\n\n[[third line]]", []L{{Target: "third line", Line: 3, Original: "[[third line]]"}}},
		// Not links:
		{"[web](https://example.org/a.md)", nil},
		{"[mail](mailto:me@example.org)", nil},
		{"[empty]()", nil},
		{"- [ ] a task", nil},
		{"[[]]", nil},
		{`\[\[escaped\]\]`, nil},
		{"`[[inline code]]`", nil},
		{"```\n[[fenced code]]\n```", nil},
		{"%% [[a comment]] %%", nil},
		{"%%\n[[a long\n[[comment]]\n%%", nil},
		{"<!-- [[an HTML comment]] -->", nil},
		{"[[no end", nil},

		// Markdown links as CommonMark reads them.
		{"[text](My Note.md)", nil}, // a space ends the destination, and "Note.md)" is no title
		{"[t](<My Note.md> 'title')", []L{{Target: "My Note.md", Display: "t", Markdown: true, Line: 1, Original: "[t](<My Note.md> 'title')"}}},
		{"[t](a(1).md)", []L{{Target: "a(1).md", Display: "t", Markdown: true, Line: 1, Original: "[t](a(1).md)"}}},
		{`[t](a\).md)`, []L{{Target: "a).md", Display: "t", Markdown: true, Line: 1, Original: `[t](a\).md)`}}},
		{"[t](a&amp;b.md)", []L{{Target: "a&b.md", Display: "t", Markdown: true, Line: 1, Original: "[t](a&amp;b.md)"}}},
		{"[a\nlink](\n  b.md\n)", []L{{Target: "b.md", Display: "a\nlink", Markdown: true, Line: 1, Original: "[a\nlink](\n  b.md\n)"}}},
		{"[outer [inner](a.md)](b.md)", []L{{Target: "a.md", Display: "inner", Markdown: true, Line: 1, Original: "[inner](a.md)"}}},
		{"[t](a.md \"unclosed)", nil},
		{"`[t](`a.md)", nil}, // the code span starts first

		// Code spans and comments as CommonMark reads them.
		{"`start\n[[Link]] end`", nil}, // a code span may cross a line end
		{"`start\n\n[[Link]] end`", []L{{Target: "Link", Line: 3, Original: "[[Link]]"}}}, // but not a blank line
		{"- `a\n- [[b]] c`", []L{{Target: "b", Line: 2, Original: "[[b]]"}}},              // nor a new list item
		{"see a <!-- unterminated [[a]]\n\n[[b]]", []L{{Target: "a", Line: 1, Original: "[[a]]"}, {Target: "b", Line: 3, Original: "[[b]]"}}},
		{"a <!-- over\n[[hidden]] --> [[shown]]", []L{{Target: "shown", Line: 2, Original: "[[shown]]"}}},
		{"<!--\n[[a]]\n\n[[b]]\n-->\n[[c]]", []L{{Target: "c", Line: 6, Original: "[[c]]"}}},
		{"<!-- never closed\n\n[[a]]", nil}, // a comment block runs to the end
		{"$$\n[[in math]]\n$$\n[[after]]", []L{{Target: "after", Line: 4, Original: "[[after]]"}}},
		{"$$x [[in math]]$$ [[after]]", []L{{Target: "after", Line: 1, Original: "[[after]]"}}},
		{"costs $$ and [[a]]", []L{{Target: "a", Line: 1, Original: "[[a]]"}}}, // nothing closes the $$
		{"[[a\nb]]", nil},
	} {
		if got := markdown.Parse("n.md", tc.content).Links; !reflect.DeepEqual(got, tc.want) {
			t.Errorf("links of %q:\n got %+v\nwant %+v", tc.content, got, tc.want)
		}
	}
}

func TestFrontmatterLinks(t *testing.T) {
	content := "---\nup: \"[[Index]]\"\nsee:\n  - \"[[a#H]]\"\n  - \"![[b|B]]\"\nplain: no link\n---\n[[body]]"
	want := []markdown.Link{
		{Target: "a", Heading: "H", Key: "see.0", Original: "[[a#H]]"},
		{Target: "b", Display: "B", Embed: true, Key: "see.1", Original: "![[b|B]]"},
		{Target: "Index", Key: "up", Original: "[[Index]]"},
		{Target: "body", Line: 8, Original: "[[body]]"},
	}
	if got := markdown.Parse("n.md", content).Links; !reflect.DeepEqual(got, want) {
		t.Errorf("links:\n got %+v\nwant %+v", got, want)
	}
}

func TestTags(t *testing.T) {
	for _, tc := range []struct {
		content string
		want    []string
	}{
		{"#tag", []string{"tag"}},
		{"#nested/tag", []string{"nested/tag"}},
		{"text #a, #b. (#c)", []string{"a", "b"}},
		{"#snake_case #kebab-case #v2", []string{"snake_case", "kebab-case", "v2"}},
		{"#café #日本語 #🌱", []string{"café", "日本語", "🌱"}},
		{"## Heading #tagged", []string{"tagged"}},
		{"#123 #2024", nil},
		{"http://example.org/#anchor", nil},
		{"issue#12 a#b", nil},
		{"[[a#Heading]] [t](#h)", nil},
		{"`#code` and ``#more code``", nil},
		{"```\n#include <stdio.h>\n```", nil},
		{"%% #hidden %% #shown", []string{"shown"}},
		{"<!-- #hidden -->", nil},
		{`\#escaped`, nil},
		{"#Bob#Alice", []string{"Bob", "Alice"}}, // a tag may follow a tag
		{"#123#Alice a#b#c", nil},
		{"[see #tag](a.md) #out", []string{"out"}},
		{"`a\n#code` #prose", []string{"prose"}},
		{"$$\n#math\n$$", nil},
	} {
		var got []string
		for _, tag := range markdown.Parse("n.md", tc.content).Tags {
			got = append(got, tag.Name)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("tags of %q = %q, want %q", tc.content, got, tc.want)
		}
	}
}

func TestFrontmatterTags(t *testing.T) {
	for _, tc := range []struct {
		yaml string
		want []string
	}{
		{"tags: [a, b]", []string{"a", "b"}},
		{"tags:\n  - a\n  - '#b'", []string{"a", "b"}},
		{"tags: one", []string{"one"}},
		{"tags: a, b c", []string{"a", "b", "c"}},
		{"tags: '#a #b'", []string{"a", "b"}},
		{"Tags: [seedling]", []string{"seedling"}},
		{"tag: old", nil}, // the singular "tag" is gone since Obsidian 1.9
		{"tags: [2024, not valid, ok]", []string{"ok"}},
		{"tags:", nil},
		{"tags:\n  -\u00a0x", nil}, // a dash and a no-break space: the text "-\u00a0x", no list
		{"tags:\n  -\u3000x\n  -\u3000y", nil},
	} {
		n := markdown.Parse("n.md", "---\n"+tc.yaml+"\n---\n#body")
		var got []string
		for _, tag := range n.Tags {
			if tag.Line == 0 {
				got = append(got, tag.Name)
			}
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("frontmatter tags of %q = %q, want %q", tc.yaml, got, tc.want)
		}
		if last := n.Tags[len(n.Tags)-1]; last != (markdown.Tag{Name: "body", Line: 4 + strings.Count(tc.yaml, "\n")}) {
			t.Errorf("body tag after %q = %+v", tc.yaml, last)
		}
	}
}

func TestFrontmatterAliases(t *testing.T) {
	for _, tc := range []struct {
		yaml string
		want []string
	}{
		{"aliases: [Levain, Mother dough]", []string{"Levain", "Mother dough"}},
		{"aliases:\n  - Levain", []string{"Levain"}},
		{"Aliases: Levain, Mother dough", []string{"Levain", "Mother dough"}},
		{"alias: Levain", []string{"Levain"}}, // the old name, still read
		{"aliases: [3, ' ', ok]", []string{"ok"}},
		{"aliases:", nil},
	} {
		got := markdown.Parse("n.md", "---\n"+tc.yaml+"\n---\nbody").Aliases
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("aliases of %q = %q, want %q", tc.yaml, got, tc.want)
		}
	}
}

func TestComments(t *testing.T) {
	content := "Shown %% hidden [[a]] #a %% shown.\n%%\nhidden\n[[b]] #b\n%%\nShown <!-- hidden --> too.\n`%%` is code, not a comment."
	n := markdown.Parse("n.md", content)
	want := "Shown  shown.\nShown  too.\n`%%` is code, not a comment."
	if len(n.Sections) != 1 || n.Sections[0].Text != want {
		t.Errorf("text = %q, want %q", n.Sections[0].Text, want)
	}
	if len(n.Links) != 0 || len(n.Tags) != 0 {
		t.Errorf("links %v and tags %v found in comments", n.Links, n.Tags)
	}

	// A comment that opens at the end of a paragraph hides the lines after it.
	n = markdown.Parse("n.md", "Text\n%%\n- [[hidden]] #hidden\n%%\nShown [[shown]]")
	if got := n.Sections[0].Text; got != "Text\nShown [[shown]]" || len(n.Links) != 1 || len(n.Tags) != 0 {
		t.Errorf("text %q, links %v, tags %v", got, n.Links, n.Tags)
	}
}

// An unclosed "<!--" in a line is text: it hides nothing, and the sections after it are read.
// Only a line that starts with "<!--" opens a comment block, which may run to the end.
func TestUnclosedHTMLComment(t *testing.T) {
	n := markdown.Parse("n.md", "# HTML\nsee a <!-- unterminated\n## Later\nfound text\n")
	var headings, texts []string
	for _, s := range n.Sections {
		headings, texts = append(headings, s.Heading), append(texts, s.Text)
	}
	if !reflect.DeepEqual(headings, []string{"HTML", "Later"}) || !reflect.DeepEqual(texts, []string{"see a <!-- unterminated", "found text"}) {
		t.Errorf("sections %q with texts %q", headings, texts)
	}
	n = markdown.Parse("n.md", "# HTML\n<!-- a block\n## Hidden\n")
	if len(n.Sections) != 1 || n.Sections[0].Text != "" {
		t.Errorf("a comment block: sections %+v", n.Sections)
	}
}

// Properties are read as YAML 1.2 does: a leading zero is no octal.
func TestPropertiesAreYAML12(t *testing.T) {
	n := markdown.Parse("n.md", "---\nzip: 01234\nsize: 1_000\n---\n")
	if zip, size := n.Frontmatter.Fields["zip"], n.Frontmatter.Fields["size"]; fmt.Sprint(zip) != "1234" || size != "1_000" {
		t.Errorf("zip %#v, size %#v; want 1234 and the text 1_000", zip, size)
	}
}

func TestBadFrontmatterKeepsTheNote(t *testing.T) {
	n := markdown.Parse("n.md", "---\ncreated: {{date}}\n---\n# Body\nSee [[a]] #t\n")
	if !n.Frontmatter.Present || n.Frontmatter.Err == nil {
		t.Fatalf("frontmatter = %+v, want present with an error", n.Frontmatter)
	}
	if len(n.Headings) != 1 || len(n.Links) != 1 || len(n.Tags) != 1 || n.Links[0].Line != 5 {
		t.Errorf("the body was not read: %+v", n)
	}
}

func ExampleParse() {
	note := "---\ntags: [howto]\n---\n# Install\nRun `make`, then see [[Usage#Flags|the flags]]. #setup\n"
	n := markdown.Parse("Guides/Tool.md", note)
	for _, s := range n.Sections {
		fmt.Printf("%q\n", s.Chunks)
	}
	for _, l := range n.Links {
		fmt.Printf("line %d: %s → note %q, heading %q, shown as %q\n", l.Line, l.Original, l.Target, l.Heading, l.Display)
	}
	for _, t := range n.Tags {
		fmt.Printf("tag %s on line %d\n", t.Name, t.Line)
	}
	// Output:
	// ["Tool > Install\n\nRun `make`, then see [[Usage#Flags|the flags]]. #setup"]
	// line 5: [[Usage#Flags|the flags]] → note "Usage", heading "Flags", shown as "the flags"
	// tag howto on line 0
	// tag setup on line 5
}
