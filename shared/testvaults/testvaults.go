// Package testvaults finds the real vaults that sit beside the project in ../shared/vaults.
//
// Those vaults were written by other people and are what keeps our parser honest, but a
// reader's clone does not have them, so every test that wants one skips when it is absent.
package testvaults

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// sources says where each real vault comes from, and what of it was kept.
var sources = map[string]struct{ repo, commit, what string }{
	"data-engineering-wiki": {"https://github.com/data-engineering-community/data-engineering-wiki",
		"92550c91c9a04cf18a9bfb01294c10713fca4a15", "its Markdown files"},
	"obsidian-garden": {"https://github.com/tanepiper/obsidian-garden",
		"9e1bd7d14d43c5c193b54ff7b24272d2630cdf44", "its Markdown files"},
	"tasks-test-data": {"https://github.com/obsidian-tasks-group/obsidian-tasks",
		"cc0fce3c1326d18e2bdb7020eaf4c52e885da569",
		"its LICENSE as LICENSE.txt, resources/sample_vaults/Tasks-Demo/Test Data as notes/ and tests/Obsidian/__test_data__ as obsidian-metadata/"},
}

// Dir returns the absolute path of the named real vault (for example "data-engineering-wiki"),
// or skips the test with a message saying where it looked and how to fetch the vault.
func Dir(tb testing.TB, name string) string {
	tb.Helper()
	fetch := ""
	if src, ok := sources[name]; ok {
		fetch = fmt.Sprintf("; to run this test, fetch %s at commit %s and put %s in ../shared/vaults/%s, beside the checkout",
			src.repo, src.commit, src.what, name)
	}
	root, err := Root()
	if err != nil {
		tb.Skipf("real vaults not available (%v)%s", err, fetch)
	}
	dir := filepath.Join(root, name)
	if _, err := os.Stat(dir); err != nil {
		tb.Skipf("real vault %q not available (%v)%s", name, err, fetch)
	}
	return dir
}

// Root returns the absolute path of ../shared/vaults, found by walking up from the working
// directory to the folder that holds go.work (the project root).
func Root() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			vaults := filepath.Join(dir, "..", "shared", "vaults")
			if _, err := os.Stat(vaults); err != nil {
				return "", err
			}
			return filepath.Abs(vaults)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", os.ErrNotExist
		}
		dir = parent
	}
}
