package store

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckLocation(t *testing.T) {
	base := t.TempDir()
	vault := filepath.Join(base, "vault")
	if err := os.MkdirAll(filepath.Join(vault, "Sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(base, "data", "index.db")
	if err := CheckLocation(vault, outside); err != nil {
		t.Errorf("CheckLocation(outside) = %v", err)
	}
	if _, err := os.Stat(filepath.Dir(outside)); err != nil {
		t.Errorf("the index's folder was not created: %v", err)
	}
	for _, inside := range []string{
		filepath.Join(vault, "index.db"),
		filepath.Join(vault, "Sub", "index.db"),
		filepath.Join(vault, "New", "index.db"),
	} {
		if err := CheckLocation(vault, inside); err == nil || !strings.Contains(err.Error(), "inside the vault") {
			t.Errorf("CheckLocation(%s) = %v, want a refusal", inside, err)
		}
	}
	// A symlink outside the vault that leads into it is still inside, even through folders
	// that do not exist yet.
	link := filepath.Join(base, "link")
	if err := os.Symlink(vault, link); err == nil {
		for _, db := range []string{filepath.Join(link, "index.db"), filepath.Join(link, "New", "Deeper", "index.db")} {
			if err := CheckLocation(vault, db); err == nil {
				t.Errorf("CheckLocation(%s), through a symlink into the vault, succeeded", db)
			}
		}
		if _, err := os.Stat(filepath.Join(vault, "New")); err == nil {
			t.Error("a refused location still had its folders created in the vault")
		}
	}
}

func TestDefaultPathIsPerVault(t *testing.T) {
	a, err := DefaultPath("/notes/a/Vault")
	if err != nil {
		t.Skip("no user cache directory here:", err)
	}
	b, _ := DefaultPath("/notes/b/Vault")
	if a == b || !strings.Contains(a, "Vault-") || filepath.Base(a) != "index.db" {
		t.Errorf("DefaultPath gave %s and %s", a, b)
	}
}

// TestCheckOutsideCreatesNothing: the check a program makes before it touches the disk makes
// no folder, where CheckLocation makes the index's.
func TestCheckOutsideCreatesNothing(t *testing.T) {
	vault, dbDir := t.TempDir(), filepath.Join(t.TempDir(), "index")
	if err := CheckOutside(vault, filepath.Join(dbDir, "index.db")); err != nil {
		t.Fatalf("CheckOutside(outside) = %v", err)
	}
	if _, err := os.Stat(dbDir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("CheckOutside made the index's folder, or more (%v)", err)
	}
	if err := CheckOutside(vault, filepath.Join(vault, "index.db")); err == nil {
		t.Error("CheckOutside(inside the vault) = nil; want a refusal")
	}
}
