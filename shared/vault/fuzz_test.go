package vault

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzCleanPath throws arbitrary paths at CleanPath, NotePath and ReadNote. Run it with
//
//	go test -fuzz FuzzCleanPath -fuzztime 2000000x ./shared/vault/
func FuzzCleanPath(f *testing.F) {
	for _, tc := range cleanPathTests {
		f.Add(tc.in)
	}
	for _, p := range []string{"Home", "out.md", "up/secret.md", "up/vault/Home.md", "in/Home.md", "%2e%2e/secret.md"} {
		f.Add(p)
	}

	// A vault with links that lead out of it, and a secret beside it.
	parent := f.TempDir()
	dir := filepath.Join(parent, "vault")
	for name, content := range map[string]string{"secret.md": secret, "vault/Home.md": "# Home", "vault/Folder/Note.md": "# Note"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(parent, name)), 0o755); err != nil {
			f.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(parent, name), []byte(content), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	// Where symbolic links cannot be made (Windows without developer mode), fuzz without them.
	os.Symlink(filepath.Join("..", "secret.md"), filepath.Join(dir, "out.md"))
	os.Symlink(filepath.Join(parent, "secret.md"), filepath.Join(dir, "abs.md"))
	os.Symlink("..", filepath.Join(dir, "up"))
	os.Symlink("Folder", filepath.Join(dir, "in"))
	v, err := Open(dir)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { v.Close() })

	f.Fuzz(func(t *testing.T, p string) {
		checkServableName(t, p)
		clean, err := CleanPath(p)
		if err == nil {
			checkClean(t, p, clean)
		} else if !isKind(err) {
			t.Fatalf("CleanPath(%q) error %v matches none of the Err* kinds", p, err)
		}

		note, err := NotePath(p)
		if err == nil {
			checkClean(t, p, note)
			if !strings.EqualFold(path.Ext(note), ".md") {
				t.Fatalf("NotePath(%q) = %q, not a .md path", p, note)
			}
		}

		note, content, err := v.ReadNote(p)
		if strings.Contains(string(content), secret) {
			t.Fatalf("ReadNote(%q) returned the secret from outside the vault", p)
		}
		if err != nil && strings.Contains(err.Error(), parent) && !strings.Contains(p, parent) {
			t.Fatalf("ReadNote(%q) error shows where the vault is: %v", p, err)
		}
		if err == nil {
			checkClean(t, p, note)
		}
	})
}

// checkClean fails the test unless clean, returned for p, is a path inside the vault and a
// name every operating system takes as it is.
func checkClean(t *testing.T, p, clean string) {
	t.Helper()
	switch {
	case !filepath.IsLocal(clean), !filepath.IsLocal(filepath.FromSlash(clean)):
		t.Fatalf("%q → %q: not local", p, clean)
	case !fs.ValidPath(clean), path.Clean(clean) != clean:
		t.Fatalf("%q → %q: not a clean '/'-separated path", p, clean)
	case strings.ContainsAny(clean, "\\\x00"), !utf8.ValidString(clean), len(clean) > MaxPathLen:
		t.Fatalf("%q → %q: has a backslash or NUL, or is not UTF-8, or is too long", p, clean)
	case strings.Contains(clean, ":"):
		t.Fatalf("%q → %q: names a drive or a file stream", p, clean)
	case strings.ContainsAny(clean, forbidden):
		t.Fatalf("%q → %q: holds a character Windows refuses in a name", p, clean)
	}
	for name := range strings.SplitSeq(clean, "/") {
		if name == ".." || strings.HasPrefix(name, ".") {
			t.Fatalf("%q → %q: element %q could leave the vault, or is hidden", p, clean, name)
		}
		if strings.HasSuffix(name, ".") || strings.HasSuffix(name, " ") || Reserved(name) {
			t.Fatalf("%q → %q: element %q means another file or a device on Windows", p, clean, name)
		}
	}
	if again, err := CleanPath(clean); again != clean || err != nil {
		t.Fatalf("%q → %q, but CleanPath(%q) = %q, %v", p, clean, clean, again, err)
	}
}

func isKind(err error) bool {
	for _, kind := range []error{ErrInvalidPath, ErrOutside, ErrNotNote, ErrNotFound, ErrTooLarge} {
		if errors.Is(err, kind) {
			return true
		}
	}
	return false
}
