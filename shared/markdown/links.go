package markdown

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Link is a link from the note to a note (or a heading or block in one), as written.
// Resolving Target to a file is a job for the whole vault, not for one note.
//
// Obsidian counts two syntaxes, and so do we: wikilinks ("[[a]]") and Markdown links to local
// files ("[text](a.md)"). Links to web addresses ("[text](https://…)") point out of the vault
// and are not links here.
type Link struct {
	Target   string // the note as written: "a", "folder/a", "a.md"; "" for [[#heading]] in this note
	Heading  string // "h" from [[a#h]]; nested headings keep Obsidian's '#': [[a#h#h2]] gives "h#h2"
	Block    string // "id" from [[a#^id]]
	Display  string // the display text, shown instead of the target: [[a|shown]], [[a\|shown]] in a table, [shown](a.md)
	Embed    bool   // ![[a]] or ![alt](a.png): the target is shown inside the note
	Markdown bool   // written [text](target) rather than [[target]]
	Key      string // for a link in the frontmatter, the property holding it ("related", "see.0")
	Line     int    // 1-based line in the file; 0 for links in the frontmatter
	Original string // the source text, e.g. "![[a#h|alias]]"
}

// MaxLinks and MaxTags bound what Parse keeps of one note; the rest is not listed. Real notes
// have dozens of links, and a hub a few thousand; without a bound, an 8 MiB note of "[[a]]"
// made 1.4 million, 170 MB of them, and one of "#a " 2.8 million tags.
const (
	MaxLinks = 10_000
	MaxTags  = 10_000
)

// scan finds the links and tags in line[start:end], a piece of prose on line number.
func (p *parser) scan(line string, start, end, number int) {
	line = line[:end] // what begins in the piece must end in it; line[start-1] is still context
	for i := start; i < end; {
		switch {
		case line[i] == '\\':
			i += 2 // \[ and \# are literal
		case line[i] == '[':
			l, n := linkAt(line[i:])
			if n == 0 {
				i++
				continue
			}
			l.Line, l.Original = number, line[i:i+n]
			if i > start && line[i-1] == '!' {
				l.Embed, l.Original = true, line[i-1:i+n]
			}
			if len(p.note.Links) < MaxLinks {
				p.note.Links = append(p.note.Links, l)
			}
			i += n
		case line[i] == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t'):
			name := tagAt(line[i+1:])
			if validTag(name) && len(p.note.Tags) < MaxTags {
				p.note.Tags = append(p.note.Tags, Tag{Name: name, Line: number})
			}
			i += 1 + len(name)
		default:
			i++
		}
	}
}

// maxLink bounds how far a link's end is looked for. Links are short; without a bound, a line
// of many '[' would be searched from each of them, in time growing with the square of its length.
const maxLink = 1 << 10

// linkAt parses the link that s starts with, a wikilink or a Markdown link, and returns it with
// the length of its source text, or n == 0 when s does not start with a link.
func linkAt(s string) (l Link, n int) {
	if strings.HasPrefix(s, "[[") {
		return wikilink(s)
	}
	return markdownLink(s)
}

// wikilink parses "[[target#subpath|display text]]" at the start of s. Obsidian splits the
// display text off at the first '|' after the first character, so [[|x]] links to "|x". In a
// table the '|' must be written "\|", and the backslash is not part of the target.
func wikilink(s string) (l Link, n int) {
	s = s[:min(len(s), maxLink)]
	end := strings.Index(s[2:], "]]")
	if end <= 0 { // [[]] is no link
		return Link{}, 0
	}
	inner := s[2 : 2+end]
	if strings.Contains(inner, "[[") {
		return Link{}, 0 // "[[a [[b]]" links only to b, found by the caller one '[' later
	}
	if i := strings.IndexByte(inner[1:], '|'); i >= 0 {
		inner, l.Display = strings.TrimSuffix(inner[:i+1], `\`), inner[i+2:]
	}
	l.Target, l.Heading, l.Block = splitSubpath(inner)
	return l, 2 + end + 2
}

// markdownLink parses "[text](destination)" at the start of s, where the destination is a
// local file, possibly percent-encoded ("My%20Note.md") or in angle brackets ("<My Note.md>"),
// and may be followed by a title ("a.md \"title\""). The text may hold balanced brackets, as
// in "[see [1]](a.md)" or an image that is itself the link, "[![logo](logo.png)](a.md)".
func markdownLink(s string) (l Link, n int) {
	s = s[:min(len(s), maxLink)]
	textEnd, depth := -1, 0
	for i := 0; i < len(s) && textEnd < 0; i++ {
		switch s[i] {
		case '[':
			depth++
		case ']':
			if depth--; depth == 0 {
				textEnd = i
			}
		}
	}
	if textEnd < 0 || !strings.HasPrefix(s[textEnd+1:], "(") {
		return Link{}, 0
	}
	rest := s[textEnd+2:]
	var dest string
	var destEnd int // where in rest the destination ends
	if strings.HasPrefix(rest, "<") {
		if destEnd = strings.IndexByte(rest, '>') + 1; destEnd == 0 {
			return Link{}, 0
		}
		dest = rest[1 : destEnd-1]
	} else {
		if destEnd = strings.IndexAny(rest, " )"); destEnd < 0 {
			return Link{}, 0
		}
		dest = rest[:destEnd]
	}
	closing := strings.IndexByte(rest[destEnd:], ')')
	if closing < 0 || dest == "" || hasScheme(dest) {
		return Link{}, 0
	}
	n = textEnd + 2 + destEnd + closing + 1
	if decoded, err := url.PathUnescape(dest); err == nil {
		dest = decoded
	}
	l.Target, l.Heading, l.Block = splitSubpath(dest)
	l.Display, l.Markdown = s[1:textEnd], true
	return l, n
}

// hasScheme reports whether dest is a URL such as "https://…", "mailto:…" or "obsidian://…".
func hasScheme(dest string) bool {
	scheme, _, ok := strings.Cut(dest, ":")
	if !ok || scheme == "" {
		return false
	}
	for i, r := range scheme {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && (r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.')) {
			return false
		}
	}
	return true
}

// splitSubpath splits "note#heading" or "note#^block" at the first '#'.
func splitSubpath(s string) (target, heading, block string) {
	target, sub, _ := strings.Cut(s, "#")
	if id, ok := strings.CutPrefix(sub, "^"); ok {
		return target, "", id
	}
	return target, sub, ""
}

// tagAt returns the tag name that s starts with (s follows a '#'). Obsidian's rule: letters
// and digits of any script, '_', '-', '/' for nesting, and other non-ASCII symbols such as
// emoji; a space or punctuation ends the tag.
func tagAt(s string) string {
	for i, r := range s {
		if !isTagRune(r) {
			return s[:i]
		}
	}
	return s
}

func isTagRune(r rune) bool {
	switch {
	case r == '_' || r == '-' || r == '/':
		return true
	case r < utf8.RuneSelf:
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
	default:
		return !unicode.IsSpace(r) && !unicode.IsPunct(r) && r != utf8.RuneError
	}
}

// validTag reports whether name can be a tag: not empty, and not only digits ("#123" is an
// issue number, not a tag).
func validTag(name string) bool {
	return strings.Trim(name, "0123456789") != "" && tagAt(name) == name
}

// frontmatterTags reads the "tags" property (in any letter case; Obsidian dropped the singular
// "tag" in version 1.9). It may be a list, or a string of tags separated by commas or YAML's
// white space (spaces and tabs), and a tag may be written with or without its '#'. A no-break
// or ideographic space separates nothing, as in YAML: "-\u00a0x" is one piece, which is no tag,
// rather than the list item "x" its author may have meant.
func frontmatterTags(fields map[string]any) []Tag {
	var tags []Tag
	add := func(name string) {
		if name = strings.TrimPrefix(name, "#"); validTag(name) {
			tags = append(tags, Tag{Name: name})
		}
	}
	for _, key := range sortedKeys(fields) {
		if !strings.EqualFold(key, "tags") {
			continue
		}
		switch v := fields[key].(type) {
		case string:
			for _, name := range strings.FieldsFunc(v, func(r rune) bool { return strings.ContainsRune(", \t\r\n", r) }) {
				add(name)
			}
		case []any:
			for _, item := range v {
				if name, ok := item.(string); ok {
					add(strings.TrimSpace(name))
				}
			}
		}
	}
	return tags
}

// frontmatterAliases reads the "aliases" property (in any letter case, like "tags"): a list of
// names, or one string of names separated by commas. The singular "alias" is read too, though
// Obsidian 1.9 dropped it as it dropped "tag": a tag filter must agree with Obsidian's tag pane,
// but aliases serve only our own rules (links, completion), where an old vault's name helps.
func frontmatterAliases(fields map[string]any) []string {
	var aliases []string
	add := func(name string) {
		if name = strings.TrimSpace(name); name != "" {
			aliases = append(aliases, name)
		}
	}
	for _, key := range sortedKeys(fields) {
		if !strings.EqualFold(key, "aliases") && !strings.EqualFold(key, "alias") {
			continue
		}
		switch v := fields[key].(type) {
		case string:
			for name := range strings.SplitSeq(v, ",") {
				add(name)
			}
		case []any:
			for _, item := range v {
				if name, ok := item.(string); ok {
					add(name)
				}
			}
		}
	}
	return aliases
}

// frontmatterLinks finds the wikilinks in the frontmatter's text values, like a property
// "related: [[Other note]]" (which must be quoted in YAML). Key names the property the way
// Obsidian does: "related", or "related.0" for the first item of a list.
func frontmatterLinks(fields map[string]any) []Link {
	var links []Link
	var walk func(key string, v any)
	walk = func(key string, v any) {
		switch v := v.(type) {
		case string:
			for i := 0; i < len(v); i++ {
				if !strings.HasPrefix(v[i:], "[[") {
					continue
				}
				if l, n := wikilink(v[i:]); n > 0 {
					l.Key, l.Original = key, v[i:i+n]
					if i > 0 && v[i-1] == '!' {
						l.Embed, l.Original = true, v[i-1:i+n]
					}
					links = append(links, l)
					i += n - 1
				}
			}
		case []any:
			for i, item := range v {
				walk(fmt.Sprintf("%s.%d", key, i), item)
			}
		case map[string]any:
			for _, k := range sortedKeys(v) {
				walk(key+"."+k, v[k])
			}
		}
	}
	for _, k := range sortedKeys(fields) {
		walk(k, fields[k])
	}
	return links
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
