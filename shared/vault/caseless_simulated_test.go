//go:build simulate_caseless

package vault

import (
	"io/fs"
	"slices"
	"testing"
)

// TestCaselessDisk checks the stand-in itself, so that the package's other tests, run with
// -tags simulate_caseless, really run on a disk that ignores case and Unicode form.
func TestCaselessDisk(t *testing.T) {
	v := newVault(t, map[string]string{"Garden/Tomatoes.md": "# Tomatoes", "Kitchen/Cre\u0300me.md": "# Crème"})
	for _, name := range []string{"garden/TOMATOES.md", "GARDEN", "kitchen/CRÈME.md"} {
		if _, err := v.root.Stat(name); err != nil {
			t.Errorf("the simulated disk does not open %q: %v", name, err)
		}
	}
	if _, err := v.root.Stat("Garden/Potatoes.md"); err == nil {
		t.Error("the simulated disk opens a note that is not there")
	}
	entries, err := fs.ReadDir(v.root.FS(), "garden")
	if err != nil || len(entries) != 1 || entries[0].Name() != "Tomatoes.md" {
		t.Errorf("ReadDir(garden) = %v, %v; want the name as written, Tomatoes.md", entries, err)
	}
	if notes, err := v.Notes(); err != nil || !slices.Equal(notes, []string{"Garden/Tomatoes.md", "Kitchen/Cre\u0300me.md"}) {
		t.Errorf("Notes() = %q, %v", notes, err)
	}
}
