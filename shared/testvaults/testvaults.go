// Package testvaults finds the real vaults that sit beside the project in ../shared/vaults.
//
// Those vaults were written by other people and are what keeps our parser honest, but a
// reader's clone does not have them, so every test that wants one skips when it is absent.
package testvaults

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir returns the absolute path of the named real vault (for example "data-engineering-wiki"),
// or skips the test with a message saying where it looked.
func Dir(tb testing.TB, name string) string {
	tb.Helper()
	root, err := Root()
	if err != nil {
		tb.Skipf("real vaults not available (%v); they live in ../shared/vaults beside the checkout", err)
	}
	dir := filepath.Join(root, name)
	if _, err := os.Stat(dir); err != nil {
		tb.Skipf("real vault %q not available: %v", name, err)
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
