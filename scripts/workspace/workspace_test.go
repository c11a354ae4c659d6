// Package workspace checks the promises the repository's layout makes to readers: every step
// builds on its own, step 1 needs nothing but the standard library, and every module agrees
// on one version of each dependency.
package workspace

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"vaultmcp/scripts/transcript"
)

func modules(t *testing.T) (root string, gomods []string) {
	t.Helper()
	root, err := transcript.Root()
	if err != nil {
		t.Fatal(err)
	}
	gomods, err = filepath.Glob(filepath.Join(root, "*", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	steps, _ := filepath.Glob(filepath.Join(root, "steps", "*", "go.mod"))
	return root, append(gomods, steps...)
}

func TestStepOneUsesOnlyTheStandardLibrary(t *testing.T) {
	root, _ := modules(t)
	gomod, err := os.ReadFile(filepath.Join(root, "steps", "01-raw", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(gomod), "require") {
		t.Errorf("steps/01-raw/go.mod must have no require line, got:\n%s", gomod)
	}
}

// TestOneVersionOfEachDependency reads every go.mod and fails if two modules require
// different versions of the same module.
func TestOneVersionOfEachDependency(t *testing.T) {
	_, gomods := modules(t)
	seen := map[string]string{} // module path → "version (in file)"
	for _, f := range gomods {
		for path, version := range requires(t, f) {
			if prev, ok := seen[path]; ok && !strings.HasPrefix(prev, version+" ") {
				t.Errorf("%s: %s %s, but %s", f, path, version, prev)
			}
			seen[path] = version + " (in " + f + ")"
		}
	}
}

func requires(t *testing.T, gomod string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(gomod)
	if err != nil {
		t.Fatal(err)
	}
	reqs := map[string]string{}
	inBlock := false
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(strings.Split(line, "//")[0])
		switch {
		case line == "require (":
			inBlock = true
		case inBlock && line == ")":
			inBlock = false
		case inBlock || strings.HasPrefix(line, "require "):
			fields := strings.Fields(strings.TrimPrefix(line, "require "))
			if len(fields) == 2 {
				reqs[fields[0]] = fields[1]
			}
		}
	}
	return reqs
}

// TestStepsBuildWithoutTheWorkspace builds each step with GOWORK=off, as a reader who copies
// one step folder out of the repository would.
func TestStepsBuildWithoutTheWorkspace(t *testing.T) {
	if testing.Short() {
		t.Skip("builds all ten steps again, outside the workspace; `make check` runs it")
	}
	root, err := transcript.Root()
	if err != nil {
		t.Fatal(err)
	}
	steps, err := transcript.Steps(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range steps {
		t.Run(s.Name, func(t *testing.T) {
			cmd := exec.Command("go", "build", "-o", os.DevNull, ".")
			cmd.Dir = s.Dir
			cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("GOWORK=off go build in %s: %v\n%s", s.Dir, err, out)
			}
		})
	}
}

// TestSQLitePins keeps the one pair of SQLite modules that works together (DESIGN §5): the
// sqlite-vec bindings embed a WebAssembly SQLite that runs only with go-sqlite3 v0.19.0 to
// v0.21.3. A `go get -u` would move go-sqlite3 past that and break every step from 5 on at
// run time, not at build time; this test says so at once.
func TestSQLitePins(t *testing.T) {
	root, _ := modules(t)
	reqs := requires(t, filepath.Join(root, "shared", "go.mod"))
	for path, want := range map[string]string{
		"github.com/ncruces/go-sqlite3":            "v0.21.3",
		"github.com/asg017/sqlite-vec-go-bindings": "v0.1.6",
	} {
		if got := reqs[path]; got != want {
			t.Errorf("shared/go.mod requires %s %s; it must stay at %s, the version its WebAssembly SQLite works with", path, got, want)
		}
	}
}
