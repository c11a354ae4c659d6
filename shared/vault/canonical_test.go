package vault

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestCanonical: a path in another case or Unicode form reads the note it means, and every
// answer names the note as the vault spells it, on disks that heed case (Linux, these tests)
// and on those that do not (macOS, Windows), where the OS alone would accept the path as sent.
func TestCanonical(t *testing.T) {
	v := newVault(t, map[string]string{
		"Projects/plan.md":             "# plan",
		"Projects/Planning.md":         "# Planning",
		"Kitchen/Cre\u0300me.md":       "# Crème, decomposed (NFD), as macOS often writes names",
		"Kitchen/Fra\u00eeche.md":      "# Fraîche, composed (NFC), as most keyboards type it",
		"Garden/Straße.md":             "# Straße",
		"Kitchen/Bread/Dense loaf.md":  "# Dense loaf",
		"Kitchen/Bread/dense LOAF.txt": "not a note",
	})
	for _, c := range []struct{ asked, want string }{
		{"Projects/plan.md", "Projects/plan.md"},
		{"projects/PLAN", "Projects/plan.md"},
		{"Projects/Plan.MD", "Projects/plan.md"},
		{"Kitchen/Crème.md", "Kitchen/Cre\u0300me.md"},            // NFC asked, NFD on disk
		{"kitchen/fra\u0069\u0302che", "Kitchen/Fra\u00eeche.md"}, // NFD asked, NFC on disk
		{"garden/STRASSE.md", "Garden/Straße.md"},                 // full case folding
		{`KITCHEN\bread\dense loaf`, "Kitchen/Bread/Dense loaf.md"},
	} {
		note, content, err := v.ReadNote(c.asked)
		if err != nil || note != c.want {
			t.Errorf("ReadNote(%q) = %q, %v; want %q", c.asked, note, err, c.want)
			continue
		}
		if statted, _, err := v.Stat(c.asked); err != nil || statted != c.want {
			t.Errorf("Stat(%q) = %q, %v; want %q", c.asked, statted, err, c.want)
		}
		if len(content) == 0 {
			t.Errorf("ReadNote(%q): no content", c.asked)
		}
	}

	// A folder resolves the same way, for search filters.
	for asked, want := range map[string]string{"kitchen/BREAD": "Kitchen/Bread", `PROJECTS\`: "Projects", "Recipes": "Recipes"} {
		if folder, err := v.ResolveFolder(asked); err != nil || folder != want {
			t.Errorf("ResolveFolder(%q) = %q, %v; want %q", asked, folder, err, want)
		}
	}
	if _, err := v.ResolveFolder("../x"); !errors.Is(err, ErrOutside) {
		t.Errorf("ResolveFolder(../x) = %v; want it refused as outside the vault", err)
	}

	// A name that matches nothing is missing, with the near names.
	want := `note "Projects/Plans.md" not found; did you mean "Projects/plan.md"?`
	if _, _, err := v.ReadNote("Projects/Plans.md"); !errors.Is(err, ErrNotFound) || err.Error() != want {
		t.Errorf("ReadNote(Projects/Plans.md):\n got %v\nwant %s", err, want)
	}

	// A folder that changes is read again: a new note, and a rename.
	write(t, filepath.Join(v.Dir(), "Projects", "Budget.md"), "# Budget")
	if note, _, err := v.ReadNote("projects/budget"); err != nil || note != "Projects/Budget.md" {
		t.Errorf("after a new note, ReadNote(projects/budget) = %q, %v", note, err)
	}
	if err := os.Rename(filepath.Join(v.Dir(), "Projects", "Budget.md"), filepath.Join(v.Dir(), "Projects", "Budget 2027.md")); err != nil {
		t.Fatal(err)
	}
	if note, _, err := v.ReadNote("PROJECTS/BUDGET 2027.md"); err != nil || note != "Projects/Budget 2027.md" {
		t.Errorf("after a rename, ReadNote(PROJECTS/BUDGET 2027.md) = %q, %v", note, err)
	}
}

// TestCanonicalAmbiguous: on a disk that heeds case, two notes can differ only in case. The
// exact name reads its own note; any other spelling is refused, naming both.
func TestCanonicalAmbiguous(t *testing.T) {
	v := newVault(t, map[string]string{"Garden/Tomatoes.md": "# Tomatoes"})
	if !caseSensitive(t, v) {
		t.Skip("this disk ignores case, so it cannot hold two notes that differ only in case")
	}
	write(t, filepath.Join(v.Dir(), "Garden", "tomatoes.md"), "# tomatoes")
	for _, exact := range []string{"Garden/Tomatoes.md", "garden/tomatoes.md"} {
		want := "Garden/" + filepath.Base(exact)
		if note, _, err := v.ReadNote(exact); err != nil || note != want {
			t.Errorf("ReadNote(%q) = %q, %v; want %q", exact, note, err, want)
		}
	}
	want := `"Garden/TOMATOES.md" could be any of "Garden/Tomatoes.md" and "Garden/tomatoes.md", which differ only in case or accents; send one of them exactly`
	if _, _, err := v.ReadNote("garden/TOMATOES.md"); !errors.Is(err, ErrAmbiguous) || err.Error() != want {
		t.Errorf("ReadNote(garden/TOMATOES.md):\n got %v\nwant %s", err, want)
	}
}

// TestCanonicalCacheBounded: reading every note of a vault of many folders, as indexing does,
// keeps the names of at most maxCachedNames, and every note still reads under another case.
func TestCanonicalCacheBounded(t *testing.T) {
	const folders, perFolder = 40, maxCachedNames / 20 // twice what the cache may hold
	dir := t.TempDir()
	for f := range folders {
		sub := filepath.Join(dir, fmt.Sprintf("F%02d", f))
		if err := os.Mkdir(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		for n := range perFolder {
			if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("Note %d.md", n)), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	v, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	for round := range 2 {
		for f := range folders {
			asked := fmt.Sprintf("f%02d/note %d.MD", f, (f+round)%perFolder)
			want := fmt.Sprintf("F%02d/Note %d.md", f, (f+round)%perFolder)
			if note, _, err := v.ReadNote(asked); err != nil || note != want {
				t.Fatalf("ReadNote(%q) = %q, %v; want %q", asked, note, err, want)
			}
			v.mu.Lock()
			cached := 0
			for _, names := range v.folders {
				cached += len(names.spelt)
			}
			if cached != v.cachedNames || cached > maxCachedNames {
				t.Fatalf("after %d folders the cache holds %d names and counts %d; at most %d", f+1, cached, v.cachedNames, maxCachedNames)
			}
			v.mu.Unlock()
		}
	}
}
