package frontmatter

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"testing"

	yamlv3 "gopkg.in/yaml.v3"
)

// coreShapes are values whose type YAML 1.2's core schema decides differently from YAML 1.1,
// and their neighbours. want is the YAML 1.2 reading as JSON, from YAML 1.2.2 section 10.3.2
// (tag resolution of the core schema) unless the case names another section; each was also
// checked with a YAML 1.2 reader that follows the core schema (the npm package "yaml" 2.9.1,
// version "1.2"). readYAML12 reads them too.
var coreShapes = []struct {
	name, yaml, want string
}{
	{"a leading zero is decimal", "zip: 01234", `{"zip":1234}`},
	{"012 is twelve", "a: 012\nb: -012\nc: 00", `{"a":12,"b":-12,"c":0}`},
	{"8 and 9 after a zero", "a: 08\nb: 09.5", `{"a":8,"b":9.5}`},
	{"0o is octal", "a: 0o14", `{"a":12}`},
	{"0x is hexadecimal, lower-case x only", "a: 0x1F\nb: 0X1F", `{"a":31,"b":"0X1F"}`},
	{"no sign on octal or hexadecimal", "a: +0x1F\nb: -0o14", `{"a":"+0x1F","b":"-0o14"}`},
	{"a sign on decimals", "a: +12\nb: -0", `{"a":12,"b":0}`},
	{"underscores make text", "a: 1_000\nb: 0_12\nc: 0xff_ff\nd: 1_0.5", `{"a":"1_000","b":"0_12","c":"0xff_ff","d":"1_0.5"}`},
	{"no binary", "a: 0b101", `{"a":"0b101"}`},
	{"no sexagesimal", "a: 1:20", `{"a":"1:20"}`},
	{"an exponent without a dot", "a: 1e3\nb: 1.5e-3\nc: -.5e3", `{"a":1000,"b":0.0015,"c":-500}`},
	{"a dot at either end", "a: .5\nb: 1.\nc: 012.5", `{"a":0.5,"b":1,"c":12.5}`},
	{"infinity and not a number", "a: +.inf\nb: .Inf\nc: -.INF\nd: .NaN", `{"a":"+Inf","b":"+Inf","c":"-Inf","d":"NaN"}`},
	{"too large for a float", "a: 1e400", `{"a":"+Inf"}`},
	{"too large for 64 bits", "a: 0o777777777777777777777777", `{"a":4.722366482869645e+21}`},
	{"the largest unsigned 64-bit integer", "a: 18446744073709551615", `{"a":18446744073709551615}`},
	{"null and booleans in three spellings", "a: Null\nb: ~\nc: TRUE\nd: False", `{"a":null,"b":null,"c":true,"d":false}`},
	{"YAML 1.1's yes and on are text", "a: yes\nb: on\nc: N", `{"a":"yes","b":"on","c":"N"}`},
	{"in flow collections", "a: [012, 1_000, 1e3]\nb: {c: 012}", `{"a":[12,"1_000",1000],"b":{"c":12}}`},
	{"keys too", "012: a\n1_000: b", `{"12":"a","1_000":"b"}`},
	{"after a key of other letters", "café: 012\né: [012, 'x', 08]", `{"café":12,"é":[12,"x",8]}`},
	{"a comment after", "a: 012 # zip", `{"a":12}`},
	{"quoted, it is text (7.3)", "a: '012'\nb: \"1_000\"", `{"a":"012","b":"1_000"}`},
	{"tagged !!str, it is text (6.9.1)", "a: !!str 012\nb: !!str  1e3", `{"a":"012","b":"1e3"}`},
	{"in a block scalar, it is text (8.1)", "a: |\n  012\n  1_000", `{"a":"012\n1_000\n"}`},
	{"a list of them", "zips:\n  - 01234\n  - 1_000", `{"zips":[1234,"1_000"]}`},
	{"an anchor before", "a: &z 012\nb: *z", `{"a":12,"b":12}`},

	// A no-break space (U+00A0) or an ideographic space (U+3000) is not YAML white space (5.5:
	// only space and tab are), so "-" followed by one is not a list item (8.2.1) but the
	// start of text.
	{"a dash and a no-break space are text", "tags:\n  -\u00a0x", `{"tags":"-\u00a0x"}`},
	{"a dash and an ideographic space are text", "tags:\n  -\u3000x", `{"tags":"-\u3000x"}`},
	{"two such lines are one text", "tags:\n  -\u00a0x\n  -\u00a0y", `{"tags":"-\u00a0x -\u00a0y"}`},
	{"after a key on its line", "k: -\u00a0x", `{"k":"-\u00a0x"}`},
	{"a key on the line below is a key", "tags:\nx: 1", `{"tags":null,"x":1}`},
}

func TestCoreSchema(t *testing.T) {
	for _, tc := range coreShapes {
		t.Run(tc.name, func(t *testing.T) { readsAsYAML12(t, tc.yaml, tc.want) })
	}
}

func TestReadsAsText(t *testing.T) {
	for v, want := range map[string]bool{
		"tomatoes": true, "1_000": true, "0b101": true, "yes": true, "2024-01-15": true,
		"1e3": false, "08": false, "012": false, "0x1F": false, ".inf": false, "true": false, "null": false, "~": false,
	} {
		if got := ReadsAsText(v); got != want {
			t.Errorf("ReadsAsText(%q) = %v, want %v", v, got, want)
		}
	}
}

// YAML 1.2 refuses these, as text at a key's own indentation is neither the key's value nor a
// key (8.2.2): the block does not parse, and Split says why.
func TestCoreSchemaRefuses(t *testing.T) {
	for _, tc := range []struct{ name, yaml, wantErr string }{
		{"a dash and a no-break space under a key", "tags:\n-\u00a0x\npublish: true", "line 3: a dash followed by a no-break or ideographic space starts no list item"},
		{"a dash and an ideographic space under a key", "tags:\n-\u3000x", "line 3: a dash followed by a no-break or ideographic space"},
		{"text under a key", "tags:\nx", `line 3: "x" is neither indented under the key above it nor a "key: value"`},
		{"text under a nested key", "a:\n  b:\n  x", `line 4: "x" is neither indented`},
		{"in a list item", "- a:\n  x", `line 3: "x" is neither indented`},
		{"past a comment", "a: 1\nb:\n  # c\nd", `line 5: "d" is neither indented`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fm, _, _ := Split("---\n" + tc.yaml + "\n---\n")
			if fm.Err == nil || !strings.Contains(fm.Err.Error(), tc.wantErr) {
				t.Errorf("Split: fields %v, error %v; want an error saying %q", fm.Fields, fm.Err, tc.wantErr)
			}
			if _, err := readYAML12(tc.yaml); err == nil {
				t.Errorf("readYAML12 reads %q, which YAML 1.2 refuses", tc.yaml)
			}
		})
	}
}

// readYAML12 is a second reading of YAML 1.2 with its core schema, independent of goccy and of
// prepare: yaml.v3 finds the structure, and each plain scalar is typed by the regular
// expressions of YAML 1.2.2 section 10.3.2, since yaml.v3 reads integers as YAML 1.1 did
// (012 as 10, 1_000 as 1000). Quoted, block and tagged scalars are yaml.v3's.
func readYAML12(text string) (any, error) {
	var doc yamlv3.Node
	if err := yamlv3.Unmarshal([]byte(text), &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	return node12(doc.Content[0])
}

func node12(n *yamlv3.Node) (any, error) {
	switch n.Kind {
	case yamlv3.AliasNode:
		return node12(n.Alias)
	case yamlv3.MappingNode:
		m := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, err := node12(n.Content[i])
			if err != nil {
				return nil, err
			}
			v, err := node12(n.Content[i+1])
			if err != nil {
				return nil, err
			}
			m[fmt.Sprint(k)] = v
		}
		return m, nil
	case yamlv3.SequenceNode:
		list := []any{}
		for _, c := range n.Content {
			v, err := node12(c)
			if err != nil {
				return nil, err
			}
			list = append(list, v)
		}
		return list, nil
	}
	if n.Style != 0 { // quoted, literal, folded or tagged
		var v any
		err := n.Decode(&v)
		return v, err
	}
	return core12(n.Value), nil
}

// core12 types a plain scalar as the core schema's table does.
func core12(v string) any {
	match := func(re string) bool { return regexp.MustCompile("^(?:" + re + ")$").MatchString(v) }
	integer := func(digits string, base int) any {
		n, _ := new(big.Int).SetString(digits, base)
		if n.IsInt64() {
			return n.Int64()
		}
		if n.IsUint64() {
			return n.Uint64()
		}
		f, _ := new(big.Float).SetInt(n).Float64()
		return f
	}
	switch {
	case v == "" || match(`null|Null|NULL|~`):
		return nil
	case match(`true|True|TRUE`):
		return true
	case match(`false|False|FALSE`):
		return false
	case match(`[-+]?[0-9]+`):
		return integer(strings.TrimPrefix(v, "+"), 10)
	case match(`0o[0-7]+`):
		return integer(v[2:], 8)
	case match(`0x[0-9a-fA-F]+`):
		return integer(v[2:], 16)
	case match(`[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`):
		f, _ := strconv.ParseFloat(v, 64)
		return f
	case match(`[-+]?(\.inf|\.Inf|\.INF)`):
		return math.Inf(map[bool]int{true: -1, false: 1}[strings.HasPrefix(v, "-")])
	case match(`\.nan|\.NaN|\.NAN`):
		return math.NaN()
	}
	return v
}

// A carriage return with no line feed after it ends a line in YAML, as in old Mac files. The
// lines prepare edits must be the ones goccy numbers, or an edit lands on the wrong line, or past
// the last (a fuzzed note once made Split panic).
func TestLoneCarriageReturns(t *testing.T) {
	fm, _, _ := Split("---\n\r\r:\n0\n---")
	if fm.Err == nil {
		t.Errorf("Split read %v from a frontmatter of a key without a name and a misplaced value; want an error", fm.Fields)
	}
	fm, _, _ = Split("---\na: 1\rzip: 01234\r\ntags:\r- x\n---\n")
	if fm.Err != nil {
		t.Fatalf("Split: %v", fm.Err)
	}
	if got, _ := json.Marshal(fm.Fields); string(got) != `{"a":1,"tags":["x"],"zip":1234}` {
		t.Errorf("Split read %s; want each line ended by a lone \\r read as a line of its own, 01234 as 1234", got)
	}
}
