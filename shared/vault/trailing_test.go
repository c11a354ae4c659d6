package vault

import (
	"io/fs"
	"maps"
	"slices"
	"strings"
	"testing"
)

// windowsNames is a disk as Windows shows it a folder whose name ends in a dot or a space:
// listed in its parent, but not found when opened, since Windows drops the dot.
type windowsNames struct{ disk }

func (w windowsNames) FS() fs.FS { return windowsFS{w.disk.FS()} }

type windowsFS struct{ fs.FS }

func dropped(name string) bool {
	for part := range strings.SplitSeq(name, "/") {
		if part != "." && (strings.HasSuffix(part, ".") || strings.HasSuffix(part, " ")) {
			return true
		}
	}
	return false
}

func (w windowsFS) Open(name string) (fs.File, error) {
	if dropped(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return w.FS.Open(name)
}

func (w windowsFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if dropped(name) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	return fs.ReadDir(w.FS, name)
}

// TestTrailingDotFolder: a folder whose name ends in a dot is never silently left out. Where
// the disk opens it (Linux, macOS), its notes are listed by NoteInfos with the reason, for
// index_status; where Windows cannot open it, SkippedFolders names the folder and says why.
func TestTrailingDotFolder(t *testing.T) {
	files := map[string]string{"Home.md": "", "Drafts./Idea.md": "", "Plans /Spring.md": ""}

	v := newVault(t, files)
	infos, skipped, err := v.NoteInfos()
	if err != nil || len(infos) != 1 || skipped["Drafts./Idea.md"] == nil || skipped["Plans /Spring.md"] == nil {
		t.Errorf("NoteInfos() = %d notes, skipped %v, %v; want Home.md, and the other two with their reason", len(infos), skipped, err)
	}

	real := openDisk
	openDisk = func(dir string) (disk, error) {
		d, err := real(dir)
		return windowsNames{d}, err
	}
	defer func() { openDisk = real }()
	v = newVault(t, files)
	got, err := v.Notes()
	if err != nil || !slices.Equal(got, []string{"Home.md"}) {
		t.Errorf("Notes() = %q, %v; want Home.md", got, err)
	}
	folders := v.SkippedFolders()
	if !slices.Equal(slices.Sorted(maps.Keys(folders)), []string{"Drafts.", "Plans "}) || !strings.Contains(folders["Drafts."], "ends in a dot or a space") {
		t.Errorf("SkippedFolders() = %q; want both folders, each with its reason", folders)
	}
}
