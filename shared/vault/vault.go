// Package vault is the boundary between a model and the notes on disk. Every path a model
// sends comes through here, and nothing here trusts it:
//
//   - CleanPath and NotePath check the text of a path, the same way on every OS;
//   - a Vault opens files only through an os.Root, so the operating system itself refuses
//     anything outside the vault folder, including through symbolic links;
//   - ReadNote reads only Markdown notes, and at most MaxNoteSize bytes of one.
//
// Paths inside the program are vault-relative with '/' on every OS, and every refusal is an
// error worded for the model: it says what failed and what to send instead, and it never
// shows where the vault lives on disk.
package vault

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"unicode"
	"unicode/utf8"
)

// MaxNoteSize bounds the bytes read for one note. A note is text someone wrote; the largest
// real ones are a few hundred KiB, so 8 MiB fits any of them while keeping a stray log file
// or pasted dump from using up memory, request after request.
const MaxNoteSize = 8 << 20

// The kinds of refusal. Callers match them with errors.Is; the error's text is the message
// meant for the model.
var (
	ErrInvalidPath = errors.New("invalid path")
	ErrOutside     = errors.New("outside the vault")
	ErrNotNote     = errors.New("not a note")
	ErrNotFound    = errors.New("note not found")
	ErrTooLarge    = errors.New("note too large")
)

// refusal is an error whose text is written for the model and which matches one kind.
type refusal struct {
	kind error
	msg  string
}

func (e *refusal) Error() string { return e.msg }
func (e *refusal) Unwrap() error { return e.kind }

// Refuse returns an error whose text, from format, is written for the model, and which matches
// kind with errors.Is, so a caller can tell the kinds apart without reading the text. The
// inbox refuses with it too.
func Refuse(kind error, format string, args ...any) error {
	return &refusal{kind: kind, msg: fmt.Sprintf(format, args...)}
}

// A Vault is a folder of notes, opened once. It is safe for concurrent use.
type Vault struct {
	root disk
	dir  string
	// escapes is the error os.Root returns for a path that leads outside it. The os
	// package does not export it, so Open learns it by asking for "..".
	escapes error

	mu          sync.Mutex
	skipped     map[string]string      // the folders the latest listing could not read, and why
	folders     map[string]folderNames // the names in the folders canonical has looked in lately
	cachedNames int                    // in folders, in all
}

// Open opens the vault in dir, which must be an existing folder.
func Open(dir string) (*Vault, error) {
	if dir == "" {
		return nil, errors.New("no vault folder given")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("vault folder: %w", err)
	}
	info, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("vault folder %s does not exist", abs)
	case err != nil:
		return nil, fmt.Errorf("vault folder: %w", err)
	case !info.IsDir():
		return nil, fmt.Errorf("vault folder %s is a file, not a folder", abs)
	}
	root, err := openDisk(abs)
	if err != nil {
		return nil, fmt.Errorf("vault folder: %w", err)
	}
	_, err = root.Stat("..")
	return &Vault{root: root, dir: abs, escapes: errors.Unwrap(err)}, nil
}

// disk is what a Vault needs of its folder: an *os.Root, which keeps every path inside it.
// It is an interface only so that a test build can stand in a disk that ignores case, as
// macOS and Windows do (see caseless_simulated.go).
type disk interface {
	Stat(name string) (fs.FileInfo, error)
	Open(name string) (*os.File, error)
	FS() fs.FS
	Close() error
}

var openDisk = func(dir string) (disk, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return root, nil
}

// Close releases the vault folder.
func (v *Vault) Close() error { return v.root.Close() }

// Dir returns the absolute path of the vault folder, for logs. Never show it to a model.
func (v *Vault) Dir() string { return v.dir }

// ReadNote reads the note at p, a path sent by a model (see NotePath), and returns its
// vault-relative path and its content.
//
// A symbolic link inside the vault is followed when it leads to a note inside the vault,
// as Obsidian does; one that leads outside is refused by os.Root.
func (v *Vault) ReadNote(p string) (note string, content []byte, err error) {
	note, err = v.Resolve(p)
	if err != nil {
		return "", nil, err
	}
	// Stat before opening: opening a named pipe would block until someone writes to it.
	info, err := v.stat(note)
	if err != nil {
		return "", nil, err
	}
	if info.Size() > MaxNoteSize {
		return "", nil, tooLarge(note)
	}

	name := filepath.FromSlash(note)
	f, err := v.root.Open(name)
	if err != nil {
		return "", nil, v.readError(note, err)
	}
	defer f.Close()
	// The note may have grown since Stat: read one byte past the limit to notice.
	content, err = io.ReadAll(io.LimitReader(f, MaxNoteSize+1))
	if err != nil {
		return "", nil, v.readError(note, err)
	}
	if len(content) > MaxNoteSize {
		return "", nil, tooLarge(note)
	}
	if why := NotText(content); why != "" {
		return "", nil, Refuse(ErrNotNote, "%q is not a note: %s", note, why)
	}
	return note, content, nil
}

// sniffSize is how much of a note's start tells text from a binary file. Images, PDFs,
// archives and fonts say what they are in their first bytes; git looks at the first 8,000.
const sniffSize = 8 << 10

// NotText says why content is not the text of a note, which ReadNote then refuses, or returns
// "" when it is: an image or a PDF saved with .md would otherwise be indexed as hundreds of
// sections of noise.
//
// A NUL byte decides it: binary files (PNG, JPEG, PDF, ZIP, fonts, compressed data) almost
// always have one in their first 8 KiB, and text has none, except UTF-16, which Obsidian does not
// read either. Without one, text is what at least 70% of the start is: valid UTF-8 that is not
// a control character (tab and line ends aside). Random bytes are about 55% not text.
// A note saved in Latin-1 has é and ü as single bytes, not UTF-8: 3–15% of it in French or
// German, so it stays a note with a few letters lost. Cyrillic in Windows-1251 is 75%, and no
// word of it would survive, so it is not read, with a reason that says how to fix it.
func NotText(content []byte) string {
	start := content[:min(len(content), sniffSize)]
	if bytes.IndexByte(start, 0) >= 0 {
		return "it holds NUL bytes, so it is a binary file (an image or a PDF saved with .md?) or text in UTF-16; notes are UTF-8 text"
	}
	odd := 0
	for rest := start; len(rest) > 0; {
		r, size := utf8.DecodeRune(rest)
		if r == utf8.RuneError && size == 1 || r < ' ' && r != '\t' && r != '\n' && r != '\r' && r != '\f' {
			odd++
		}
		rest = rest[size:]
	}
	if odd*10 > len(start)*3 {
		return "much of its start is not UTF-8 text, so it is a binary file saved with .md, or text in another encoding; save it as UTF-8 to read it"
	}
	return ""
}

func tooLarge(note string) error {
	return Refuse(ErrTooLarge, "note %q is larger than %d MiB, too large to read", note, MaxNoteSize>>20)
}

// Stat returns the size and modification time of a note, with the same checks and errors
// as ReadNote. An index records them to notice later, without reading every note again,
// which notes changed.
func (v *Vault) Stat(p string) (note string, info fs.FileInfo, err error) {
	note, err = v.Resolve(p)
	if err != nil {
		return "", nil, err
	}
	info, err = v.stat(note)
	if err != nil {
		return "", nil, err
	}
	return note, info, nil
}

// Resolve turns a path from a model into the note's own path: cleaned by NotePath, and
// spelt as the vault spells it (see canonical). The note need not exist: a path that names
// nothing comes back cleaned, as a note not written yet would be named.
func (v *Vault) Resolve(p string) (string, error) {
	note, err := NotePath(p)
	if err != nil {
		return "", err
	}
	return v.canonical(note)
}

// ResolveFolder is Resolve for a folder: cleaned by CleanPath, and spelt as the vault spells
// it. A search filtered to "kitchen" then keeps to the notes in Kitchen, as the index names them.
func (v *Vault) ResolveFolder(p string) (string, error) {
	folder, err := CleanPath(p)
	if err != nil {
		return "", err
	}
	return v.canonical(folder)
}

// stat checks that note, a cleaned note path, names a regular file in the vault.
func (v *Vault) stat(note string) (fs.FileInfo, error) {
	info, err := v.root.Stat(filepath.FromSlash(note))
	if err != nil {
		// Models often name a folder ("Garden") when they want a note in it; say so.
		folder := strings.TrimSuffix(note, ".md")
		if dir, statErr := v.root.Stat(filepath.FromSlash(folder)); statErr == nil && dir.IsDir() {
			return nil, Refuse(ErrNotNote, "%q is a folder, not a note; send the path of a note inside it, like %q", folder, folder+"/Note.md")
		}
		return nil, v.readError(note, err)
	}
	switch {
	case info.IsDir():
		return nil, Refuse(ErrNotNote, "%q is a folder, not a note; send the path of a note inside it, like %q", note, note+"/Note.md")
	case !info.Mode().IsRegular():
		return nil, Refuse(ErrNotNote, "%q is not a regular file, so it is not a note", note)
	}
	return info, nil
}

// readError words a failure from os.Root for the model, without the vault's location.
func (v *Vault) readError(note string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		// ENOTDIR: a file where the path needs a folder, as in "Note.md/Other.md".
		return notFound(note, v.Suggest(note, 3))
	case errors.Is(err, v.escapes):
		return Refuse(ErrOutside, "%q leads outside the vault through a symbolic link; only notes inside the vault can be read", note)
	}
	// Keep the OS's reason ("permission denied"), without the vault's location.
	return fmt.Errorf("note %q could not be read: %w", note, reason(err))
}

// reason keeps the OS's reason for a failure ("permission denied") and drops the rest of a
// *fs.PathError, which names the file by its place on disk.
func reason(err error) error {
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		return pe.Err
	}
	return err
}

func notFound(note string, suggestions []string) error {
	if len(suggestions) == 0 {
		return Refuse(ErrNotFound, "note %q not found; paths are relative to the vault root, like %q", note, "Folder/Note.md")
	}
	quoted := make([]string, len(suggestions))
	for i, s := range suggestions {
		quoted[i] = fmt.Sprintf("%q", s)
	}
	last := len(quoted) - 1
	alternatives := quoted[last]
	if last > 0 {
		alternatives = strings.Join(quoted[:last], ", ") + " or " + alternatives
	}
	return Refuse(ErrNotFound, "note %q not found; did you mean %s?", note, alternatives)
}

// Notes returns the path of every note in the vault, sorted, '/'-separated.
//
// It lists exactly the notes a model can name: each path is accepted by NotePath unchanged.
// So it skips hidden files and folders (.obsidian, .trash, .git), which are not part of the
// vault, and the few names CleanPath refuses or changes, such as "a\b.md" on Linux; NoteInfos
// says why each of those is left out. Symbolic links to notes inside the vault are listed;
// linked folders are not entered, which also rules out loops.
func (v *Vault) Notes() ([]string, error) {
	var notes []string
	err := v.walk(func(p string, _ fs.DirEntry, _ fs.FileInfo) error {
		notes = append(notes, p)
		return nil
	}, nil)
	if err != nil {
		return nil, err
	}
	// WalkDir visits "a/b.md" before "a b.md"; sort plainly by bytes instead.
	slices.Sort(notes)
	return notes, nil
}

// NoteInfos returns what Notes lists, by path, with each note's size and modification time,
// read during the same walk. A comparison with an index needs nothing more, and this costs
// about one stat per note: Stat on each path would resolve it again, folder by folder.
//
// It also returns the notes it leaves out although they are not hidden, each with the reason,
// written for the user, who can rename them: a note is never missing without a word.
func (v *Vault) NoteInfos() (infos map[string]fs.FileInfo, skipped map[string]error, err error) {
	infos, skipped = map[string]fs.FileInfo{}, map[string]error{}
	err = v.walk(func(p string, d fs.DirEntry, info fs.FileInfo) error {
		if info == nil {
			var err error
			if info, err = d.Info(); err != nil {
				return nil // gone since the folder was read
			}
		}
		infos[p] = info
		return nil
	}, func(p string) {
		skipped[p] = unservable(p)
	})
	return infos, skipped, err
}

// SkippedFolders returns the folders that the latest listing (Notes, NoteInfos) could not
// read, by vault-relative path, each with the reason, such as "permission denied". The notes
// in them are missing from the listing.
func (v *Vault) SkippedFolders() map[string]string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return maps.Clone(v.skipped)
}

// walk calls fn for every note, in WalkDir's order. info is the note's target for a symbolic
// link (which walk had to stat to know it is a note), and nil otherwise. skip, when not nil,
// is called for each note whose path CleanPath refuses or changes, apart from hidden ones.
//
// A folder it cannot read, such as lost+found or another user's folder, is left out and
// recorded for SkippedFolders: the rest of the vault is still listed. Only the vault folder
// itself must be readable.
//
// It checks each name once, where it finds it, rather than the whole path of every note: a
// path is one CleanPath returns as it is exactly when its folder's path is and its own name
// passes (see servableName). So it remembers the few folders whose path is not, and
// everything under them is not either.
func (v *Vault) walk(fn func(p string, d fs.DirEntry, info fs.FileInfo) error, skip func(p string)) error {
	fsys := v.root.FS()
	skipped := map[string]string{}
	unservable := map[string]bool{} // the folders entered whose path CleanPath refuses or changes
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil && p != "." && d != nil && d.IsDir():
			if why := unreadableFolder(p, err); why != "" {
				skipped[p] = why
			}
			return fs.SkipDir
		case err != nil || p == ".":
			return err
		}
		name := d.Name()
		folder := strings.TrimSuffix(p[:len(p)-len(name)], "/") // "" for the vault's own
		isNote := !d.IsDir() && strings.EqualFold(path.Ext(name), ".md")
		if unservable[folder] || len(p) > MaxPathLen || !servableName(name) {
			switch {
			case hidden(p) && d.IsDir():
				return fs.SkipDir
			case isNote && !hidden(p) && skip != nil:
				skip(p)
			}
			if d.IsDir() {
				unservable[p] = true
			}
			return nil // a folder with a name no path can send is entered, to report its notes
		}
		if !isNote {
			return nil
		}
		if info, ok := noteFile(fsys, p, d); ok {
			return fn(p, d, info)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("listing notes: %w", err)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.skipped = skipped
	return nil
}

// unreadableFolder says why the folder at p, listed in its parent, could not be read, or
// returns "" when it was removed meanwhile. Windows drops a dot or a space at the end of a
// name, so there a folder named "Drafts." is listed but not found when opened, as if removed:
// its name, not a removal, is the reason, and the folders SkippedFolders lists say so.
func unreadableFolder(p string, err error) string {
	if !errors.Is(err, fs.ErrNotExist) {
		return reason(err).Error()
	}
	if name := path.Base(p); strings.HasSuffix(name, ".") || strings.HasSuffix(name, " ") {
		return "its name ends in a dot or a space, which Windows drops, so the folder cannot be opened there; rename it to have its notes indexed"
	}
	return ""
}

// noteFile reports whether the entry d at p, named like a note, is one: a regular file, or a
// symbolic link that leads to one inside the vault (fs.Stat goes through os.Root, which
// refuses the rest). info is the link's target, and nil for a regular file.
func noteFile(fsys fs.FS, p string, d fs.DirEntry) (info fs.FileInfo, ok bool) {
	if d.Type().IsRegular() {
		return nil, true
	}
	info, err := fs.Stat(fsys, p)
	if err != nil || !info.Mode().IsRegular() {
		return nil, false
	}
	return info, true
}

// NotesAfter returns one page of what Notes lists: the first n paths that sort after the
// path after ("" for the first page), and whether more follow. A client pages through a
// vault this way; a 50,000-note vault in one answer would be megabytes.
//
// It reads only the folders it needs, not the whole vault: Notes sorts by bytes, and a
// folder's notes sort together, right after its name and a '/'. So a folder whose notes all
// sort before after is passed over unread.
func (v *Vault) NotesAfter(after string, n int) (page []string, more bool, err error) {
	fsys := v.root.FS()
	var visit func(dir string) error
	visit = func(dir string) error {
		entries, err := fs.ReadDir(fsys, cmp.Or(dir, "."))
		if err != nil {
			if dir == "" {
				return fmt.Errorf("listing notes: %w", err)
			}
			return nil // unreadable or gone: Notes leaves it out too
		}
		// A folder's notes sort as its name plus '/' does: "a b.md" < "a/b.md" < "a.md/x"
		// is byte order, not the order of the names alone.
		key := func(d fs.DirEntry) string {
			if d.IsDir() {
				return d.Name() + "/"
			}
			return d.Name()
		}
		slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(key(a), key(b)) })
		for _, d := range entries {
			p := path.Join(dir, d.Name())
			if clean, err := CleanPath(p); err != nil || clean != p || hidden(p) {
				continue // a name no path can send, and so nothing under it either
			}
			if d.IsDir() {
				// Enter a folder only if some of its notes may sort after after.
				if k := p + "/"; strings.HasPrefix(after, k) || k > after {
					if err := visit(p); err != nil {
						return err
					}
				}
			} else if p > after && strings.EqualFold(path.Ext(p), ".md") {
				if _, ok := noteFile(fsys, p, d); ok {
					page = append(page, p)
				}
			}
			if len(page) > n {
				return errPageFull
			}
		}
		return nil
	}
	if err := visit(""); err != nil && err != errPageFull {
		return nil, false, err
	}
	if len(page) > n {
		return page[:n], true, nil
	}
	return page, false, nil
}

// errPageFull stops NotesAfter once it has found one note more than a page holds.
var errPageFull = errors.New("page full")

// hidden reports whether a name in p starts with a dot, as Obsidian's own folders do.
func hidden(p string) bool {
	return strings.HasPrefix(p, ".") || strings.Contains(p, "/.")
}

// Unservable says why the note at p, found on disk, cannot be served under its name, as
// NoteInfos reports it, or returns nil when it can: a watcher that reports such notes as they
// come and go keeps the same list NoteInfos gives.
func Unservable(p string) error {
	if clean, err := CleanPath(p); err == nil && clean == p {
		return nil
	}
	return unservable(p)
}

// unservable says why the note at p, found on disk, cannot be served under its name, which
// CleanPath refuses or changes. It speaks to the user, who can rename the note.
func unservable(p string) error {
	var why string
	switch {
	case !utf8.ValidString(p):
		why = "is not valid UTF-8, so no tool call can name it"
	case strings.ContainsFunc(p, unicode.IsControl):
		why = "holds a control character, so no tool call can name it"
	case strings.Contains(p, `\`):
		why = "holds a backslash, which tool calls read as a folder separator"
	case len(p) > MaxPathLen:
		why = fmt.Sprintf("is %d bytes long, more than the %d a tool call may send", len(p), MaxPathLen)
	case strings.Contains(p, ":"):
		why = "holds ':', which Windows and Obsidian refuse in a name"
	case strings.ContainsAny(p, forbidden):
		why = fmt.Sprintf("holds one of %s, which Windows and Obsidian refuse in a name", forbidden)
	case strings.HasSuffix(p, " ") || strings.HasSuffix(p, ".") || strings.Contains(p, " /") || strings.Contains(p, "./"):
		why = "has a name ending in a space or a dot, which Windows drops"
	case slices.ContainsFunc(strings.Split(p, "/"), Reserved):
		why = "uses a name Windows keeps for a device (CON, NUL, COM1 and the like)"
	default:
		_, err := CleanPath(p)
		why = fmt.Sprintf("is refused (%v)", err)
	}
	return Refuse(ErrInvalidPath, "not indexed: its path %s; rename the note or its folder to index it", why)
}
