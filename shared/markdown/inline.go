package markdown

import (
	"regexp"
	"slices"
	"sort"
	"strings"
)

// This file reads the text of a paragraph as CommonMark reads inline content: from left to
// right, where whatever starts first wins. Code spans (`like this`) and math ($$x$$) are
// content but hold no links or tags; comments (%% like this %% and <!-- like this -->) are not
// content at all; links and tags are found in the rest. A paragraph's lines are read together
// because all of these may cross a line end.

// srcLine is a line of the body as the paragraph scanner reads it.
type srcLine struct {
	number      int
	text        string
	skip        int  // the scanner starts at this byte: what comes before was read as a block,
	hideSkipped bool // an HTML comment that is hidden, or else math that is shown
}

type span struct{ start, end int }

// found is a link or tag with where it starts in the paragraph.
type found[T any] struct {
	at int
	v  T
}

// opener is a "[" or "![" that a later "]" may close into a Markdown link or image.
type opener struct {
	at    int // of the "["
	image bool
}

// scanner reads one paragraph: the lines of parser.para, joined by "\n", in s.
type scanner struct {
	p        *parser
	s        string
	starts   []int  // where each line begins in s
	hidden   []span // the comments, in order
	links    []found[Link]
	tags     []found[Tag]
	openers  []opener
	inactive int      // the "[" of openers[:inactive] make no link: CommonMark allows no link in a link
	runs     runIndex // the backtick runs of s, found when the first backtick is met
	tagEnd   int      // where the last tag ended: a tag may follow a tag, as in #Bob#Alice
	out      []string // the lines visible returns

	// No "-->" or "$$" follows: none can close a comment or math, so none is looked for again,
	// and a paragraph of many "<!--" costs one search, not one each.
	htmlUnclosed, mathUnclosed bool
}

// scanParagraph reads p.para: it adds the links and tags it finds to the note, and returns each
// line's text without its comments, leaving out lines that are all comment. The lines returned
// are good until the next paragraph is read.
func (p *parser) scanParagraph() []string {
	// One scanner serves every paragraph of a note, its slices emptied but kept.
	sc := &p.scanner
	*sc = scanner{
		p: p, tagEnd: -1, starts: sc.starts[:0], hidden: sc.hidden[:0], links: sc.links[:0],
		tags: sc.tags[:0], openers: sc.openers[:0], out: sc.out[:0],
	}
	if len(p.para) == 1 {
		sc.s, sc.starts = p.para[0].text, append(sc.starts, 0)
	} else {
		var b strings.Builder
		for i, l := range p.para {
			if i > 0 {
				b.WriteByte('\n')
			}
			sc.starts = append(sc.starts, b.Len())
			b.WriteString(l.text)
		}
		sc.s = b.String()
	}
	first := p.para[0]
	if first.hideSkipped {
		sc.hide(0, first.skip)
	}
	sc.scan(first.skip)

	// An image inside a link is found before the link, which starts before it.
	slices.SortStableFunc(sc.links, func(a, b found[Link]) int { return a.at - b.at })
	for _, l := range sc.links {
		if len(p.note.Links) < MaxLinks {
			l.v.Line = sc.lineAt(l.at)
			p.note.Links = append(p.note.Links, l.v)
		}
	}
	for _, t := range sc.tags {
		if len(p.note.Tags) < MaxTags {
			t.v.Line = sc.lineAt(t.at)
			p.note.Tags = append(p.note.Tags, t.v)
		}
	}
	return sc.visible()
}

// lineAt returns the number of the line that holds byte at of the paragraph.
func (sc *scanner) lineAt(at int) int {
	k := sort.Search(len(sc.starts), func(k int) bool { return sc.starts[k] > at }) - 1
	return sc.p.para[k].number
}

func (sc *scanner) hide(start, end int) {
	if end > start {
		sc.hidden = append(sc.hidden, span{start, end})
	}
}

// scan reads s from byte i on. A %% comment may be open when it starts, from the paragraph
// before, and may still be open when it ends.
func (sc *scanner) scan(i int) {
	s := sc.s
	commentStart := i
	for i < len(s) {
		if sc.p.comment {
			end := strings.Index(s[i:], "%%")
			if end < 0 {
				break
			}
			i += end + 2
			sc.hide(commentStart, i)
			sc.p.comment = false
			continue
		}
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s) && isASCIIPunct(s[i+1]):
			i += 2 // \[, \# and \` are literal
		case c == '`':
			i = sc.codeSpan(i)
		case c == '%' && strings.HasPrefix(s[i:], "%%"):
			sc.p.comment, commentStart = true, i
			i += 2
		case c == '<':
			i = sc.angle(i)
		case c == '$' && strings.HasPrefix(s[i:], "$$"):
			i = sc.math(i)
		case c == '!' && strings.HasPrefix(s[i:], "!["):
			i = sc.bracket(i+1, true)
		case c == '[':
			i = sc.bracket(i, false)
		case c == ']':
			i = sc.closeBracket(i)
		case c == '#':
			i = sc.tag(i)
		default:
			i++
		}
	}
	if sc.p.comment {
		sc.hide(commentStart, len(s)) // the comment goes on after the paragraph
	}
}

// codeSpan reads the backtick run at i: the start of a code span if a run of the same length
// follows, else literal backticks. It returns where to read on.
func (sc *scanner) codeSpan(i int) int {
	if sc.runs == nil {
		sc.runs = backtickRuns(sc.s)
	}
	run := runLength(sc.s[i:], '`')
	end := sc.runs.next(run, i+run)
	if end < 0 {
		return i + run
	}
	if sc.p.onCode != nil {
		sc.p.onCode(sc.s[i : end+run])
	}
	return end + run
}

// math reads the "$$" at i: math up to the next "$$", if there is one, else literal text.
func (sc *scanner) math(i int) int {
	if !sc.mathUnclosed {
		if end := strings.Index(sc.s[i+2:], "$$"); end >= 0 {
			return i + 2 + end + 2
		}
		sc.mathUnclosed = true
	}
	return i + 2
}

// angle reads the "<" at i. An HTML comment is hidden: "<!-->", "<!--->", or "<!--" up to the
// next "-->" (CommonMark 0.31.2, section 6.6); a "<!--" that nothing closes is literal text.
// An HTML tag or an autolink is read whole, as CommonMark reads it before any link around it.
func (sc *scanner) angle(i int) int {
	s := sc.s[i:]
	switch {
	case strings.HasPrefix(s, "<!-->"):
		sc.hide(i, i+5)
		return i + 5
	case strings.HasPrefix(s, "<!--->"):
		sc.hide(i, i+6)
		return i + 6
	case strings.HasPrefix(s, "<!--"):
		if !sc.htmlUnclosed {
			if end := strings.Index(s[4:], "-->"); end >= 0 {
				sc.hide(i, i+4+end+3)
				return i + 4 + end + 3
			}
			sc.htmlUnclosed = true
		}
		return i + 1
	}
	if m := rawHTML.FindStringIndex(s[:min(len(s), maxLink)]); m != nil {
		return i + m[1]
	}
	return i + 1
}

// rawHTML matches what CommonMark reads as a tag or an autolink at the start of a text
// (sections 6.5 and 6.6): an opening or closing tag, a declaration, or a URI or e-mail
// address in angle brackets. Processing instructions ("<?php … ?>") and CDATA sections, which
// notes hardly hold, are left out, with declarations that hold a "<": each could be searched
// for its end from every "<" of a hostile line, in time growing with the square of its length.
var rawHTML = regexp.MustCompile(`^(?:` +
	`<[A-Za-z][A-Za-z0-9-]*(?:\s+[A-Za-z_:][A-Za-z0-9_.:-]*(?:\s*=\s*(?:[^\s"'=<>` + "`" + `]+|'[^']*'|"[^"]*"))?)*\s*/?>` +
	`|</[A-Za-z][A-Za-z0-9-]*\s*>` +
	`|<![A-Za-z][^<>]*>` +
	`|<[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\x00-\x20<>]*>` +
	`|<[a-zA-Z0-9.!#$%&'*+/=?^_` + "`" + `{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*>` +
	`)`)

// bracket reads the "[" at i, after a "!" when image is set: a wikilink, read whole, or the
// possible start of a Markdown link, which a later "]" decides.
func (sc *scanner) bracket(i int, image bool) int {
	start := i
	if image {
		start--
	}
	if strings.HasPrefix(sc.s[i:], "[[") {
		if l, n := wikilink(sc.s[i:]); n > 0 {
			l.Embed, l.Original = image, sc.s[start:i+n]
			sc.links = append(sc.links, found[Link]{start, l})
			return i + n
		}
	}
	sc.openers = append(sc.openers, opener{at: i, image: image})
	return i + 1
}

// closeBracket reads the "]" at i: it closes the last "[" into a Markdown link when an inline
// destination follows, "(a.md)", as CommonMark's algorithm for links does (section 6.3).
func (sc *scanner) closeBracket(i int) int {
	n := len(sc.openers)
	if n == 0 {
		return i + 1
	}
	o := sc.openers[n-1]
	sc.openers = sc.openers[:n-1]
	active := o.image || n-1 >= sc.inactive // an image may hold a link, and a link an image
	sc.inactive = min(sc.inactive, n-1)
	if !active || !strings.HasPrefix(sc.s[i+1:], "(") {
		return i + 1
	}
	dest, size, ok := linkTail(sc.s[i+1:])
	if !ok {
		return i + 1
	}
	end := i + 1 + size
	start := o.at
	if o.image {
		start--
	} else {
		sc.inactive = len(sc.openers) // the brackets before this link make no link
	}
	// A tag in the text of a link is part of what the link shows, not a tag.
	for len(sc.tags) > 0 && sc.tags[len(sc.tags)-1].at > o.at {
		sc.tags = sc.tags[:len(sc.tags)-1]
	}
	if l, ok := localLink(dest); ok {
		l.Display, l.Embed, l.Markdown, l.Original = sc.s[o.at+1:i], o.image, true, sc.s[start:end]
		sc.links = append(sc.links, found[Link]{start, l})
	}
	return end
}

// tag reads the "#" at i: a tag if it starts a line or follows a space, a tab or another tag.
func (sc *scanner) tag(i int) int {
	s := sc.s
	if i > 0 && s[i-1] != ' ' && s[i-1] != '\t' && s[i-1] != '\n' && i != sc.tagEnd {
		return i + 1
	}
	name := tagAt(s[i+1:])
	end := i + 1 + len(name)
	if validTag(name) {
		sc.tags = append(sc.tags, found[Tag]{i, Tag{Name: name}})
		sc.tagEnd = end
	}
	return end
}

// visible returns the text of each line of the paragraph without its comments, leaving out
// the lines that are all comment.
func (sc *scanner) visible() []string {
	out := sc.out
	h := 0
	for k, line := range sc.p.para {
		start := sc.starts[k]
		end := start + len(line.text)
		for h < len(sc.hidden) && sc.hidden[h].end <= start {
			h++
		}
		if h == len(sc.hidden) || sc.hidden[h].start >= end {
			out = append(out, line.text)
			continue
		}
		var b strings.Builder
		at := start
		for j := h; j < len(sc.hidden) && sc.hidden[j].start < end; j++ {
			if sc.hidden[j].start > at {
				b.WriteString(sc.s[at:sc.hidden[j].start])
			}
			at = max(at, min(sc.hidden[j].end, end))
		}
		b.WriteString(sc.s[at:end])
		if b.Len() > 0 || line.text == "" {
			out = append(out, b.String())
		}
	}
	sc.out = out
	return out
}

// isASCIIPunct reports whether c is one of the characters a backslash escapes in CommonMark.
func isASCIIPunct(c byte) bool {
	return strings.IndexByte("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", c) >= 0
}

// The starts of blocks that end a paragraph, besides headings and fences.

// isThematicBreak reports whether body (a line without its indentation) is a rule: three or
// more of one of '-', '*' or '_', with only spaces and tabs between.
func isThematicBreak(body string) bool {
	marker, n := byte(0), 0
	for i := 0; i < len(body); i++ {
		switch c := body[i]; {
		case c == ' ' || c == '\t':
		case (c == '-' || c == '*' || c == '_') && (marker == 0 || c == marker):
			marker, n = c, n+1
		default:
			return false
		}
	}
	return n >= 3
}

// isListItem reports whether body starts a list item: "-", "*" or "+", or up to nine digits
// and "." or ")", then a space, a tab or the end of the line.
func isListItem(body string) bool {
	i := 0
	for i < len(body) && i < 9 && body[i] >= '0' && body[i] <= '9' {
		i++
	}
	switch {
	case i == 0 && body != "" && strings.IndexByte("-*+", body[0]) >= 0:
		i = 1
	case i > 0 && i < len(body) && (body[i] == '.' || body[i] == ')'):
		i++
	default:
		return false
	}
	return i == len(body) || body[i] == ' ' || body[i] == '\t'
}

func isHeading(line string) bool {
	_, _, ok := atxHeading(line)
	return ok
}

func isFence(line string) bool {
	_, ok := openFence(line)
	return ok
}

// closesComment reports whether the rest of a line after "<!--" closes the comment.
func closesComment(rest string) bool {
	return strings.HasPrefix(rest, ">") || strings.HasPrefix(rest, "->") || strings.Contains(rest, "-->")
}
