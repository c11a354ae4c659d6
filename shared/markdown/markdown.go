// Package markdown turns an Obsidian note into what a search index holds: its headings, its
// sections cut into chunks that can be embedded, its links and its tags.
//
// It reads the Markdown that Obsidian writes, line by line, including what Obsidian adds to
// CommonMark: wikilinks, #tags, %% comments %%. It is not a full Markdown
// parser; it knows exactly as much structure as indexing needs (headings, code, comments), and
// the tests compare what it finds with what a running Obsidian reported for the same notes.
package markdown

import (
	"path"
	"strings"

	"vaultmcp/shared/frontmatter"
)

// Note is a parsed note.
type Note struct {
	Title       string // the file name without ".md": Obsidian's title for the note
	Frontmatter frontmatter.Frontmatter
	Headings    []Heading // those that start a section: every one, but see MaxSections
	Sections    []Section // in file order; text before the first heading comes first
	Links       []Link    // frontmatter links first (by property name), then the body's in order
	Tags        []Tag     // frontmatter tags first, then the body's in order
	Aliases     []string  // other names for the note, from the "aliases" (or "alias") property
}

// Heading is a Markdown heading ("## Text"); Line is 1-based in the file.
type Heading struct {
	Text  string
	Level int
	Line  int
}

// Section is a heading and the text under it, up to the next heading of any level.
type Section struct {
	Heading string   // "" for the text before the first heading
	Trail   []string // the headings from the top of the outline down to this one
	Level   int      // 1-6, or 0 for the text before the first heading
	Line    int      // 1-based line of the heading (or where the body starts)
	Text    string   // the lines under the heading, comments removed
	Chunks  []string // what gets embedded; see MaxChunk
}

// Tag is a tag, without its '#': "project/alpha" for #project/alpha.
type Tag struct {
	Name string
	Line int // 1-based line in the file; 0 for tags from the frontmatter
}

// Parse parses a note. notePath is the note's vault-relative path with '/' separators; it
// gives the title.
func Parse(notePath, content string) Note {
	// A note is text. Bytes that are not UTF-8 (a file saved in another encoding) become
	// U+FFFD here, so the JSON, the database and the embedder downstream see valid text.
	content = strings.ToValidUTF8(content, "\uFFFD")

	fm, body, bodyLine := frontmatter.Split(content)
	n := Note{
		Title:       strings.TrimSuffix(path.Base(notePath), ".md"),
		Frontmatter: fm,
		Links:       frontmatterLinks(fm.Fields),
		Tags:        frontmatterTags(fm.Fields),
		Aliases:     frontmatterAliases(fm.Fields),
	}
	p := parser{note: &n, current: Section{Line: bodyLine}, maxSections: MaxSections(len(body))}
	// Line by line, without a slice of all the lines: a note of empty lines would make one of
	// 16 bytes for each byte of the note.
	for number := bodyLine; ; number++ {
		line, rest, more := strings.Cut(body, "\n")
		p.line(number, strings.TrimSuffix(line, "\r"))
		if !more {
			break
		}
		body = rest
	}
	p.endSection()

	for i := range n.Sections {
		n.Sections[i].Chunks = chunk(prefix(n.Title, n.Sections[i].Trail), n.Sections[i].Text)
	}
	return n
}

// MaxSections bounds the sections of a note whose body is bodySize bytes long: 100, and one
// more for each sectionShare bytes. A section costs the index at least one chunk, and a chunk a
// vector whatever its length (3 KiB for 768 dimensions) and a call to the embedder: a note of
// a hundred thousand one-line sections would cost a thousand times its size. Real notes stay
// far below the bound: the most sections for their size, in the vaults the tests read, is one
// for 100 bytes of a 1 KiB note. Past it, a heading under which fewer than sectionShare bytes
// were written starts no section: it becomes a line of the section before it, which search
// still finds. So every later section holds sectionShare bytes or more, and a note has at most
// MaxSections(size) + size/sectionShare sections, however many headings it has.
func MaxSections(bodySize int) int { return 100 + bodySize/sectionShare }

const sectionShare = 512

// parser carries what one line needs to know about the lines before it.
type parser struct {
	note        *Note
	fence       fence           // the open code fence, if any
	comment     string          // the marker that closes the open comment ("%%" or "-->"), if any
	current     Section         // the section being read
	text        strings.Builder // its lines so far, each after a newline but the first
	lines       int             // how many
	trail       []Heading
	maxSections int
}

// add appends a line to the current section's text.
func (p *parser) add(line string) {
	if p.lines > 0 {
		p.text.WriteByte('\n')
	}
	p.text.WriteString(line)
	p.lines++
}

func (p *parser) line(number int, line string) {
	if p.fence.open() {
		code, closes := p.fence.within(line)
		if closes {
			p.fence = fence{}
		}
		if code {
			p.add(line) // code is content, but holds no headings, links or tags
			return
		}
	}

	startsInComment := p.comment != ""
	if !startsInComment {
		if f, ok := openFence(line); ok {
			p.fence = f
			p.add(line)
			return
		}
	}
	pieces := p.visible(line)
	if len(pieces) == 0 && line != "" {
		return // the line is all comment
	}
	text := line
	if len(pieces) != 1 || pieces[0].end-pieces[0].start != len(line) {
		var visible strings.Builder
		for _, pc := range pieces {
			visible.WriteString(line[pc.start:pc.end])
		}
		text = visible.String()
	}

	if level, heading, ok := atxHeading(text); ok && !startsInComment {
		p.startSection(Heading{Text: heading, Level: level, Line: number}, text)
	} else {
		p.add(text)
	}
	for _, pc := range pieces {
		if !pc.code {
			p.scan(line, pc.start, pc.end, number)
		}
	}
}

// startSection starts a section at heading h, written as line, or, past MaxSections, makes
// line part of the current section.
func (p *parser) startSection(h Heading, line string) {
	for len(p.trail) > 0 && p.trail[len(p.trail)-1].Level >= h.Level {
		p.trail = p.trail[:len(p.trail)-1]
	}
	p.trail = append(p.trail, h)
	if len(p.note.Sections) >= p.maxSections && p.text.Len() < sectionShare {
		p.add(line)
		return
	}
	p.endSection()
	trail := make([]string, len(p.trail))
	for i, t := range p.trail {
		trail[i] = t.Text
	}
	p.note.Headings = append(p.note.Headings, h)
	p.current = Section{Heading: h.Text, Trail: trail, Level: h.Level, Line: h.Line}
}

// endSection files the section read so far. Text before the first heading is a section only
// when there is some; a heading is one even when empty, since it is part of the outline.
func (p *parser) endSection() {
	s := p.current
	s.Text = strings.Trim(p.text.String(), "\n")
	p.text.Reset()
	p.lines = 0
	if s.Level == 0 && strings.TrimSpace(s.Text) == "" {
		return
	}
	p.note.Sections = append(p.note.Sections, s)
}

// MaxHeading bounds the text of a heading, in bytes. A heading names a section in a line; the
// index stores it with every chunk of its section, so a heading half a note long made the
// index grow with the square of the note. A longer heading is cut, and ends in "…".
const MaxHeading = 200

// atxHeading recognises "# Heading" through "###### Heading": up to three spaces, one to six
// '#', then a space or tab ("#tag" is a tag, not a heading). An optional closing run of '#' is
// not part of the text. A heading without text is not one: it titles nothing. Headings inside a
// blockquote or callout ("> # x") never reach this function, as the line starts with '>'; they
// belong to the quote, not to the outline. Obsidian also reads setext headings (a line
// underlined with === or ---); those are rare in vaults and are not recognised here.
func atxHeading(line string) (level int, text string, ok bool) {
	rest := strings.TrimLeft(line, " ")
	if len(line)-len(rest) > 3 {
		return 0, "", false
	}
	for level < len(rest) && rest[level] == '#' {
		level++
	}
	if level == 0 || level > 6 || level == len(rest) || (rest[level] != ' ' && rest[level] != '\t') {
		return 0, "", false
	}
	text = strings.TrimSpace(rest[level:])
	if closed := strings.TrimRight(text, "#"); closed == "" || strings.HasSuffix(closed, " ") || strings.HasSuffix(closed, "\t") {
		text = strings.TrimSpace(closed)
	}
	if len(text) > MaxHeading {
		text = truncate(text, MaxHeading-len("…")) + "…"
	}
	return level, text, text != ""
}
