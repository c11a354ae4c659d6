package frontmatter

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"

	"vaultmcp/shared/testvaults"
	// A second reading of YAML 1.2, independent of goccy/go-yaml, for the tests only: the
	// server itself parses with goccy alone.
	yamlv3 "gopkg.in/yaml.v3"
)

// emptyItemShapes are the ways an empty list item is written, in templates and by hand, and
// the neighbours the fix must leave alone. want is the YAML 1.2 reading, as JSON.
var emptyItemShapes = []struct {
	name, yaml, want string
}{
	{"a template's empty tags", "tags:\n- \npublish: true", `{"tags":[null],"publish":true}`},
	{"no space after the dash", "tags:\n-\npublish: true", `{"tags":[null],"publish":true}`},
	{"several empty items", "tags:\n-\n-\npublish: true", `{"tags":[null,null],"publish":true}`},
	{"an empty item between values", "tags:\n- a\n-\n- b\npublish: true", `{"tags":["a",null,"b"],"publish":true}`},
	{"tags and aliases both empty", "tags:\n- \naliases:\n- \ntitle: Untitled", `{"tags":[null],"aliases":[null],"title":"Untitled"}`},
	{"nested under a deeper key", "note:\n  tags:\n  -\n  publish: true\ndone: false", `{"note":{"tags":[null],"publish":true},"done":false}`},
	{"in a list of maps", "tasks:\n- tags:\n  -\n  done: true", `{"tasks":[{"tags":[null],"done":true}]}`},
	{"a list inside a list", "grid:\n- -\nsize: 1", `{"grid":[[null]],"size":1}`},
	{"Windows line ends", "tags:\r\n- \r\npublish: true\r\n", `{"tags":[null],"publish":true}`},
	{"a comment after the dash", "tags:\n- # none yet\npublish: true", `{"tags":[null],"publish":true}`},
	{"a comment line after the item", "tags:\n-\n    # none yet\npublish: true", `{"tags":[null],"publish":true}`},
	{"the last line", "publish: true\ntags:\n-", `{"tags":[null],"publish":true}`},
	{"already indented, already right", "tags:\n  -\n  -\npublish: true", `{"tags":[null,null],"publish":true}`},

	// Left alone: a dash whose value is on the lines below, and dashes that are text.
	{"a dash followed by an indented map", "tags:\n-\n  a: 1\npublish: true", `{"tags":[{"a":1}],"publish":true}`},
	{"a blank line before the indented map", "tags:\n-\n\n  a: 1", `{"tags":[{"a":1}]}`},
	{"a dash followed by an indented list", "tags:\n-\n  - a", `{"tags":[["a"]]}`},
	{"dash lines in a literal block", "text: |\n  -\n  x\n-: 1", `{"text":"-\nx\n","-":1}`},
	{"dash lines in a folded block", "text: >-\n  -\n\n  -\nb: 1", `{"text":"-\n-","b":1}`},
	{"an indentation indicator", "text: |2\n   -\n  -\nb: 1", `{"text":" -\n-\n","b":1}`},
	{"a block scalar in a list", "list:\n- |\n  -\n-\nb: 1", `{"list":["-\n",null],"b":1}`},
	{"a double-quoted string over lines", "text: \"a\n  -\n  b\"\nc: 1", `{"text":"a - b","c":1}`},
	{"a single-quoted string over lines", "text: 'a\n  -\n  b'\nc: 1", `{"text":"a - b","c":1}`},
	{"dashes in values", "dash: \"-\"\nflow: [-1, -x]", `{"dash":"-","flow":[-1,"-x"]}`},

	// An explicit key ("? k", YAML 1.2.2 section 8.2.2) after an empty item is a key of the
	// map, as "k:" would be, not the item's value.
	{"an explicit key after an empty item", "tags:\n-\n? k", `{"tags":[null],"k":null}`},
	{"an explicit key with its value", "tags:\n- \n? k\n: v\npublish: true", `{"tags":[null],"k":"v","publish":true}`},
}

// TestEmptyListItems reads each shape three ways: through Split, as the YAML 1.2 answer written
// in the table, and with readYAML12. All three must agree.
func TestEmptyListItems(t *testing.T) {
	for _, tc := range emptyItemShapes {
		t.Run(tc.name, func(t *testing.T) { readsAsYAML12(t, tc.yaml, tc.want) })
	}
}

// readsAsYAML12 fails the test unless Split reads the properties yaml as want, a JSON object,
// and readYAML12 reads them the same.
func readsAsYAML12(t *testing.T, yaml, want string) {
	t.Helper()
	fm, _, _ := Split("---\n" + yaml + "\n---\n")
	if fm.Err != nil {
		t.Fatalf("unexpected error: %v", fm.Err)
	}
	got := canonical(t, fm.Fields)
	if want := canonical(t, json.RawMessage(want)); got != want {
		t.Errorf("Split read %s\nwant %s", got, want)
	}
	ref, err := readYAML12(yaml + "\n")
	if err != nil {
		t.Fatalf("readYAML12: %v", err)
	}
	budget := maxValues // infinities become text, as in Split
	if ref, err = jsonable(ref, &budget, MaxDepth); err != nil {
		t.Fatal(err)
	}
	if ref := canonical(t, ref); got != ref {
		t.Errorf("Split read %s\nreadYAML12 reads %s", got, ref)
	}
}

// TestRealVaultsReadAsYAML reads the frontmatter of every note in the real vaults with Split
// and with readYAML12: the properties must be the same. yaml.v3, under readYAML12, refuses the
// seven notes whose aliases are questions in a flow list ("[What is data engineering?]"),
// which YAML 1.2 allows and goccy reads as meant; TestRealVaultFrontmatter checks those.
func TestRealVaultsReadAsYAML(t *testing.T) {
	for _, name := range []string{"data-engineering-wiki", "obsidian-garden", "tasks-test-data"} {
		t.Run(name, func(t *testing.T) {
			compared := 0
			err := filepath.WalkDir(testvaults.Dir(t, name), func(path string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() || filepath.Ext(path) != ".md" {
					return err
				}
				content, err := os.ReadFile(path)
				if err != nil {
					return err
				}
				fm, _, _ := Split(string(content))
				if !fm.Present {
					return nil
				}
				second, err := readYAML12(fm.Raw)
				if err != nil {
					return nil
				}
				compared++
				if second == nil {
					second = map[string]any{} // an empty block
				}
				budget := maxValues // infinities become text, as in Split
				if second, err = jsonable(second, &budget, MaxDepth); err != nil {
					t.Errorf("%s: %v", path, err)
					return nil
				}
				if got, want := canonical(t, fm.Fields), canonical(t, second); got != want {
					t.Errorf("%s:\nSplit reads      %s\nreadYAML12 reads %s", path, got, want)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if compared == 0 {
				t.Fatal("no frontmatter compared")
			}
			t.Logf("%d notes' frontmatter compared", compared)
		})
	}
}

// canonical encodes v as JSON with its keys sorted and its numbers as JSON has them.
func canonical(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var back any
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(back)
	return string(b)
}

// FuzzFillEmptyItems holds the pre-pass to yaml.v3's reading of the same text. Whatever the
// input:
//
//   - it only ever adds " null" right after a dash;
//
// and wherever yaml.v3 reads the text:
//
//   - goccy/go-yaml reads the filled text if it read the text as written;
//   - if yaml.v3 finds no empty list item, the pre-pass changes nothing, so goccy reads the
//     text exactly as it did without it;
//   - yaml.v3 reads the filled text the same: in YAML 1.2 an empty item is null, so writing
//     "null" into it must change nothing.
//
// Run it with
//
//	go test -run='^$' -fuzz=FuzzFillEmptyItems -fuzztime=2000000x ./shared/frontmatter
func FuzzFillEmptyItems(f *testing.F) {
	for _, tc := range emptyItemShapes {
		f.Add(tc.yaml)
	}
	for _, seed := range []string{
		"a: - \n", "- \n- x\n", "a:\n- &x\nb: *x\n", "a:\n- !!str\nb: 1\n", "? - \n: x\n",
		"a: [-, - ]\n", "a:\n- >\n\n-\n", "a:\n-\n--- \n-\n", "a:\n\t-\n", "a: \"\n-\n\"\n",
		// Found by fuzzing: an anchor named "-", a bare tag, a value at the dash's column.
		"&- ", "- !", "0:\n-\n !", "-\n>", "-\n0:",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		filled := fillEmptyItems(raw)
		if strings.ReplaceAll(filled, "- null", "-") != strings.ReplaceAll(raw, "- null", "-") {
			t.Fatalf("the pre-pass changed more than empty items:\n%q\n%q", raw, filled)
		}
		before, empty, err := readV3(raw)
		if err != nil {
			return // not YAML as yaml.v3 reads it: nothing to hold the pre-pass to
		}
		var v any
		if yaml.Unmarshal([]byte(raw), &v) == nil && yaml.Unmarshal([]byte(filled), &v) != nil {
			t.Fatalf("goccy reads %q, but not the filled %q", raw, filled)
		}
		if !empty && filled != raw {
			t.Fatalf("yaml.v3 finds no empty item in %q, yet the pre-pass wrote %q", raw, filled)
		}
		after, _, err := readV3(filled)
		if err != nil || after != before {
			t.Fatalf("yaml.v3 reads %q as %s\nand the filled %q as %s (%v)", raw, before, filled, after, err)
		}
	})
}

// readV3 reads every document in text with yaml.v3, and says whether any holds an empty list
// item: an implicit null written as nothing at all.
func readV3(text string) (values string, empty bool, err error) {
	dec := yamlv3.NewDecoder(strings.NewReader(text))
	for {
		var doc yamlv3.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return values, empty, nil
		}
		if err != nil {
			return "", false, err
		}
		var v any
		if err := doc.Decode(&v); err != nil {
			return "", false, err
		}
		values += fmt.Sprintf("%#v\n", v) // fmt sorts map keys, and prints NaN as NaN
		empty = empty || hasEmptyItem(&doc)
	}
}

func hasEmptyItem(n *yamlv3.Node) bool {
	for _, c := range n.Content {
		if n.Kind == yamlv3.SequenceNode && c.Kind == yamlv3.ScalarNode && c.Tag == "!!null" && c.Value == "" {
			return true
		}
		if hasEmptyItem(c) {
			return true
		}
	}
	return false
}
