package testvaults

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// project makes a project folder (one that holds go.work) beside a shared/vaults folder holding
// the named vaults, and works inside the project. A vault named with a trailing "/" is an empty
// folder.
func project(t *testing.T, vaults ...string) (vaultsDir string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "vaultmcp"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "vaultmcp", "go.work"), []byte("go 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	vaultsDir = filepath.Join(dir, "shared", "vaults")
	if err := os.MkdirAll(vaultsDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range vaults {
		empty := strings.HasSuffix(name, "/")
		path := filepath.Join(vaultsDir, strings.TrimSuffix(name, "/"))
		if err := os.MkdirAll(path, 0o755); err != nil {
			t.Fatal(err)
		}
		if !empty {
			if err := os.WriteFile(filepath.Join(path, "LICENSE"), []byte("made up"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Chdir(filepath.Join(dir, "vaultmcp"))
	return vaultsDir
}

// An empty ../shared/vaults, as a failed fetch once left, or empty vault folders in it, are no
// vaults: the tests that need them must skip, not pass over nothing.
func TestEmptyIsAbsent(t *testing.T) {
	project(t)
	if dir, err := Root(); err == nil {
		t.Errorf("Root() = %q with an empty ../shared/vaults; want an error", dir)
	}
	project(t, "data-engineering-wiki/", "obsidian-garden/", "tasks-test-data/")
	if dir, err := Root(); err == nil || !strings.Contains(err.Error(), "is empty") {
		t.Errorf("Root() = %q, %v with empty vault folders; want an error saying one is empty", dir, err)
	}
	if err := Present(filepath.Join("..", "shared", "vaults", "obsidian-garden")); err == nil {
		t.Error("Present accepts an empty folder")
	}
}

func TestAllPresent(t *testing.T) {
	want := project(t, "data-engineering-wiki", "obsidian-garden", "tasks-test-data")
	dir, err := Root()
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := filepath.EvalSymlinks(dir); got != mustEval(t, want) {
		t.Errorf("Root() = %q, want %q", dir, want)
	}
	// One vault missing: the tests that walk them all skip.
	project(t, "data-engineering-wiki", "obsidian-garden")
	if _, err := Root(); err == nil {
		t.Error("Root() succeeds without tasks-test-data")
	}
}

func mustEval(t *testing.T, path string) string {
	t.Helper()
	p, err := filepath.EvalSymlinks(path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
