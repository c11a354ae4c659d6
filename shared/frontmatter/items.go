package frontmatter

import (
	"strings"

	"github.com/goccy/go-yaml/lexer"
	"github.com/goccy/go-yaml/token"
)

// fillEmptyItems writes "null" after the dash of every empty item of a block sequence, so that
// goccy/go-yaml reads what YAML 1.2 (and Obsidian) read.
//
// YAML reads an empty item as null. goccy/go-yaml v1.19.2 does too, except for the last item
// of a list written at its key's own indentation, which is how templates write an empty list:
//
//	tags:
//	-
//	publish: true
//
// There it takes the next key for the item's value and reads {tags: [{publish: true}]}, so the
// note loses both its tags and publish. The fix upstream came after v1.19.2 and is not in a
// release yet; once it is, this function can go.
//
// goccy's own scanner says which dashes start an item, so a "-" line inside a block scalar
// ("|", ">") or a quoted string, which is text, is never touched. Only " null" is ever added,
// right after a dash, so the lines of any error stay where they were. Split runs this and the
// other edits of prepare together; fillEmptyItems is this one alone.
func fillEmptyItems(raw string) string {
	tokens := lexer.Tokenize(raw)
	for _, tk := range tokens {
		if tk.Type == token.InvalidType {
			return raw // the parser will say what is wrong; leave the text as written
		}
	}
	lines := strings.SplitAfter(raw, "\n")
	return apply(lines, emptyItems(lines, tokens))
}

// emptyItems returns the edits that write "null" into each empty item, in the order of the
// text.
func emptyItems(lines []string, tokens token.Tokens) []edit {
	var edits []edit
	for i, tk := range tokens {
		if tk.Type != token.SequenceEntryType {
			continue
		}
		if at, ok := emptyItem(lines, tk.Position, tokens[i+1:]); ok {
			edits = append(edits, edit{line: tk.Position.Line - 1, at: at + 1, insert: " null"})
		}
	}
	return edits
}

// emptyItem reports whether the dash the scanner found at pos starts an empty item, and the
// dash's offset in its line. An item is empty when nothing but a comment follows the dash on
// its line, and the next line that holds more than a comment
//
//   - is indented less than the dash: the list has ended;
//   - or starts at the dash's own column with another item or a key.
//
// A line indented deeper holds the item's value ("-\n  a: 1"). So does anything else at the
// dash's column, such as "-\n>": YAML wants it indented, but both goccy and yaml.v3 take it for
// the value, and it is not ours to change.
func emptyItem(lines []string, pos *token.Position, after token.Tokens) (at int, ok bool) {
	n := pos.Line - 1 // the scanner counts lines and columns from 1, and columns in characters
	if n < 0 || n >= len(lines) {
		return 0, false
	}
	line := lines[n]
	// Before an item's dash come only spaces and the dashes of outer items ("- -"), all one
	// byte each, so the column is the dash's offset. Anything else there (a scanner that
	// skipped something) means the text is better left alone.
	at = pos.Column - 1
	if at < 0 || at >= len(line) || line[at] != '-' || strings.Trim(line[:at], " -") != "" {
		return 0, false
	}
	if rest := strings.TrimLeft(line[at+1:], " \t\r\n"); rest != "" && rest[0] != '#' {
		return 0, false // the item's value is on its line
	}
	for k := n + 1; k < len(lines); k++ {
		text := strings.TrimSpace(lines[k])
		if text == "" || text[0] == '#' {
			continue
		}
		switch indent := len(lines[k]) - len(strings.TrimLeft(lines[k], " ")); {
		case indent < at:
			return at, true
		case indent > at:
			return 0, false
		}
		return at, itemOrKey(after, k+1)
	}
	return at, true // nothing follows
}

// itemOrKey reports whether line (counted from 1) starts with a dash or a key, as the scanner
// read it: its first token is a dash, the "?" of an explicit key ("? k", YAML 1.2.2 section
// 8.2.2), or is followed by the ":" of a key.
func itemOrKey(tokens token.Tokens, line int) bool {
	for i, tk := range tokens {
		switch {
		case tk.Position.Line < line:
			continue
		case tk.Position.Line > line:
			return false
		case tk.Type == token.SequenceEntryType || tk.Type == token.MappingKeyType:
			return true
		}
		return i+1 < len(tokens) && tokens[i+1].Type == token.MappingValueType && tokens[i+1].Position.Line == line
	}
	return false
}
