// Package markdown turns an Obsidian note into what a search index holds: its headings, its
// sections cut into chunks that can be embedded, its links and its tags.
//
// It reads the Markdown that Obsidian writes, including what Obsidian adds to CommonMark:
// wikilinks, #tags, %% comments %% and $$ math $$. Blocks are found line by line, and the text
// of each paragraph is read as CommonMark reads inline content, where code spans, links and
// comments may cross line ends. It renders nothing and knows exactly as much structure as
// indexing needs (headings, code, comments, math, links); the tests hold it to the examples of
// the CommonMark spec for those, and to what a running Obsidian reported for real notes.
//
// Simplified: setext headings (text underlined with === or ---) and indented code blocks are
// read as text, and link reference definitions ("[x]: /url") are not read.
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
	p := parser{note: &n}
	p.read(body, bodyLine)

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
	html        htmlBlock       // the open HTML comment block, if any
	math        bool            // a $$ math block is open
	comment     bool            // a %% comment is open
	para        []srcLine       // the lines of the paragraph being read, not yet scanned
	scanner     scanner         // reads them
	quotes      int             // how many blockquote levels its last line sits in
	rest        string          // the body after the current line
	mathClosed  bool            // no "$$" follows in the body: none can close a math block
	current     Section         // the section being read
	text        strings.Builder // its lines so far, each after a newline but the first
	lines       int             // how many
	trail       []Heading
	maxSections int
	onCode      func(code string) // if set, called with each code span, backticks included
}

// add appends a line to the current section's text.
func (p *parser) add(line string) {
	if p.lines > 0 {
		p.text.WriteByte('\n')
	}
	p.text.WriteString(line)
	p.lines++
}

// line reads one line of the body. Blocks (fences, headings, HTML comments, math) are
// recognised line by line, as CommonMark does; the text of a paragraph is read when the
// paragraph ends, since code spans, links and comments inside it may cross line ends.
func (p *parser) line(number int, line string) {
	switch {
	case p.fence.open():
		code, closes := p.fence.within(line)
		if closes {
			p.fence = fence{}
		}
		if code {
			p.add(line) // code is content, but holds no headings, links or tags
			return
		}
	case p.html.open():
		if p.htmlLine(number, line) {
			return
		}
	case p.math:
		p.mathLine(number, line)
		return
	}

	kind := p.classify(line)
	if kind != textLine {
		p.flush() // the paragraph ends here, so whether a %% comment is open is now known
	}
	if p.comment && kind != blankLine {
		// Inside a %% comment nothing starts a block: the line is hidden text.
		p.para = append(p.para, srcLine{number: number, text: line})
		return
	}
	switch kind {
	case blankLine:
		p.add(line)
	case fenceLine:
		p.fence, _ = openFence(line)
		p.add(line)
	case htmlLine:
		p.html = htmlBlock{quotes: p.quotes + 1}
		p.htmlLine(number, line)
	case mathLine:
		p.math = true
		p.add(line)
	case headingLine:
		p.para = append(p.para, srcLine{number: number, text: line})
		p.flushHeading()
	default:
		p.para = append(p.para, srcLine{number: number, text: line})
	}
}

// The kinds of line that end the paragraph before them, and textLine, which continues it.
type lineKind int

const (
	textLine lineKind = iota
	blankLine
	headingLine
	fenceLine
	htmlLine  // a line that starts with "<!--" and does not close it: an HTML comment block
	mathLine  // a line that starts with "$$" and does not close it, with a "$$" further on
	otherLine // a list item, a rule, a deeper blockquote, a one-line comment or math: a block
)

// classify says what kind of line line is, from where it starts. It also records how many
// blockquote levels the line sits in.
func (p *parser) classify(line string) lineKind {
	quotes, rest := unquote(line, len(line))
	deeper := quotes > p.quotes
	p.quotes = quotes
	body := strings.TrimLeft(rest, " ")
	indented := len(rest)-len(body) > 3
	switch {
	case strings.TrimSpace(rest) == "":
		return blankLine
	case quotes == 0 && isHeading(line):
		return headingLine
	case isFence(line):
		return fenceLine
	case indented:
	case strings.HasPrefix(body, "<!--") && !closesComment(body[4:]):
		return htmlLine
	case strings.HasPrefix(body, "$$") && !strings.Contains(body[2:], "$$") && p.mathCloses():
		return mathLine
	case strings.HasPrefix(body, "<!--") || strings.HasPrefix(body, "$$") || isThematicBreak(body):
		return otherLine // a comment or math that closes on its line, or a rule
	}
	if deeper || isListItem(body) {
		return otherLine
	}
	return textLine
}

// mathCloses reports whether a "$$" follows in the body, to close a math block that opens on
// this line. One that nothing closes is not a math block: it would hide every link below it.
// Once none follows, none will, so the search costs at most one pass over the note.
func (p *parser) mathCloses() bool {
	if !p.mathClosed && !strings.Contains(p.rest, "$$") {
		p.mathClosed = true
	}
	return !p.mathClosed
}

// mathLine reads a line inside a $$ math block: LaTeX, which is content (search finds it) but
// holds no links or tags. The line that holds the closing "$$" ends the block; what follows
// it on that line is read as text.
func (p *parser) mathLine(number int, line string) {
	end := strings.Index(line, "$$")
	if end < 0 {
		p.add(line)
		return
	}
	p.math = false
	p.para = append(p.para, srcLine{number: number, text: line, skip: end + 2})
	p.flush()
}

// htmlBlock is an open HTML comment block: a line that starts with "<!--" opens one, and it
// runs to the line holding "-->" (CommonMark's HTML block of type 2), or to the end of the
// blockquote that holds it, or of the note.
type htmlBlock struct {
	quotes int // 1 + the blockquote levels it sits in; 0 when no block is open
}

func (h htmlBlock) open() bool { return h.quotes > 0 }

// htmlLine reads a line while an HTML comment block is open, and reports whether the line is
// done with; a line outside the blockquote that held the block is not, and is read anew.
func (p *parser) htmlLine(number int, line string) bool {
	quotes, _ := unquote(line, p.html.quotes-1)
	if quotes < p.html.quotes-1 {
		p.html = htmlBlock{}
		return false
	}
	end := strings.Index(line, "-->")
	if end < 0 {
		return true // a line of the comment
	}
	p.html = htmlBlock{}
	// The block ends on this line; what follows the comment is text.
	p.para = append(p.para, srcLine{number: number, text: line, skip: end + 3, hideSkipped: true})
	p.flush()
	return true
}

// flush reads the paragraph gathered so far: its links, tags and comments, and its text, with
// the comments left out, into the current section.
func (p *parser) flush() {
	if len(p.para) == 0 {
		return
	}
	for _, text := range p.scanParagraph() {
		p.add(text)
	}
	p.para = p.para[:0]
}

// flushHeading reads the one line gathered, a line that starts as an ATX heading does: it is
// a heading if some of its text is outside comments, and starts a section.
func (p *parser) flushHeading() {
	number := p.para[0].number
	visible := p.scanParagraph()
	p.para = p.para[:0]
	if len(visible) == 0 {
		return
	}
	if level, heading, ok := atxHeading(visible[0]); ok {
		p.startSection(Heading{Text: heading, Level: level, Line: number}, visible[0])
		return
	}
	p.add(visible[0])
}

// read reads the body of a note, whose first line is line bodyLine of the file, into the note.
func (p *parser) read(body string, bodyLine int) {
	p.current = Section{Line: bodyLine}
	if p.maxSections == 0 { // unless the caller chose its own bound
		p.maxSections = MaxSections(len(body))
	}
	// Line by line, without a slice of all the lines: a note of empty lines would make one of
	// 16 bytes for each byte of the note.
	for number := bodyLine; ; number++ {
		line, rest, more := strings.Cut(body, "\n")
		p.rest = rest
		p.line(number, strings.TrimSuffix(line, "\r"))
		if !more {
			break
		}
		body = rest
	}
	p.flush()
	p.endSection()
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
