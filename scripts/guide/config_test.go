package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// setting is one flag of a step: its name, the environment variable it falls back to, and
// the first step that has it.
type setting struct {
	flag, env string
	from      int
}

var (
	// A flag defined on the step's FlagSet, as flags.StringVar(&c.addr, "addr", …) or
	// flags.BoolFunc("read-only", …): the first string literal after the call is its name.
	flagDef = regexp.MustCompile(`flags\.(?:String|Bool|Int|Duration|Float64)(?:Var|Func)?\((?:[^"]*?, )?"([a-z][a-z-]*)"`)
	// Every flag's usage names its variable as "env NAME".
	envInUsage = regexp.MustCompile(`\benv ([A-Z][A-Z0-9_]*)`)
	// A row of README's configuration table: | `-flag` | `ENV` … | default | step |
	configRow = regexp.MustCompile("^\\| `-([a-z-]+)` \\| `([A-Z0-9_]+)`[^|]*\\|[^|]*\\| (\\d+) \\|$")
)

// stepSettings reads the flags each step defines from its source, in order of the steps.
func stepSettings(t *testing.T, root string) map[string]setting {
	t.Helper()
	_, steps := rootAndSteps(t)
	found := map[string]setting{}
	for i, s := range steps {
		files, _ := filepath.Glob(filepath.Join(root, "steps", s.Name, "*.go"))
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			src := string(data)
			defs := flagDef.FindAllStringSubmatchIndex(src, -1)
			for j, d := range defs {
				end := len(src)
				if j+1 < len(defs) {
					end = defs[j+1][0]
				}
				name := src[d[2]:d[3]]
				env := envInUsage.FindStringSubmatch(src[d[1]:end])
				if env == nil {
					t.Errorf("steps/%s: the usage of -%s names no environment variable (\"env NAME\")", s.Name, name)
					continue
				}
				if _, seen := found[name]; !seen {
					found[name] = setting{flag: name, env: env[1], from: i + 1}
				}
			}
		}
	}
	return found
}

// TestConfigurationTableListsEveryFlag: README's configuration table is where a reader of
// chapter 10 and a user of vaultmcp look up a setting, so it lists every flag the steps
// define, with its variable and the step it arrives in, and no flag they do not.
func TestConfigurationTableListsEveryFlag(t *testing.T) {
	root, _ := rootAndSteps(t)
	defined := stepSettings(t, root)
	if len(defined) < 10 {
		t.Fatalf("found only %d flags in the steps' source; the pattern in this test no longer matches how they are defined", len(defined))
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, line := range strings.Split(string(readme), "\n") {
		m := configRow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		listed[m[1]] = true
		want, ok := defined[m[1]]
		switch {
		case !ok:
			t.Errorf("README.md's configuration table lists -%s, which no step defines", m[1])
		case m[2] != want.env:
			t.Errorf("README.md's configuration table gives -%s the variable %s; the step reads %s", m[1], m[2], want.env)
		case m[3] != strconv.Itoa(want.from):
			t.Errorf("README.md's configuration table says -%s arrives in step %s; step %d is the first to define it", m[1], m[3], want.from)
		}
	}
	for name, s := range defined {
		if !listed[name] {
			t.Errorf("README.md's configuration table has no row for -%s (%s, from step %d), which `vaultmcp -h` lists", name, s.env, s.from)
		}
	}
}
