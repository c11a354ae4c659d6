package frontmatter

import (
	"cmp"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/goccy/go-yaml/lexer"
	"github.com/goccy/go-yaml/token"
)

// Obsidian's properties are YAML 1.2, and YAML 1.2 reads an untagged, unquoted value by its
// core schema (YAML 1.2.2, section 10.3.2): a value is an integer only when it is written as
// one of
//
//	[-+]?[0-9]+     decimal, so 012 is 12 and a zip code 01234 is 1234
//	0o[0-7]+        octal
//	0x[0-9a-fA-F]+  hexadecimal
//
// a float only as [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?, or .inf, .nan and their
// capitalised spellings, and everything else that is not null or a boolean is text: "1_000",
// "0b101", "+0x1F". goccy/go-yaml v1.19.2 reads some of these as YAML 1.1 did, with a leading
// 0 meaning octal and underscores between digits, and others not at all (1e3 stays text,
// 08 too), and has no option for the core schema. So before goccy reads the text, coreScalars
// rewrites each plain value that it would read otherwise into the form it reads as YAML 1.2
// does: 012 becomes 12, 1_000 becomes '1_000', 1e3 becomes 1000.0.
var (
	coreNull  = regexp.MustCompile(`^(?:null|Null|NULL|~)$`)
	coreTrue  = regexp.MustCompile(`^(?:true|True|TRUE)$`)
	coreFalse = regexp.MustCompile(`^(?:false|False|FALSE)$`)
	coreInt   = regexp.MustCompile(`^[-+]?[0-9]+$`)
	coreOctal = regexp.MustCompile(`^0o[0-7]+$`)
	coreHex   = regexp.MustCompile(`^0x[0-9a-fA-F]+$`)
	coreFloat = regexp.MustCompile(`^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$`)
	coreInf   = regexp.MustCompile(`^[-+]?\.(?:inf|Inf|INF)$`)
	coreNaN   = regexp.MustCompile(`^\.(?:nan|NaN|NAN)$`)
)

// scalar is a plain value as one YAML reader types it: its kind, and for numbers the value.
type scalar struct {
	kind string // "null", "bool", "int", "float" or "string"
	text string // the value in a form goccy reads as this kind: "12", "true", "'1_000'"
}

// core returns how YAML 1.2's core schema reads the plain value v.
func core(v string) scalar {
	switch {
	case coreNull.MatchString(v):
		return scalar{"null", "null"}
	case coreTrue.MatchString(v):
		return scalar{"bool", "true"}
	case coreFalse.MatchString(v):
		return scalar{"bool", "false"}
	case coreInt.MatchString(v):
		return integer(v, 10)
	case coreOctal.MatchString(v):
		return integer(v[2:], 8)
	case coreHex.MatchString(v):
		return integer(v[2:], 16)
	case coreInf.MatchString(v):
		return scalar{"float", strings.TrimPrefix(strings.ToLower(v), "+")}
	case coreNaN.MatchString(v):
		return scalar{"float", ".nan"}
	case coreFloat.MatchString(v):
		f, _ := strconv.ParseFloat(v, 64) // a value out of range is ±Inf, as in YAML 1.2
		return float(f)
	}
	return scalar{"string", quote(v)}
}

// ReadsAsText reports whether v, written as a plain value (no quotes, no tag), reads back as
// the text v, as YAML 1.2 reads it: "tomatoes" does, "1e3" and "012" are numbers, "true" a
// boolean. A writer quotes what does not.
func ReadsAsText(v string) bool { return core(v).kind == "string" }

// integer is the integer written with digits in base, as decimal text. One too large for 64
// bits becomes a float, as JSON readers take it.
func integer(digits string, base int) scalar {
	n, _ := new(big.Int).SetString(digits, base) // the regular expression admitted only digits
	if !n.IsInt64() && !n.IsUint64() {
		f, _ := new(big.Float).SetInt(n).Float64()
		return float(f)
	}
	return scalar{"int", n.String()}
}

// float is f in a form goccy reads as a float: it wants a dot, or .inf.
func float(f float64) scalar {
	switch {
	case math.IsInf(f, 1):
		return scalar{"float", ".inf"}
	case math.IsInf(f, -1):
		return scalar{"float", "-.inf"}
	}
	text := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(text, ".") {
		text += ".0"
	}
	return scalar{"float", text}
}

// quote writes v as a single-quoted YAML string.
func quote(v string) string { return "'" + strings.ReplaceAll(v, "'", "''") + "'" }

// goccyReads returns how goccy/go-yaml types the plain value tk.
func goccyReads(tk *token.Token) scalar {
	switch tk.Type {
	case token.NullType, token.ImplicitNullType:
		return scalar{kind: "null"}
	case token.BoolType:
		return scalar{kind: "bool", text: strings.ToLower(tk.Value)}
	case token.InfinityType, token.NanType, token.FloatType:
		return scalar{kind: "float", text: tk.Value}
	case token.IntegerType, token.BinaryIntegerType, token.OctetIntegerType, token.HexIntegerType:
		if n := token.ToNumber(tk.Value); n != nil {
			return scalar{kind: "int", text: fmt.Sprint(n.Value)}
		}
	}
	return scalar{kind: "string"}
}

// plainTypes are the token types of values written without quotes, tag or block indicator.
var plainTypes = map[token.Type]bool{
	token.NullType: true, token.InfinityType: true, token.NanType: true, token.IntegerType: true,
	token.BinaryIntegerType: true, token.OctetIntegerType: true, token.HexIntegerType: true,
	token.FloatType: true, token.StringType: true, token.BoolType: true,
}

// coreScalars returns the edits that make goccy read every plain value, keys included, as
// YAML 1.2's core schema does. A value with a tag other than !!str keeps it, and the text of a
// block scalar ("|", ">") is left alone, as goccy's own scanner says which is which.
func coreScalars(lines []string, tokens token.Tokens) []edit {
	var edits []edit
	for i, tk := range tokens {
		if !plainTypes[tk.Type] {
			continue
		}
		want := core(tk.Value)
		if i > 0 {
			switch prev := tokens[i-1]; {
			case prev.Type == token.LiteralType || prev.Type == token.FoldedType:
				continue // the text of a block scalar
			case prev.Type == token.TagType && prev.Value == "!!str":
				// YAML 1.2 keeps the text as written; goccy reads "!!str 012" as "10".
				want = scalar{"string", quote(tk.Value)}
			case prev.Type == token.TagType:
				continue // another tag decides the type itself
			}
		}
		if got := goccyReads(tk); got.kind == want.kind && (got.kind != "int" || got.text == want.text) {
			continue
		}
		if at, ok := locate(lines, tk); ok {
			edits = append(edits, edit{line: tk.Position.Line - 1, at: at, cut: len(tk.Value), insert: want.text})
		}
	}
	return edits
}

// locate returns the byte offset of token tk in its line, if the line holds its text there.
// The scanner counts columns in characters, and one too few after a tag or a tab
// ("a: !!str 012"), so the text may start a byte or two later.
func locate(lines []string, tk *token.Token) (int, bool) {
	n := tk.Position.Line - 1
	if n < 0 || n >= len(lines) || tk.Value == "" {
		return 0, false
	}
	line, at := lines[n], 0
	for range tk.Position.Column - 1 {
		if at >= len(line) {
			return 0, false
		}
		_, size := utf8.DecodeRuneInString(line[at:])
		at += size
	}
	for skip := 0; skip <= 2 && at+skip <= len(line); skip++ {
		if strings.HasPrefix(line[at+skip:], tk.Value) && (skip == 0 || line[at+skip-1] == ' ' || line[at+skip-1] == '\t') {
			return at + skip, true
		}
	}
	return 0, false
}

// edit replaces cut bytes at offset at of line (counted from 0) with insert. A list of edits
// is sorted by line and offset.
type edit struct {
	line, at, cut int
	insert        string
}

// apply makes the edits, which must not overlap, to lines, joined again into one text. They
// are applied from the last, so each offset still points where it did in the text as read.
func apply(lines []string, edits []edit) string {
	if len(edits) == 0 {
		return strings.Join(lines, "")
	}
	lines = append([]string(nil), lines...)
	for i := len(edits) - 1; i >= 0; i-- {
		e := edits[i]
		l := lines[e.line]
		lines[e.line] = l[:e.at] + e.insert + l[e.at+e.cut:]
	}
	return strings.Join(lines, "")
}

// misplacedValue returns an error for a value that goccy takes for a key's value but YAML 1.2
// does not: a plain value on a line of its own, no further indented than its key, as in
//
//	tags:
//	-\u00a0a
//
// where the dash is followed by a no-break space. YAML separates with spaces and tabs only, so
// "-\u00a0a" is not a list item but text; text at the key's own indentation is no value of the
// key, and not a key either, as no colon follows. goccy reads {tags: "- a"}; YAML 1.2 refuses
// the block, and so does Split, saying why.
func misplacedValue(lines []string, tokens token.Tokens) error {
	flow := 0
	for i, tk := range tokens {
		switch tk.Type {
		case token.SequenceStartType, token.MappingStartType:
			flow++
		case token.SequenceEndType, token.MappingEndType:
			flow--
		}
		if tk.Type != token.MappingValueType || flow > 0 {
			continue
		}
		value := nextToken(tokens, i)
		if value < 0 || !plainTypes[tokens[value].Type] && tokens[value].Type != token.SingleQuoteType && tokens[value].Type != token.DoubleQuoteType {
			continue
		}
		v := tokens[value]
		if v.Position.Line <= tk.Position.Line {
			continue // on the key's line
		}
		if after := nextToken(tokens, value); after >= 0 && tokens[after].Type == token.MappingValueType && tokens[after].Position.Line == v.Position.Line {
			continue // a key of its own: the first key has no value
		}
		if v.Position.Column > indentation(tokens, i) {
			continue
		}
		line := v.Position.Line + 1 // the opening fence is line 1 of the file
		if text := lines[v.Position.Line-1]; strings.Contains(text, "-\u00a0") || strings.Contains(text, "-\u3000") {
			return fmt.Errorf("the frontmatter is not valid YAML: line %d: a dash followed by a no-break or ideographic space starts no list item (YAML wants a space or a tab after it)", line)
		}
		return fmt.Errorf("the frontmatter is not valid YAML: line %d: %q is neither indented under the key above it nor a \"key: value\"", line, v.Value)
	}
	return nil
}

// breakLoneCRs turns each carriage return that no line feed follows into a line feed. YAML
// reads a lone "\r" as a line break, as goccy does when it numbers lines; the lines here are
// split at "\n". Both are one byte and the same break to YAML, so after this both count the same
// lines, and an edit or an error meant for one line lands on it.
func breakLoneCRs(raw string) string {
	if !strings.Contains(raw, "\r") {
		return raw
	}
	b := []byte(raw)
	for i, c := range b {
		if c == '\r' && (i+1 == len(b) || b[i+1] != '\n') {
			b[i] = '\n'
		}
	}
	return string(b)
}

// nextToken returns the index of the first token after i that is not a comment, or -1.
func nextToken(tokens token.Tokens, i int) int {
	for j := i + 1; j < len(tokens); j++ {
		if tokens[j].Type != token.CommentType {
			return j
		}
	}
	return -1
}

// indentation returns the column at which the mapping holding the key before tokens[colon]
// starts: that of the first token on the key's line after any list dashes ("- key:").
func indentation(tokens token.Tokens, colon int) int {
	line := tokens[colon].Position.Line
	first := colon
	for first > 0 && tokens[first-1].Position.Line == line {
		first--
	}
	for first < colon && (tokens[first].Type == token.SequenceEntryType || tokens[first].Type == token.MappingKeyType) {
		first++
	}
	return tokens[first].Position.Column
}

// prepare returns raw as goccy/go-yaml must read it to read what YAML 1.2 reads, or the
// reason YAML 1.2 refuses it where goccy would not. See fillEmptyItems, coreScalars and
// misplacedValue. Only values change, on their own lines, so the lines of goccy's errors
// stay where they were.
func prepare(raw string) (string, error) {
	raw = breakLoneCRs(raw)
	tokens := lexer.Tokenize(raw)
	for _, tk := range tokens {
		if tk.Type == token.InvalidType {
			return raw, nil // the parser will say what is wrong; leave the text as written
		}
	}
	lines := strings.SplitAfter(raw, "\n")
	if err := misplacedValue(lines, tokens); err != nil {
		return "", err
	}
	edits := append(emptyItems(lines, tokens), coreScalars(lines, tokens)...)
	slices.SortFunc(edits, func(a, b edit) int { return cmp.Or(cmp.Compare(a.line, b.line), cmp.Compare(a.at, b.at)) })
	return apply(lines, edits), nil
}
