//go:build simulate_caseless

package vault

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Built with -tags simulate_caseless, a Vault sees its folder as macOS and Windows see a disk:
// a name opens in any case and Unicode form ("garden/tomatoes.md" opens Garden/Tomatoes.md),
// while listings keep each name as it was written. No case-folding file system can be mounted
// in a test, so this is the way to check on Linux that the answers do not depend on the disk.
func init() {
	openDisk = func(dir string) (disk, error) {
		root, err := os.OpenRoot(dir)
		if err != nil {
			return nil, err
		}
		return caseless{root}, nil
	}
}

type caseless struct{ root *os.Root }

func (c caseless) Stat(name string) (fs.FileInfo, error) { return c.root.Stat(c.onDisk(name)) }
func (c caseless) Open(name string) (*os.File, error)    { return c.root.Open(c.onDisk(name)) }
func (c caseless) FS() fs.FS                             { return caselessFS{c} }
func (c caseless) Close() error                          { return c.root.Close() }

// onDisk is the name the disk finds for name: each part as written when a name in its folder
// is spelt so, else the first name equal to it after foldName, as a disk that ignores case
// and form matches it.
func (c caseless) onDisk(name string) string {
	parts := strings.Split(filepath.ToSlash(name), "/")
	folder := "."
	for i, part := range parts {
		entries, err := fs.ReadDir(c.root.FS(), folder)
		if err != nil {
			break // not a folder: the disk's own error follows
		}
		spelt := func(e fs.DirEntry) bool { return e.Name() == part }
		folded := func(e fs.DirEntry) bool { return foldName(e.Name()) == foldName(part) }
		if j := slices.IndexFunc(entries, folded); j >= 0 && !slices.ContainsFunc(entries, spelt) {
			parts[i] = entries[j].Name()
		}
		folder = path.Join(folder, parts[i])
	}
	return filepath.FromSlash(strings.Join(parts, "/"))
}

type caselessFS struct{ c caseless }

func (f caselessFS) Open(name string) (fs.File, error) { return f.c.root.FS().Open(f.c.onDisk(name)) }
