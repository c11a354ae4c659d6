package edit

import (
	"bytes"
	"fmt"
	"path"
	"strings"

	"vaultmcp/shared/markdown"
	"vaultmcp/shared/vault"
)

// bom is the byte order mark some editors put before the first line. It is not content: a
// note that holds only a BOM is empty.
const bom = "\ufeff"

// Insert returns content with text added as new lines: at the end, or, when heading is not
// "", at the end of that heading's section, right after its last line that is not blank, so
// the blank lines before the next heading stay where they were. A section ends where the next
// heading of the same or a higher level starts, or at the end of the note. heading is a
// heading's text ("Log"), or its path from the top of the outline when the text alone names
// more than one ("Projects > Log"); see locate. notePath names the note in refusals, and its
// base name may start a path, as search results name sections ("Title > Heading").
//
// Every byte of content is kept. The text takes the note's line endings (see lineEnding),
// whatever ones it came with, and loses the line breaks it ends with: it becomes whole lines.
// A note without a final line break gets one before the text and none after it, so its end
// looks as it did.
func Insert(notePath string, content []byte, text, heading string) ([]byte, error) {
	eol := lineEnding(content)
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	text = strings.TrimRight(text, "\n")
	text = strings.ReplaceAll(text, "\n", eol)

	at := len(content)
	if heading != "" {
		title := strings.TrimSuffix(path.Base(notePath), path.Ext(notePath))
		headings := markdown.Outline(string(content))
		i, err := locate(notePath, title, headings, heading)
		if err != nil {
			return nil, err
		}
		end := 0 // the line the next heading of the same or a higher level starts, or none
		for _, h := range headings[i+1:] {
			if h.Level <= headings[i].Level {
				end = h.Line
				break
			}
		}
		at = afterLastText(content, headings[i].Line, end)
	}

	var b bytes.Buffer
	b.Grow(len(content) + len(text) + 2*len(eol))
	b.Write(content[:at])
	empty := at == len(content) && (len(content) == 0 || string(content) == bom)
	unterminated := at > 0 && content[at-1] != '\n' && !empty
	if unterminated {
		b.WriteString(eol) // one line break to end the last line, and nothing more
	}
	b.WriteString(text)
	if !(unterminated && at == len(content)) {
		b.WriteString(eol)
	}
	b.Write(content[at:])
	return b.Bytes(), nil
}

// lineEnding returns the line break the note uses, as its first line break is written:
// "\r\n" for a note saved on Windows, "\n" otherwise, and for a note of one line.
func lineEnding(content []byte) string {
	if i := bytes.IndexByte(content, '\n'); i > 0 && content[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

// afterLastText returns the offset just after the last line from line first up to, not
// including, line end (0: to the end of the note) that holds more than white space, its line
// break included. Lines are numbered from 1, as markdown numbers them.
func afterLastText(content []byte, first, end int) int {
	at, offset := 0, 0
	for line := 1; offset < len(content) && (end == 0 || line < end); line++ {
		next := len(content)
		if i := bytes.IndexByte(content[offset:], '\n'); i >= 0 {
			next = offset + i + 1
		}
		if line >= first && len(bytes.TrimSpace(content[offset:next])) > 0 {
			at = next
		}
		offset = next
	}
	return at
}

// maxListed bounds the headings a refusal lists. A note with hundreds would fill the model's
// context with them; the first ones show what the outline looks like.
const maxListed = 20

// locate finds the heading the model asked for, among headings, and returns its index. want
// is tried as a heading's text, then as a path: its parts, split at '>', must be the last
// parts of the heading's path, which runs from the note's title down through the headings
// above it (see find). A first part that names the note, as search results write it, may
// stand before any heading. More than one heading found is a refusal that lists them, never a
// guess.
func locate(note, title string, headings []markdown.Heading, want string) (int, error) {
	want = strings.TrimSpace(want)
	if level := strings.IndexFunc(want, func(r rune) bool { return r != '#' }); level > 0 && (want[level] == ' ' || want[level] == '\t') {
		want = strings.TrimSpace(want[level:]) // "## Log", as a heading is written
	}
	trails := make([][]string, len(headings))
	var stack []markdown.Heading
	for i, h := range headings {
		for len(stack) > 0 && stack[len(stack)-1].Level >= h.Level {
			stack = stack[:len(stack)-1]
		}
		stack = append(stack, h)
		trails[i] = make([]string, len(stack))
		for j, s := range stack {
			trails[i][j] = s.Text
		}
	}

	parts := strings.Split(want, ">")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	found := find(headings, trails, title, want, parts)
	if len(found) == 0 && len(parts) > 1 && namesNote(note, title, parts[0]) {
		// Search results name a section by its note and its own heading, "Garden/Tomatoes.md >
		// Watering", whatever headings lie between: the note is known, the rest is the heading.
		want, parts = strings.Join(parts[1:], " > "), parts[1:]
		found = find(headings, trails, title, want, parts)
	}

	switch {
	case len(found) == 1:
		return found[0], nil
	case len(found) > 1:
		return 0, ambiguous(note, want, headings, trails, found)
	case len(headings) == 0:
		return 0, vault.Refuse(ErrHeading, "note %q has no headings; leave heading out to add at the end of the note", note)
	}
	listed := make([]string, 0, min(len(headings), maxListed))
	for i := range headings[:cap(listed)] {
		listed = append(listed, fmt.Sprintf("%q", strings.Join(trails[i], " > ")))
	}
	more := ""
	if len(headings) > len(listed) {
		more = fmt.Sprintf(" and %d more", len(headings)-len(listed))
	}
	return 0, vault.Refuse(ErrHeading, "note %q has no heading %q; its headings are %s%s; send one of them, or leave heading out to add at the end of the note",
		note, clip(want), strings.Join(listed, ", "), more)
}

// find returns the headings that want names: as a heading's text, or else as the last parts
// of a heading's path, its trail under the note's title. Each way is tried as written, then
// ignoring case, and the first that finds any heading decides.
func find(headings []markdown.Heading, trails [][]string, title, want string, parts []string) []int {
	var found []int
	for _, equal := range []func(a, b string) bool{func(a, b string) bool { return a == b }, strings.EqualFold} {
		for i, h := range headings {
			if equal(h.Text, want) {
				found = append(found, i)
			}
		}
		if len(found) == 0 && len(parts) > 1 {
			for i := range headings {
				if endsWith(append([]string{title}, trails[i]...), parts, equal) {
					found = append(found, i)
				}
			}
		}
		if len(found) > 0 {
			break
		}
	}
	return found
}

// namesNote reports whether s names the note itself: its path, with or without its
// extension, or its title, in any case.
func namesNote(note, title, s string) bool {
	return strings.EqualFold(s, note) || strings.EqualFold(s, strings.TrimSuffix(note, path.Ext(note))) || strings.EqualFold(s, title)
}

// ambiguous refuses a heading that names several, listing them by their paths. When two of
// them have the same path, no path can tell them apart.
func ambiguous(note, want string, headings []markdown.Heading, trails [][]string, found []int) error {
	var listed []string
	seen := map[string]bool{}
	same := false
	for _, i := range found[:min(len(found), maxListed)] {
		p := strings.Join(trails[i], " > ")
		same = same || seen[p]
		seen[p] = true
		listed = append(listed, fmt.Sprintf("%q (line %d)", p, headings[i].Line))
	}
	if same {
		return vault.Refuse(ErrHeading, "note %q has %d headings %q: %s, and no path tells some of them apart; leave heading out to add at the end of the note, or ask the user to rename one",
			note, len(found), clip(want), strings.Join(listed, ", "))
	}
	return vault.Refuse(ErrHeading, "note %q has %d headings %q: %s; send the one you mean as its path, like %q",
		note, len(found), clip(want), strings.Join(listed, ", "), strings.Join(trails[found[0]], " > "))
}

// endsWith reports whether the last parts of trail are parts.
func endsWith(trail, parts []string, equal func(a, b string) bool) bool {
	if len(parts) > len(trail) {
		return false
	}
	tail := trail[len(trail)-len(parts):]
	for i := range parts {
		if !equal(tail[i], parts[i]) {
			return false
		}
	}
	return true
}
