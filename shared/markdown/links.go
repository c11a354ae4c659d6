package markdown

import (
	"fmt"
	"html"
	"net/url"
	"regexp"
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
	Original string // the source text, e.g. "![[a#h|shown]]"
}

// MaxLinks and MaxTags bound what Parse keeps of one note; the rest is not listed. Real notes
// have dozens of links, and a hub a few thousand; without a bound, an 8 MiB note of "[[a]]"
// made 1.4 million, 170 MB of them, and one of "#a " 2.8 million tags.
const (
	MaxLinks = 10_000
	MaxTags  = 10_000
)

// maxLink bounds how far a link's end is looked for. Links are short; without a bound, a line
// of many '[' would be searched from each of them, in time growing with the square of its length.
const maxLink = 1 << 10

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
	if strings.Contains(inner, "\n") {
		return Link{}, 0 // a wikilink is written on one line
	}
	if i := strings.IndexByte(inner[1:], '|'); i >= 0 {
		inner, l.Display = strings.TrimSuffix(inner[:i+1], `\`), inner[i+2:]
	}
	l.Target, l.Heading, l.Block = splitSubpath(inner)
	return l, 2 + end + 2
}

// linkTail reads what follows the "]" of a Markdown link, as CommonMark reads an inline link
// (section 6.3): "(", a destination, an optional title, ")", with spaces, tabs and up to one
// line end between them. The destination is in angle brackets ("<My Note.md>"), where it may
// hold spaces, or is written without spaces, with balanced parentheses ("a(1).md"); a
// backslash escapes a character in either. So "(My Note.md)" is no link: "My" is followed by
// neither a title nor ")". t starts with "("; n is how many bytes of it the link takes.
func linkTail(t string) (dest string, n int, ok bool) {
	t = t[:min(len(t), maxLink)]
	i := skipSpace(t, 1)
	if i < len(t) && t[i] == '<' {
		j := i + 1
		for ; j < len(t) && t[j] != '>'; j++ {
			switch {
			case t[j] == '\\' && j+1 < len(t) && isASCIIPunct(t[j+1]):
				j++
			case t[j] == '<' || t[j] == '\n':
				return "", 0, false
			}
		}
		if j == len(t) {
			return "", 0, false
		}
		dest, i = t[i+1:j], j+1
	} else {
		j, depth := i, 0
	destination:
		for ; j < len(t); j++ {
			switch c := t[j]; {
			case c == '\\' && j+1 < len(t) && isASCIIPunct(t[j+1]):
				j++
			case c == '(':
				if depth++; depth > 32 {
					return "", 0, false
				}
			case c == ')':
				if depth == 0 {
					break destination
				}
				depth--
			case c <= ' ' || c == 0x7f:
				break destination
			}
		}
		if depth > 0 {
			return "", 0, false
		}
		dest, i = t[i:j], j
	}
	if j := skipSpace(t, i); j > i && j < len(t) && strings.IndexByte("\"'(", t[j]) >= 0 {
		closer := t[j]
		if closer == '(' {
			closer = ')'
		}
		k := j + 1
		for ; k < len(t) && t[k] != closer; k++ {
			switch {
			case t[k] == '\\' && k+1 < len(t) && isASCIIPunct(t[k+1]):
				k++
			case t[j] == '(' && t[k] == '(':
				return "", 0, false
			}
		}
		if k == len(t) {
			return "", 0, false
		}
		i = k + 1
	}
	i = skipSpace(t, i)
	if i == len(t) || t[i] != ')' {
		return "", 0, false
	}
	return dest, i + 1, true
}

// skipSpace returns where the spaces and tabs at t[i:], with at most one line end among them,
// end.
func skipSpace(t string, i int) int {
	newline := false
	for ; i < len(t); i++ {
		switch t[i] {
		case ' ', '\t':
		case '\n':
			if newline {
				return i
			}
			newline = true
		default:
			return i
		}
	}
	return i
}

// localLink returns the link that a Markdown destination makes, if it names a file in the
// vault: not empty, and not a URL such as "https://…". Backslash escapes and entities
// ("&amp;") are read as CommonMark reads them, then percent-encoding ("My%20Note.md") as
// Obsidian writes it.
func localLink(dest string) (l Link, ok bool) {
	if dest == "" || hasScheme(dest) {
		return Link{}, false
	}
	dest = unescape(dest)
	if decoded, err := url.PathUnescape(dest); err == nil {
		dest = decoded
	}
	l.Target, l.Heading, l.Block = splitSubpath(dest)
	return l, true
}

// entity matches an HTML entity or numeric character reference, which CommonMark reads in a
// link destination (section 2.5).
var entity = regexp.MustCompile(`^&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});`)

// unescape reads the backslash escapes and entities of a destination.
func unescape(s string) string {
	if !strings.ContainsAny(s, "\\&") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s) && isASCIIPunct(s[i+1]):
			i++
			b.WriteByte(s[i])
		case s[i] == '&':
			if m := entity.FindString(s[i:]); m != "" {
				b.WriteString(html.UnescapeString(m))
				i += len(m) - 1
				continue
			}
			b.WriteByte('&')
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
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
