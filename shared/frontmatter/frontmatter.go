// Package frontmatter splits an Obsidian note into its YAML frontmatter and its body.
//
// Frontmatter is the block of YAML that a note may open with, between two lines of "---".
// Obsidian shows it as the note's properties. Real vaults hold frontmatter that is not valid
// YAML (template placeholders such as "created: {{date}}", hand edits), so a block that does
// not parse is reported, never fatal: the body is still the note.
package frontmatter

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml"
)

// MaxSize is the largest frontmatter, in bytes, that is handed to the YAML parser. The parser
// is super-linear on deeply nested input: 16 KB of "[" parses in well under a second, 64 KB
// takes several. Real frontmatter is far smaller (under 1 KB in every test vault),
// so the bound costs nothing and keeps one hostile note from stalling the server.
const MaxSize = 16 << 10

// maxValues bounds how many values a parsed block may hold. Every value takes at least a byte
// or two of YAML, so MaxSize bytes cannot hold this many unless YAML aliases repeat them: a
// few hundred bytes of nested aliases ("billion laughs") describe billions of values.
const maxValues = MaxSize

// MaxDepth bounds how deeply lists and maps may nest in a block, the properties themselves
// being the first level. Real properties are shallow: the deepest in the test vaults, and in
// the notes Obsidian's own tests use, is five levels, and Obsidian's editor shows no more than
// a list under a key. But 16 KiB of "[" nest thousands deep, and SQLite, where the index keeps
// the properties as JSON, refuses JSON nested over 1,000 levels: such a block would parse, then
// keep its whole note out of the index. 32 levels is far more than any note uses and far
// below what SQLite refuses.
const MaxDepth = 32

// Frontmatter is what a note's opening block holds.
type Frontmatter struct {
	Present bool           // the note opens with a "---" line closed by another "---" line
	Raw     string         // the YAML text between the two fences, as written
	Fields  map[string]any // the parsed properties; nil when absent or when they did not parse
	Err     error          // why a present block did not parse; the body is good regardless
}

// Split separates content into its frontmatter and its body. bodyLine is the 1-based line of
// the file on which the body starts, so positions found in the body can be reported as lines
// of the file.
//
// Only a first line of exactly "---" opens frontmatter ("---js" and "--- x" are body text),
// and only a later "---" line closes it; trailing spaces and a CR (Windows line ends) are
// allowed on both. YAML (and pandoc) also end a document with "...", but Obsidian only with
// "---", and so do we. Without a closing fence the whole note is body, as in Obsidian.
func Split(content string) (fm Frontmatter, body string, bodyLine int) {
	// A byte order mark is invisible in an editor; the fence is still the first line.
	content = strings.TrimPrefix(content, "\ufeff")

	first, rest, ok := strings.Cut(content, "\n")
	if !ok || !isFence(first) {
		return Frontmatter{}, content, 1
	}
	for remaining := rest; ; {
		text, after, more := strings.Cut(remaining, "\n")
		if isFence(text) {
			raw := rest[:len(rest)-len(remaining)]
			return parse(raw), after, strings.Count(content[:len(content)-len(after)], "\n") + 1
		}
		if !more {
			return Frontmatter{}, content, 1
		}
		remaining = after
	}
}

func isFence(line string) bool {
	return strings.TrimRight(line, " \t\r") == "---"
}

// parse turns the text between the fences into Fields, or explains in Err why it could not.
func parse(raw string) Frontmatter {
	fm := Frontmatter{Present: true, Raw: raw}
	if len(raw) > MaxSize {
		fm.Err = fmt.Errorf("the frontmatter is %d bytes, more than the %d bytes that are parsed", len(raw), MaxSize)
		return fm
	}

	text, err := prepare(raw)
	if err != nil {
		fm.Err = err
		return fm
	}
	var doc any
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		fm.Err = syntaxError(err)
		return fm
	}
	switch doc.(type) {
	case nil: // an empty block, or one holding only comments
		fm.Fields = map[string]any{}
		return fm
	case map[string]any:
	default:
		fm.Err = errors.New("the frontmatter is not a set of \"key: value\" properties")
		return fm
	}

	budget := maxValues
	fields, err := jsonable(doc, &budget, MaxDepth)
	if err != nil {
		fm.Err = err
		return fm
	}
	fm.Fields = fields.(map[string]any)
	return fm
}

// syntaxError rewords the parser's error with a line of the file (the opening fence is line 1,
// so the first line of YAML is line 2), which is where the user will look.
func syntaxError(err error) error {
	var yerr yaml.Error
	if errors.As(err, &yerr) && yerr.GetToken() != nil {
		return fmt.Errorf("the frontmatter is not valid YAML: line %d: %s",
			yerr.GetToken().Position.Line+1, yerr.GetMessage())
	}
	return fmt.Errorf("the frontmatter is not valid YAML: %w", err)
}

var errTooDeep = fmt.Errorf("the frontmatter nests lists and maps more than %d levels deep", MaxDepth)

// jsonable copies a decoded YAML value into one that json.Marshal accepts, since tools return
// properties as JSON. The parser already gives strings for map keys and for dates written
// plainly (Obsidian shows them as text too); what remains is a date tagged !!timestamp, which
// becomes text again, and .inf or .nan, which JSON has no number for. budget is decremented
// for every value visited, so aliases cannot make the copy explode, and levels is how many
// more levels of lists and maps may follow.
func jsonable(v any, budget *int, levels int) (any, error) {
	if *budget--; *budget < 0 {
		return nil, fmt.Errorf("the frontmatter expands to more than %d values (YAML aliases repeated too often)", maxValues)
	}
	switch v := v.(type) {
	case map[string]any:
		if levels == 0 {
			return nil, errTooDeep
		}
		out := make(map[string]any, len(v))
		for k, e := range v {
			x, err := jsonable(e, budget, levels-1)
			if err != nil {
				return nil, err
			}
			out[k] = x
		}
		return out, nil
	case []any:
		if levels == 0 {
			return nil, errTooDeep
		}
		out := make([]any, len(v))
		for i, e := range v {
			x, err := jsonable(e, budget, levels-1)
			if err != nil {
				return nil, err
			}
			out[i] = x
		}
		return out, nil
	case time.Time:
		if v.Equal(v.Truncate(24 * time.Hour)) {
			return v.Format(time.DateOnly), nil
		}
		return v.Format(time.RFC3339Nano), nil
	case float64:
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return strconv.FormatFloat(v, 'g', -1, 64), nil
		}
	}
	return v, nil
}
