// Package testvaults finds the real vaults that sit beside the project in ../shared/vaults.
//
// Those vaults were written by other people and are what keeps our parser honest, but a
// reader's clone does not have them, so every test that wants one skips when it is absent.
package testvaults

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// A Source is the public repository a real vault is taken from, at a pinned commit, and what
// of it is kept. `make vaults` (scripts/fetchvaults) fetches every one into ../shared/vaults.
type Source struct {
	Name   string // the vault's folder under ../shared/vaults
	Repo   string // owner/name on GitHub
	Commit string
	Keep   []Keep
}

// Keep names files to keep: those at or under From whose names end in Ext (any file if Ext is
// empty), written under To instead of From. A From of "" is the whole repository.
type Keep struct{ From, To, Ext string }

// Sources lists the real vaults the tests and benchmarks read. Only the notes and the licence
// (every LICENSE file at the repository's top, always kept) are fetched: images and
// attachments are left out, so image embeds point at missing files.
var Sources = []Source{
	{"data-engineering-wiki", "data-engineering-community/data-engineering-wiki",
		"92550c91c9a04cf18a9bfb01294c10713fca4a15", []Keep{{Ext: ".md"}}},
	{"obsidian-garden", "tanepiper/obsidian-garden",
		"9e1bd7d14d43c5c193b54ff7b24272d2630cdf44", []Keep{{Ext: ".md"}}},
	{"tasks-test-data", "obsidian-tasks-group/obsidian-tasks",
		"cc0fce3c1326d18e2bdb7020eaf4c52e885da569", []Keep{
			{From: "resources/sample_vaults/Tasks-Demo/Test Data", To: "notes", Ext: ".md"},
			{From: "tests/Obsidian/__test_data__", To: "obsidian-metadata", Ext: ".json"},
		}},
}

// Dir returns the absolute path of the named real vault (for example "data-engineering-wiki"),
// or skips the test with a message saying where it looked and how to fetch the vault.
func Dir(tb testing.TB, name string) string {
	tb.Helper()
	dir, err := vaultsDir()
	if err == nil {
		dir = filepath.Join(dir, name)
		err = Present(dir)
	}
	if err != nil {
		tb.Skipf("real vault %q not available (%v); %s", name, err, Fetch)
	}
	return dir
}

// Fetch says how a reader gets the real vaults, for skip messages.
const Fetch = "`make vaults` fetches the public vaults this test reads, at pinned commits, into ../shared/vaults beside the checkout (it needs the internet)"

// Root returns the absolute path of ../shared/vaults, beside the project root, when it holds
// every vault in Sources; otherwise an error naming what is missing.
func Root() (string, error) {
	dir, err := vaultsDir()
	if err != nil {
		return "", err
	}
	for _, src := range Sources {
		if err := Present(filepath.Join(dir, src.Name)); err != nil {
			return "", err
		}
	}
	return dir, nil
}

func vaultsDir() (string, error) {
	root, err := ProjectRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(filepath.Dir(root), "shared", "vaults"), nil
}

// Present returns nil if dir is a folder that holds something, and otherwise an error that
// says what it is. An empty folder is no vault: a fetch that failed, or was stopped, may have
// left one.
func Present(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := f.Readdirnames(1); err != nil {
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("%s is empty", dir)
		}
		return err
	}
	return nil
}

// ProjectRoot finds the project root, the folder that holds go.work, from the working
// directory up. Tests run in their package's folder, scripts wherever the reader is.
func ProjectRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.work found above the working directory; run from inside the vaultmcp checkout")
		}
		dir = parent
	}
}
