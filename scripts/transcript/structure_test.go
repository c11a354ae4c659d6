package transcript

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"testing"
)

// maxRunLines bounds each step's run function, from its signature to its closing brace. run is
// where a reader starts: its phases (configuration, resources, serving, draining) must fit on
// a screen, the details living in the functions it calls.
const maxRunLines = 60

// TestRunFitsOnAScreen measures run in each step's main.go.
func TestRunFitsOnAScreen(t *testing.T) {
	_, steps := stepsUnderTest(t)
	for _, step := range steps {
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, filepath.Join(step.Dir, "main.go"), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, decl := range file.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == "run" {
				found = true
				lines := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
				if lines > maxRunLines {
					t.Errorf("%s: run is %d lines long; keep it to %d, and move the details into the functions it calls", step.Name, lines, maxRunLines)
				}
			}
		}
		if !found {
			t.Errorf("%s: main.go has no func run", step.Name)
		}
	}
}

// TestNoTutorialWordsInTheProgram reads each step's built program, the one `make install`
// installs included, for the tutorial's own words: a user who runs the server, often started
// by a client, has no make and no Makefile variables, only the program's flags and
// environment variables.
func TestNoTutorialWordsInTheProgram(t *testing.T) {
	root, steps := stepsUnderTest(t)
	for _, step := range steps {
		program, err := os.ReadFile(binary(t, root, step))
		if err != nil {
			t.Fatal(err)
		}
		for _, words := range []string{"make step", "ADDR="} {
			if i := bytes.Index(program, []byte(words)); i >= 0 {
				context := program[max(0, i-60):min(len(program), i+60)]
				t.Errorf("%s: the program holds %q, in %q", step.Name, words, context)
			}
		}
	}
}
