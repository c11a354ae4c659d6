// Package inbox makes the one new file the server will ever make: a new note in the inbox
// folder, from a title, a body and tags that a model sent. (The server's other write,
// shared/edit's, only adds to a note that exists.)
//
// The model may be confused or hostile, so:
//
//   - it sends a title, never a path: FileName makes a file name from it that is valid on
//     every operating system, and the note always lands in the inbox folder;
//   - the note is created exclusively, through an os.Root: an existing file, or a symbolic
//     link in its place, is never written to, not even when two requests race;
//   - the note appears whole or not at all (see shared/atomicfile): no watcher, editor or sync
//     tool ever sees it empty, and a crash leaves no half-written note;
//   - a name that differs from an existing one only in case or in how its accents are
//     encoded is refused too: macOS would take the two for one file (Windows too, for
//     case), and elsewhere they would be two notes whose names look the same;
//   - the inbox folder is made when the first note is saved, never before: a server that
//     only reads makes no change to the vault;
//   - nothing is ever overwritten or deleted;
//   - the frontmatter is written by the YAML library, never pieced together from strings,
//     and is read back before the note is written, so no tag can inject a property;
//   - every argument is bounded, and every refusal is an error worded for the model.
package inbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/text/unicode/norm"

	"vaultmcp/shared/atomicfile"
	"vaultmcp/shared/vault"
)

// DefaultFolder is the inbox folder when the user names none.
const DefaultFolder = "Inbox"

// The kinds of refusal. Callers match them with errors.Is; the error's text is the message
// meant for the model. An inbox folder that leads out of the vault is a vault.ErrOutside.
var (
	ErrInvalid = errors.New("invalid note") // a title, content or tag the model can fix
	ErrExists  = errors.New("note exists")  // a note with that name is already in the inbox
)

// ErrReadOnly is a failure to write because this server may not: a vault on a read-only
// mount, or a folder its user cannot write to. Only the user can change that.
var ErrReadOnly = errors.New("cannot write")

// An Inbox is the folder of a vault where new notes are created. It is safe for concurrent
// use.
type Inbox struct {
	root   *os.Root // the vault folder
	folder string   // the inbox, vault-relative, '/'-separated
	// escapes is the error os.Root returns for a path that leads outside it; the os package
	// does not export it, so Open learns it by asking for "..".
	escapes error
	// creating is held from checking a name to creating the file, so that two requests
	// cannot both find no twin of each other's name and both create theirs.
	creating sync.Mutex
}

// Open opens the inbox folder of v, a vault-relative path such as DefaultFolder. It checks
// the path and writes nothing: the folder is made when the first note is created. Whatever
// may stand in the way on disk (a file of that name, a link out of the vault, a vault this
// server may only read) is Create's to report, so that a server which only reads starts all
// the same.
func Open(v *vault.Vault, folder string) (*Inbox, error) {
	clean, err := vault.CleanPath(folder)
	if err != nil {
		return nil, fmt.Errorf("inbox folder: %w", err)
	}
	// Every note path must stay readable by get_note, which accepts vault.MaxPathLen bytes.
	if limit := vault.MaxPathLen - len("/") - maxName; len(clean) > limit {
		return nil, fmt.Errorf("inbox folder is %d bytes long; at most %d leave room for the notes' names", len(clean), limit)
	}
	// The vault keeps its os.Root to itself, so the inbox opens its own on the same folder.
	root, err := os.OpenRoot(v.Dir())
	if err != nil {
		return nil, fmt.Errorf("inbox: %w", err)
	}
	_, err = root.Stat("..")
	return &Inbox{root: root, folder: clean, escapes: errors.Unwrap(err)}, nil
}

// Close releases the vault folder.
func (in *Inbox) Close() error { return in.root.Close() }

// Folder returns the inbox folder, vault-relative.
func (in *Inbox) Folder() string { return in.folder }

// Create writes a new note named after title into the inbox, with tags in its frontmatter
// and content as its body, and returns its vault-relative path. It never overwrites: if a
// note of that name exists, it returns an ErrExists refusal.
func (in *Inbox) Create(title, content string, tags []string) (string, error) {
	name, text, err := newNote(title, content, tags)
	if err != nil {
		return "", err
	}

	// The folder is made with the first note, and again if the user has deleted it since.
	if err := in.mkdir(); err != nil {
		return "", err
	}
	in.creating.Lock()
	defer in.creating.Unlock()
	if err := in.checkTwins(name); err != nil {
		return "", err
	}
	note := path.Join(in.folder, name)
	// The note is written whole to a temporary file, flushed to the disk, and only then given
	// its name, by a hard link: the OS refuses a name that exists, in the same step, so
	// there is no moment between checking and creating for another request to slip into, and
	// no moment in which the watcher, Obsidian or a sync tool could see the note empty or half
	// written. A symbolic link of that name, even one that points nowhere, is refused too,
	// instead of followed.
	err = atomicfile.Create(in.root, filepath.FromSlash(note), []byte(text), 0o666)
	switch {
	case errors.Is(err, fs.ErrExist):
		return "", vault.Refuse(ErrExists, "a note named %q already exists in %q; choose another title", name, in.folder)
	case errors.Is(err, in.escapes):
		return "", in.outside()
	case errors.Is(err, fs.ErrPermission), errors.Is(err, syscall.EROFS):
		return "", in.writeError(fmt.Sprintf("note %q could not be created", note), err)
	case err != nil:
		// The disk is full, or the like: the note was never given its name.
		return "", fmt.Errorf("note %q could not be written, so it was not created: %w", note, reason(err))
	}
	return note, nil
}

// checkTwins refuses name when the inbox holds a name that differs from it only in case or
// in Unicode normalisation: "Plan.md" and "PLAN.md", or "Café.md" with "é" as one character
// (NFC, what models and Windows write) and as "e" and an accent (NFD, what older Macs
// write). Linux keeps both kinds of pair apart. macOS takes each pair for one file, and so
// does Windows for a pair that differs in case; a pair that differs in encoding only is two
// files on Windows, as on Linux, whose names look exactly alike. Either way a vault synced
// between them would lose one note, or show two that the user cannot tell apart.
func (in *Inbox) checkTwins(name string) error {
	entries, err := fs.ReadDir(in.root.FS(), in.folder)
	if err != nil {
		return in.writeError(fmt.Sprintf("the inbox folder %q could not be listed", in.folder), err)
	}
	want := norm.NFC.String(name)
	for _, e := range entries {
		other := e.Name()
		if other == name || !strings.EqualFold(norm.NFC.String(other), want) {
			continue
		}
		var how string
		switch {
		case strings.EqualFold(other, name):
			how = "only in case: one file on macOS and Windows"
		case norm.NFC.String(other) == want:
			how = "only in how its accents are encoded: one file on macOS, and two names that look the same elsewhere"
		default:
			how = "only in case and in how its accents are encoded: one file on macOS"
		}
		return vault.Refuse(ErrExists, "a note named %q already exists in %q, and %q differs from it %s; choose another title", other, in.folder, name, how)
	}
	return nil
}

// mkdir makes the inbox folder if it is missing. os.Root refuses a folder, or a folder on
// the way to it, that is a symbolic link leading out of the vault.
func (in *Inbox) mkdir() error {
	err := in.root.MkdirAll(filepath.FromSlash(in.folder), 0o777)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, in.escapes):
		return in.outside()
	case errors.Is(err, fs.ErrExist), errors.Is(err, syscall.ENOTDIR):
		return fmt.Errorf("the inbox folder %q cannot be made: a file stands in its way; no note can be created until the user moves that file or chooses another inbox folder with -inbox", in.folder)
	}
	return in.writeError(fmt.Sprintf("the inbox folder %q could not be made", in.folder), err)
}

// writeError says what could not be done and why. When the reason is that this server may
// not write there, it says what the model should do: tell the user, who alone can change it.
func (in *Inbox) writeError(what string, err error) error {
	if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) {
		return vault.Refuse(ErrReadOnly, "%s: this server may not write in the vault (%v); tell the user, who can give it write access or choose another inbox folder with -inbox",
			what, reason(err))
	}
	return fmt.Errorf("%s: %w", what, reason(err))
}

func (in *Inbox) outside() error {
	return vault.Refuse(vault.ErrOutside, "the inbox folder %q leads outside the vault through a symbolic link; notes are only created inside the vault", in.folder)
}

// reason keeps the OS's reason ("no space left on device") and drops the rest of a
// *fs.PathError.
func reason(err error) error {
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		return pe.Err
	}
	return err
}
