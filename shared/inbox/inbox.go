// Package inbox makes the one write the server will ever make: a new note in the inbox
// folder, from a title, a body and tags that a model sent.
//
// The model may be confused or hostile, so:
//
//   - it sends a title, never a path: FileName makes a file name from it that is valid on
//     every operating system, and the note always lands in the inbox folder;
//   - the note is created exclusively, through an os.Root: an existing file, or a symbolic
//     link in its place, is never written to, not even when two requests race;
//   - nothing is ever edited or deleted, with one exception: a note this package has just
//     created and could not finish writing;
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

// refusal is an error whose text is written for the model and which matches one kind.
type refusal struct {
	kind error
	msg  string
}

func (e *refusal) Error() string { return e.msg }
func (e *refusal) Unwrap() error { return e.kind }

func refuse(kind error, format string, args ...any) error {
	return &refusal{kind: kind, msg: fmt.Sprintf(format, args...)}
}

// An Inbox is the folder of a vault where new notes are created. It is safe for concurrent
// use.
type Inbox struct {
	root   *os.Root // the vault folder
	folder string   // the inbox, vault-relative, '/'-separated
	// escapes is the error os.Root returns for a path that leads outside it; the os package
	// does not export it, so Open learns it by asking for "..".
	escapes error
}

// Open opens the inbox folder of v, a vault-relative path such as DefaultFolder, and makes
// the folder if it is missing.
func Open(v *vault.Vault, folder string) (*Inbox, error) {
	clean, err := vault.PortablePath(folder)
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
	in := &Inbox{root: root, folder: clean, escapes: errors.Unwrap(err)}
	if err := in.mkdir(); err != nil {
		root.Close()
		return nil, err
	}
	return in, nil
}

// Close releases the vault folder.
func (in *Inbox) Close() error { return in.root.Close() }

// Folder returns the inbox folder, vault-relative.
func (in *Inbox) Folder() string { return in.folder }

// Create writes a new note named after title into the inbox, with tags in its frontmatter
// and content as its body, and returns its vault-relative path. It never overwrites: if a
// note of that name exists, it returns an ErrExists refusal.
func (in *Inbox) Create(title, content string, tags []string) (string, error) {
	name, err := FileName(title)
	if err != nil {
		return "", err
	}
	if err := checkContent(content); err != nil {
		return "", err
	}
	tags, err = cleanTags(tags)
	if err != nil {
		return "", err
	}
	text, err := noteText(content, tags)
	if err != nil {
		return "", err
	}

	// The user may have deleted the inbox folder since Open; make it again.
	if err := in.mkdir(); err != nil {
		return "", err
	}
	note := path.Join(in.folder, name)
	file := filepath.FromSlash(note)
	// O_EXCL makes the OS refuse a name that exists, as one atomic step: there is no moment
	// between checking and creating for another request to slip into. It refuses a symbolic
	// link of that name too, even one that points nowhere, instead of following it.
	f, err := in.root.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	switch {
	case errors.Is(err, fs.ErrExist):
		return "", refuse(ErrExists, "a note named %q already exists in %q; choose another title", name, in.folder)
	case errors.Is(err, in.escapes):
		return "", in.outside()
	case err != nil:
		return "", fmt.Errorf("note %q could not be created: %w", note, reason(err))
	}
	_, err = f.WriteString(text)
	if closeErr := f.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		// The disk is full, or the like. The file is ours (O_EXCL: it did not exist a moment
		// ago), so removing it edits nothing of the user's. Left behind, a truncated note
		// would look finished, and would make the model's retry fail as existing.
		if in.root.Remove(file) != nil {
			return "", fmt.Errorf("note %q was only partly written, and could not be removed: %w", note, reason(err))
		}
		return "", fmt.Errorf("note %q could not be written, so it was not created: %w", note, reason(err))
	}
	return note, nil
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
	case errors.Is(err, fs.ErrExist):
		return fmt.Errorf("the inbox folder %q is a file, not a folder; no note can be created", in.folder)
	}
	return fmt.Errorf("the inbox folder %q could not be made: %w", in.folder, reason(err))
}

func (in *Inbox) outside() error {
	return refuse(vault.ErrOutside, "the inbox folder %q leads outside the vault through a symbolic link; notes are only created inside the vault", in.folder)
}

// reason keeps the OS's reason ("no space left on device") and drops the rest of a
// *fs.PathError.
func reason(err error) error {
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		return pe.Err
	}
	return err
}
