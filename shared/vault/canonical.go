package vault

import (
	"errors"
	"io/fs"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// ErrAmbiguous: a path names two notes or folders that differ only in case or Unicode form,
// which a disk that heeds case (Linux) can hold side by side.
var ErrAmbiguous = errors.New("ambiguous path")

// canonical returns the note that note names, spelt as the vault spells it.
//
// macOS and Windows compare file names without regard to case, and macOS without regard to
// Unicode form, so there "garden/tomatoes.md" opens Garden/Tomatoes.md. The index and the link
// graph know the note only by its own name, so a path in another spelling would read the note
// and then find no backlinks and no sections. So each part of the path is looked up among the
// names in its folder: the same name if there is one, else the one name equal to it after
// normalising to NFC and folding case. Then every OS answers alike, with the vault's own
// spelling. A part that matches nothing is left as it is, for stat to report as missing; one
// that matches two names is refused rather than guessed.
func (v *Vault) canonical(note string) (string, error) {
	parts := strings.Split(note, "/")
	folder := "."
	for i, part := range parts {
		names, ok := v.names(folder)
		if !ok {
			return note, nil // not a folder we can read: stat says why
		}
		if _, exact := names.spelt[part]; !exact {
			switch same := names.folded[foldName(part)]; len(same) {
			case 0:
				return note, nil
			case 1:
				parts[i] = same[0]
			default:
				return "", Refuse(ErrAmbiguous, "%q could be any of %s, which differ only in case or accents; send one of them exactly",
					path.Join(folder, part), quoteAll(joinAll(folder, same)))
			}
		}
		folder = path.Join(folder, parts[i])
	}
	return strings.Join(parts, "/"), nil
}

// foldName is the form in which two names that macOS or Windows would take for one are equal.
func foldName(name string) string {
	return cases.Fold().String(norm.NFC.String(name))
}

// folderNames is what one folder held when it was last read.
type folderNames struct {
	mtime  time.Time
	spelt  map[string]struct{} // every name, as spelt
	folded map[string][]string // every name, by foldName
}

// names returns the names in folder, read again only when the folder's modification time
// has changed since the last read, which creating, removing or renaming an entry changes:
// resolving a path then costs a stat a folder, however many notes the folder holds.
func (v *Vault) names(folder string) (folderNames, bool) {
	info, err := v.root.Stat(filepath.FromSlash(folder))
	if err != nil || !info.IsDir() {
		return folderNames{}, false
	}
	v.mu.Lock()
	cached, ok := v.folders[folder]
	v.mu.Unlock()
	if ok && cached.mtime.Equal(info.ModTime()) {
		return cached, true
	}
	entries, err := fs.ReadDir(v.root.FS(), folder)
	if err != nil {
		return folderNames{}, false
	}
	names := folderNames{mtime: info.ModTime(), spelt: make(map[string]struct{}, len(entries)), folded: make(map[string][]string, len(entries))}
	for _, e := range entries {
		names.spelt[e.Name()] = struct{}{}
		key := foldName(e.Name())
		names.folded[key] = append(names.folded[key], e.Name())
	}
	v.mu.Lock()
	if v.folders == nil {
		v.folders = make(map[string]folderNames)
	}
	if old, ok := v.folders[folder]; ok { // read again since it changed
		delete(v.folders, folder)
		v.cachedNames -= len(old.spelt)
	}
	v.forgetFolders(len(entries))
	v.folders[folder] = names
	v.cachedNames += len(entries)
	v.mu.Unlock()
	return names, true
}

// maxCachedNames bounds the names that names keeps: those of a few large folders or many
// small ones, a megabyte or two, however large the vault. Indexing a vault reads every folder
// once, and a cache of them all would grow with the vault.
const maxCachedNames = 8192

// forgetFolders forgets folders, any of them, until another n names fit within
// maxCachedNames. A folder forgotten is read again when it is next needed. v.mu is held.
func (v *Vault) forgetFolders(n int) {
	for folder, names := range v.folders {
		if v.cachedNames+n <= maxCachedNames {
			return
		}
		delete(v.folders, folder)
		v.cachedNames -= len(names.spelt)
	}
}

func joinAll(folder string, names []string) []string {
	joined := make([]string, len(names))
	for i, name := range names {
		joined[i] = path.Join(folder, name)
	}
	return joined
}

func quoteAll(items []string) string {
	quoted := make([]string, len(items))
	for i, s := range items {
		quoted[i] = strconv.Quote(s)
	}
	return strings.Join(quoted, " and ")
}
