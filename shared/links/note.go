package links

import (
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"vaultmcp/shared/markdown"
)

// note is what the graph holds for one note.
type note struct {
	path    string
	key     string   // the path lower-cased, without ".md": what targets are matched against
	name    string   // the last element of key
	aliases []string // lower-cased, sorted, without duplicates
	refs    []*ref   // the note's links, in the order written
	version string   // the content hash the links were read from, for the graph kept in the index
}

// ref is a link in the graph: what callers see, and the target it was parsed into.
type ref struct {
	Ref
	order  int // its place among the note's links
	target target
}

// MaxLinksPerNote bounds the links the graph keeps of one note. Real notes have dozens; a hub
// may have a few thousand. Without a bound, one hostile 8 MiB note of "[[a]]" would cost the
// graph 1.7 million links and hundreds of megabytes. The parser keeps no more than this either.
const MaxLinksPerNote = markdown.MaxLinks

func newNote(path, content string, parsed markdown.Note) *note {
	n := newEmptyNote(path)
	for _, alias := range parsed.Aliases {
		n.aliases = append(n.aliases, lower(alias))
	}
	slices.Sort(n.aliases)
	n.aliases = slices.Compact(n.aliases)

	lines := newLineReader(strings.TrimPrefix(content, "\ufeff"))
	headings := make([]string, len(parsed.Sections)) // copied once, shared by their links
	for i, s := range parsed.Sections {
		headings[i] = strings.Clone(s.Heading)
	}
	var text string // the line of the previous link: links on one line share it
	prevLine := 0
	for i, l := range parsed.Links {
		if i == MaxLinksPerNote {
			break
		}
		l = cloneLink(l)
		if l.Line == 0 { // in the frontmatter
			n.add(l, l.Key+": "+l.Original, "")
			continue
		}
		if l.Line != prevLine {
			text, prevLine = lines.text(l.Line), l.Line
		}
		section := ""
		if i := sectionAt(parsed.Sections, l.Line); i >= 0 {
			section = headings[i]
		}
		n.add(l, excerpt(text, l.Original), section)
	}
	return n
}

func newEmptyNote(path string) *note {
	key := lower(trimMD(path))
	return &note{path: path, key: key, name: key[strings.LastIndexByte(key, '/')+1:]}
}

// movedTo returns a copy of n at another path, its links parsed again from there, since the
// note's folder is where its relative links start.
func (n *note) movedTo(path string) *note {
	m := newEmptyNote(path)
	m.aliases = n.aliases
	for _, r := range n.refs {
		m.add(r.Link, r.Text, r.Section)
	}
	return m
}

func (n *note) add(l markdown.Link, text, section string) {
	n.refs = append(n.refs, &ref{
		Ref:    Ref{From: n.path, Link: l, Text: text, Section: section},
		order:  len(n.refs),
		target: parseTarget(n.path, l.Target),
	})
}

// names returns the names under which links may find n: its name and its aliases.
func (n *note) names() []string {
	return append([]string{n.name}, n.aliases...)
}

// changedNames returns the names that old (nil for a new note) or n answers to but not both:
// the links looking for them may now resolve differently.
func changedNames(old, n *note) []string {
	if old == nil {
		return n.names()
	}
	var changed []string
	for _, a := range old.aliases {
		if !slices.Contains(n.aliases, a) {
			changed = append(changed, a)
		}
	}
	for _, a := range n.aliases {
		if !slices.Contains(old.aliases, a) {
			changed = append(changed, a)
		}
	}
	return changed
}

// text returns a copy of line number (1-based), as shown to a model: valid UTF-8, without the
// CR of a Windows line end; "" past the last line.
func (r *lineReader) text(number int) string {
	if number < r.number { // never for links in order, which is how the parser lists them
		r.rest, r.number = r.all, 1
	}
	for ; r.number < number && r.rest != ""; r.number++ {
		_, r.rest, _ = strings.Cut(r.rest, "\n")
	}
	if r.number < number {
		return ""
	}
	line, _, _ := strings.Cut(r.rest, "\n")
	line = strings.TrimSuffix(line, "\r")
	return strings.Clone(strings.ToValidUTF8(line, "\uFFFD"))
}

// MaxText bounds the text kept of a link's line. A paragraph is one line, sometimes of
// thousands of bytes, and each of its links would keep all of it: 10,000 links on a line of
// 160 KB would be 1.6 GB to store. A longer line is cut to the part around the link.
const MaxText = 500

// excerpt returns line, or when line is longer than MaxText, the MaxText bytes of it around
// the link written as original, cut between characters, with "…" where it was cut.
func excerpt(line, original string) string {
	if len(line) <= MaxText {
		return line
	}
	at := max(strings.Index(line, original), 0)
	start := max(0, min(at-(MaxText-len(original))/2, len(line)-MaxText))
	end := min(len(line), start+MaxText)
	for start < end && !utf8.RuneStart(line[start]) {
		start++
	}
	for end < len(line) && !utf8.RuneStart(line[end]) {
		end--
	}
	cut := strings.Clone(line[start:end])
	if start > 0 {
		cut = "…" + cut
	}
	if end < len(line) {
		cut += "…"
	}
	return cut
}

// lineReader finds the lines of a text by number, reading forward: a note's links come in the
// order of their lines, and a slice of every line would cost 16 bytes a line.
type lineReader struct {
	all    string
	rest   string // the text from the start of line number on
	number int
}

func newLineReader(text string) *lineReader {
	return &lineReader{all: text, rest: text, number: 1}
}

// sectionAt returns the index of the section holding line, or -1 for text above the first
// heading and for the frontmatter (line 0).
func sectionAt(sections []markdown.Section, line int) int {
	return sort.Search(len(sections), func(i int) bool { return sections[i].Line > line }) - 1
}

// cloneLink copies the link's text out of the note's content. The parser's strings point into
// the content; without the copy, one kept link would keep the whole note in memory.
func cloneLink(l markdown.Link) markdown.Link {
	l.Target = strings.Clone(l.Target)
	l.Heading = strings.Clone(l.Heading)
	l.Block = strings.Clone(l.Block)
	l.Display = strings.Clone(l.Display)
	l.Key = strings.Clone(l.Key)
	l.Original = strings.Clone(l.Original)
	return l
}
