// Package atomicfile writes files so that nobody ever sees half of one: not a reader, not a
// file watcher, not a sync tool, and not the next start after a crash. A file is either as it
// was or as it was meant to be.
//
// Both writes go the same way: the new content goes into a temporary file in the same folder,
// which is flushed to the disk (fsync), and only then given the file's name, in one step of
// the file system; last, the folder itself is flushed, so the new name survives a power cut.
//
//   - Create gives the name with a hard link, which fails if the name exists: a new file
//     appears whole, and never replaces one.
//   - Replace gives the name with a rename, which replaces the old file in one step: a reader
//     opens the old file or the new one, never a mix.
//
// A crash can still leave the temporary file behind. Its name, from TempName, is hidden (it
// starts with a dot, so Obsidian, the vault's listing and the file watcher leave it out) and
// recognisable, so RemoveLeftovers can clear it at the next start.
//
// Everything goes through an os.Root, so no name, and no symbolic link on the way, can lead a
// write out of the folder it was opened on.
package atomicfile

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// tempPrefix and tempSuffix frame the name of every temporary file this package makes: a dot
// (hidden everywhere), the program's name (whose file it is), 16 random hex digits (so two
// writes never collide), and ".tmp" (not a note, whatever the folder holds).
const (
	tempPrefix = ".vaultmcp-"
	tempSuffix = ".tmp"
	tempDigits = 16
)

// IsTemp reports whether name, a file's base name, is one this package gives its temporary
// files.
func IsTemp(name string) bool {
	digits, prefixed := strings.CutPrefix(name, tempPrefix)
	digits, suffixed := strings.CutSuffix(digits, tempSuffix)
	if !prefixed || !suffixed || len(digits) != tempDigits {
		return false
	}
	_, err := hex.DecodeString(digits)
	return err == nil
}

// crashPoint, when set by a test, is called at each stage of a write: the test kills the
// process there, as a power cut or a kill -9 would.
var crashPoint func(stage string)

func reached(stage string) {
	if crashPoint != nil {
		crashPoint(stage)
	}
}

// Create makes the file name, a path relative to root, with data as its content and perm as
// its permissions (before the umask). If name exists, even as a symbolic link that leads
// nowhere, it returns an error that matches fs.ErrExist and changes nothing.
//
// On a file system without hard links (FAT and exFAT, some network shares) it falls back to
// creating name exclusively and writing into it: never a replacement still, but a reader may
// see the file before its content.
func Create(root *os.Root, name string, data []byte, perm fs.FileMode) error {
	temp, err := writeTemp(root, name, data, perm, false)
	if err != nil {
		return err
	}
	reached("linking")
	err = root.Link(temp, name)
	if noHardLinks(err) {
		err = createInPlace(root, name, data, perm)
	}
	reached("linked")
	// The temporary name goes whatever happened: after a link, name holds the same file.
	if removeErr := root.Remove(temp); err == nil && removeErr != nil && !errors.Is(removeErr, fs.ErrNotExist) {
		err = fmt.Errorf("the temporary file %s could not be removed: %w", temp, removeErr)
	}
	if err != nil {
		return err
	}
	reached("unlinked")
	syncDir(root, name)
	return nil
}

// createInPlace is Create for a file system without hard links: O_EXCL refuses a name that
// exists in the same step as it creates the file.
func createInPlace(root *os.Root, name string, data []byte, perm fs.FileMode) error {
	f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if err := writeSync(f, data); err != nil {
		// The file is ours (O_EXCL: it did not exist a moment ago), so removing it takes
		// nothing from anyone. Left behind, a truncated file would look finished.
		root.Remove(name)
		return err
	}
	return nil
}

// Replace replaces the regular file name, a path relative to root, with data, keeping its
// permissions. check is called last, just before the rename: if it returns an error, the
// file is left as it was and Replace returns that error. A caller that must not overwrite a
// change made since it read the file checks there that the file is still the one it read.
//
// A symbolic link is never replaced: that would cut the link and leave its target as it was.
// Replace refuses one with an error, which the caller should have caught before. A file its
// owner cannot write is refused too, with an error that matches fs.ErrPermission.
func Replace(root *os.Root, name string, data []byte, check func() error) error {
	info, err := root.Lstat(name)
	if err != nil {
		return err
	}
	switch {
	case !info.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file, so it is not replaced", name)
	case info.Mode().Perm()&0o200 == 0:
		// A rename needs only the folder to be writable; the file's owner made the file
		// read-only, and a rename must not be a way round that.
		return &fs.PathError{Op: "replace", Path: name, Err: fs.ErrPermission}
	}
	temp, err := writeTemp(root, name, data, info.Mode().Perm(), true)
	if err != nil {
		return err
	}
	reached("checking")
	err = check()
	if err == nil {
		reached("renaming")
		err = root.Rename(temp, name)
	}
	if err != nil {
		root.Remove(temp)
		return err
	}
	reached("renamed")
	syncDir(root, name)
	return nil
}

// writeTemp writes data into a new temporary file beside name, flushes it to the disk and
// returns its path relative to root. The file gets perm less the umask, or exactly perm, as
// the file it replaces had it. On failure nothing is left behind.
func writeTemp(root *os.Root, name string, data []byte, perm fs.FileMode, exact bool) (string, error) {
	dir := path.Dir(filepath.ToSlash(name))
	for {
		temp := filepath.FromSlash(path.Join(dir, TempName()))
		f, err := root.OpenFile(temp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue // 64 random bits collided, or someone planted the name: draw again
		}
		if err != nil {
			return "", err
		}
		reached("writing")
		if exact {
			// The umask may have taken bits from perm, which the note being replaced had.
			err = f.Chmod(perm)
		}
		if err == nil {
			err = writeSync(f, data)
		} else {
			f.Close()
		}
		if err != nil {
			root.Remove(temp)
			return "", err
		}
		reached("written")
		return temp, nil
	}
}

// writeSync writes data to f, flushes it to the disk and closes f. Without the flush, a crash
// soon after the rename could leave the new name on a file whose content never reached the
// disk: an empty note where the old one was.
func writeSync(f *os.File, data []byte) error {
	_, err := f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if closeErr := f.Close(); err == nil {
		err = closeErr
	}
	return err
}

// syncDir flushes the folder of name, so that the new name is on the disk and not only in
// memory. It cannot fail the write: the name is given already, so the file is the new one
// whatever the flush says, and an error here would make a caller retry a write that happened.
// Windows cannot flush a folder through Go (it needs a handle opened for writing), and NTFS
// journals its folders itself.
func syncDir(root *os.Root, name string) {
	if runtime.GOOS == "windows" {
		return
	}
	d, err := root.Open(filepath.Dir(name))
	if err != nil {
		return
	}
	d.Sync()
	d.Close()
}

// TempName returns a fresh name for a temporary file, recognised by IsTemp.
func TempName() string {
	b := make([]byte, tempDigits/2)
	rand.Read(b)
	return tempPrefix + hex.EncodeToString(b) + tempSuffix
}

// RemoveLeftovers removes the temporary files of this package that are older than before,
// anywhere under root, and returns their paths relative to root. A write cut short by a crash
// leaves one. Call it before writing: a younger file, which another process may be writing,
// is left alone, but this one's own are not told apart. It does not look inside hidden
// folders (.obsidian, .git, .trash), where nothing is written. It stops early when ctx ends.
func RemoveLeftovers(ctx context.Context, root *os.Root, before time.Time) ([]string, error) {
	var removed []string
	err := removeLeftovers(ctx, root, "", before, &removed)
	return removed, err
}

// removeLeftovers clears the folder dir, at rel under the root, and the folders in it. Each folder
// is opened from the one above it, which costs a system call, where a path from top would
// cost one for each folder on the way; and a folder that cannot be read holds nothing this
// package wrote, so it is passed over.
func removeLeftovers(ctx context.Context, dir *os.Root, rel string, before time.Time, removed *[]string) error {
	f, err := dir.Open(".")
	if err != nil {
		return nil
	}
	entries, err := f.ReadDir(-1)
	f.Close()
	if err != nil && rel == "" {
		return err
	}
	for _, e := range entries {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		p := path.Join(rel, e.Name())
		switch {
		case e.IsDir() && !strings.HasPrefix(e.Name(), "."):
			sub, err := dir.OpenRoot(e.Name())
			if err != nil {
				continue
			}
			err = removeLeftovers(ctx, sub, p, before, removed)
			sub.Close()
			if err != nil {
				return err
			}
		case e.Type().IsRegular() && IsTemp(e.Name()):
			if info, err := e.Info(); err != nil || !info.ModTime().Before(before) {
				continue
			}
			if err := dir.Remove(e.Name()); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("cannot remove the leftover temporary file %s: %w", p, err)
			}
			*removed = append(*removed, p)
		}
	}
	return nil
}
