package store

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// DefaultPath is where the index of the vault in vaultDir lives unless -db says otherwise: in
// the user's cache directory, never in the vault, where Obsidian and sync tools would see it.
// Each vault gets its own folder, named after it and a hash of its absolute path, so two
// vaults called "Notes" do not share an index.
func DefaultPath(vaultDir string) (string, error) {
	abs, err := filepath.Abs(vaultDir)
	if err != nil {
		return "", err
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory for the index (%v); choose an index file with %s", err, chooseDB)
	}
	sum := sha256.Sum256([]byte(abs))
	name := filepath.Base(abs) + "-" + hex.EncodeToString(sum[:4])
	return filepath.Join(cache, "vaultmcp", name, "index.db"), nil
}

// CheckLocation refuses an index path inside the vault, as CheckOutside does, and creates the
// index's folder if it is missing.
func CheckLocation(vaultDir, dbPath string) error {
	if err := CheckOutside(vaultDir, dbPath); err != nil {
		return err
	}
	db, err := filepath.Abs(dbPath)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(db), 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("cannot create the index's folder: %w", err)
	}
	return nil
}

// CheckOutside refuses an index path inside the vault: the database and its -wal and -shm
// files change all the time, and in the vault they would be synced, backed up and shown by
// Obsidian as clutter. It creates nothing, so a program can check its configuration with it
// before it touches the disk; its error names no setting, since the caller knows which one
// gave the path.
func CheckOutside(vaultDir, dbPath string) error {
	vault, err := filepath.Abs(vaultDir)
	if err != nil {
		return err
	}
	db, err := filepath.Abs(dbPath)
	if err != nil {
		return err
	}
	// Compare real paths, so that a symlink cannot smuggle the index into the vault.
	vault, dir := realPath(vault), realPath(filepath.Dir(db))
	if rel, err := filepath.Rel(vault, dir); err == nil && filepath.IsLocal(rel) {
		return fmt.Errorf("the index %s is inside the vault %s: choose a file outside it", dbPath, vaultDir)
	}
	return nil
}

// realPath resolves the symlinks in path. Folders that do not exist yet (the index's, before
// its first start) have none to resolve, so it resolves the longest part that exists and
// keeps the rest as written.
func realPath(path string) string {
	rest := ""
	for {
		if real, err := filepath.EvalSymlinks(path); err == nil {
			return filepath.Join(real, rest)
		}
		parent := filepath.Dir(path)
		if parent == path {
			return filepath.Join(path, rest)
		}
		rest = filepath.Join(filepath.Base(path), rest)
		path = parent
	}
}
