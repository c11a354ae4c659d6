// Package edit adds text to a note that exists, the one change to the user's own notes the
// server ever makes, and makes it so that no word of theirs can be lost:
//
//   - only to the version the model read. A version is the SHA-256 of the note's bytes; the
//     model sends back the one get_note gave it, and a note that has changed since (the user
//     typed in it, another client appended) is refused, for the model to read it again. It is
//     HTTP's entity tag and If-Match, and the same optimistic concurrency: no lock is held
//     while the model thinks, and a conflict is noticed instead of prevented.
//   - at the end of the note, or at the end of one section, found by its heading as
//     shared/markdown reads headings (code fences and comments hold none);
//   - changing no other byte: the frontmatter, the other sections, a byte order mark, the
//     note's line endings (the new text takes them) and a missing final newline stay as they
//     were;
//   - in one atomic replacement (shared/atomicfile), with the version checked once more just
//     before it, and one append at a time to a note, so two appends to one version cannot
//     both land;
//   - and every path goes through the vault's checks: never outside the vault, never through
//     a symbolic link, never a note that does not exist.
//
// Every refusal is an error worded for the model, and leaves the note as it was.
package edit

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"vaultmcp/shared/atomicfile"
	"vaultmcp/shared/inbox"
	"vaultmcp/shared/vault"
)

// The kinds of refusal, besides the vault's own (vault.ErrNotFound, vault.ErrOutside,
// vault.ErrNotNote, vault.ErrTooLarge, vault.ErrInvalidPath) and inbox.ErrInvalid for text no
// note should hold. Callers match them with errors.Is; the error's text is the message meant
// for the model.
var (
	ErrChanged = errors.New("note changed")    // not the version the model read, or a malformed one
	ErrHeading = errors.New("heading unknown") // no such heading, or more than one
)

// MaxHeading bounds the heading argument in bytes: a path of several headings, each of at most
// markdown.MaxHeading bytes as the outline keeps them, fits with room to spare.
const MaxHeading = 1 << 10

// Version returns the version of a note's content: the SHA-256 of its bytes, in lowercase
// hex. Anyone can compute it from the file alone (sha256sum gives the same), so it means the
// same across restarts and servers, and it changes with any byte of the note, whatever the
// clock says.
func Version(content []byte) string {
	sum := sha256.Sum256(content)
	return hex.EncodeToString(sum[:])
}

// An Editor appends to the notes of one vault. It is safe for concurrent use.
type Editor struct {
	notes *vault.Vault
	root  *os.Root // the vault folder, for writing; the vault keeps its own to itself
	// escapes is the error os.Root returns for a path that leads outside it; the os package
	// does not export it, so Open learns it by asking for "..".
	escapes error
	locks   noteLocks
}

// Open returns an Editor for the notes of v. It writes nothing.
func Open(v *vault.Vault) (*Editor, error) {
	root, err := os.OpenRoot(v.Dir())
	if err != nil {
		return nil, fmt.Errorf("edit: %w", err)
	}
	_, err = root.Stat("..")
	return &Editor{notes: v, root: root, escapes: errors.Unwrap(err)}, nil
}

// Close releases the vault folder.
func (e *Editor) Close() error { return e.root.Close() }

// RemoveLeftovers removes the temporary files that writes cut short by a crash left in the
// vault, and returns their paths. Every write of the server, a new note's or an append's,
// goes through one. Call it at start, before the server writes: it walks the vault, and takes
// any temporary file older than that moment for a leftover.
func (e *Editor) RemoveLeftovers(ctx context.Context) ([]string, error) {
	return atomicfile.RemoveLeftovers(ctx, e.root, time.Now())
}

// Append adds text to the note at p, a path sent by a model, if the note's version is still
// ifMatch. With heading "" the text goes at the end of the note; otherwise at the end of that
// section (see Insert). It returns the note's path and its new version.
func (e *Editor) Append(p, text, ifMatch, heading string) (note, version string, err error) {
	if err := checkArgs(text, ifMatch, heading); err != nil {
		return "", "", err
	}
	ifMatch = strings.ToLower(ifMatch)
	note, err = e.notes.Resolve(p)
	if err != nil {
		return "", "", err
	}

	// One append at a time to a note: two that sent the same version are served in turn, and
	// the second finds the version changed by the first.
	defer e.locks.lock(note)()

	// ReadNote refuses a note that is missing (with suggestions), outside the vault, too
	// large, or not text.
	_, content, err := e.notes.ReadNote(note)
	if err != nil {
		return "", "", err
	}
	file := filepath.FromSlash(note)
	if info, err := e.root.Lstat(file); err == nil && info.Mode()&fs.ModeSymlink != 0 {
		// Replacing a link would cut it, and leave the note it leads to as it was.
		return "", "", vault.Refuse(vault.ErrNotNote, "%q is a symbolic link; notes are only added to where they are stored: append to the note it leads to", note)
	}
	if Version(content) != ifMatch {
		return "", "", changed(note)
	}
	updated, err := Insert(note, content, text, heading)
	if err != nil {
		return "", "", err
	}
	if len(updated) > vault.MaxNoteSize {
		return "", "", vault.Refuse(vault.ErrTooLarge, "note %q would be %d bytes with the text added, more than the %d MiB a note may hold; start a new note with create_note instead",
			note, len(updated), vault.MaxNoteSize>>20)
	}

	// The lock keeps out the server's own appends; the user's editor it cannot. So the
	// version is checked once more, as late as it can be: just before the rename.
	err = atomicfile.Replace(e.root, file, updated, func() error {
		current, err := readAgain(e.root, file)
		if err != nil {
			return err
		}
		if Version(current) != ifMatch {
			return changed(note)
		}
		return nil
	})
	if err != nil {
		return "", "", e.writeError(note, err)
	}
	return note, Version(updated), nil
}

// checkArgs refuses the arguments other than the path that no append could take.
func checkArgs(text, ifMatch, heading string) error {
	if err := inbox.CheckText("text", text); err != nil {
		return err
	}
	switch {
	case strings.TrimSpace(text) == "":
		return vault.Refuse(inbox.ErrInvalid, "text is empty; send the Markdown to add")
	case !isVersion(ifMatch):
		return vault.Refuse(ErrChanged, "if_match %q is not a version; send the version that get_note returned for the note, 64 hex digits", clip(ifMatch))
	case len(heading) > MaxHeading:
		return vault.Refuse(ErrHeading, "heading is %d bytes long, more than the limit of %d; send the heading's text, like %q", len(heading), MaxHeading, "Log")
	}
	return nil
}

// readAgain reads the note for the second check of its version. A test replaces it to save
// the note, as a user would, between the two checks.
var readAgain = readFile

func changed(note string) error {
	return vault.Refuse(ErrChanged, "note %q has changed since the version you sent, so nothing was added; read it again with get_note, and send its new version", note)
}

// writeError words a failure to write for the model. The note is unchanged whatever failed.
func (e *Editor) writeError(note string, err error) error {
	switch {
	case errors.Is(err, ErrChanged):
		return err
	case errors.Is(err, fs.ErrNotExist):
		return vault.Refuse(vault.ErrNotFound, "note %q was removed while the text was being added, so nothing was added", note)
	case errors.Is(err, e.escapes):
		return vault.Refuse(vault.ErrOutside, "%q leads outside the vault through a symbolic link; only notes inside the vault are added to", note)
	case errors.Is(err, fs.ErrPermission), errors.Is(err, syscall.EROFS):
		return vault.Refuse(inbox.ErrReadOnly, "note %q is unchanged: this server may not write to it (%v); tell the user, who can make it writable", note, reason(err))
	}
	return fmt.Errorf("note %q is unchanged: the text could not be added: %w", note, reason(err))
}

// readFile reads the note at file, at most one byte more than a note may hold.
func readFile(root *os.Root, file string) ([]byte, error) {
	f, err := root.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, vault.MaxNoteSize+1))
}

// isVersion reports whether s has the form of a version: 64 hex digits.
func isVersion(s string) bool {
	if len(s) != sha256.Size*2 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

// clip shortens a value the model sent before it is quoted back.
func clip(s string) string {
	if len(s) > 80 {
		return strings.ToValidUTF8(s[:80], "") + "…"
	}
	return s
}

// reason keeps the OS's reason ("no space left on device") and drops the rest of an error
// that names the file by its place on disk.
func reason(err error) error {
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		return pe.Err
	}
	if le, ok := errors.AsType[*os.LinkError](err); ok {
		return le.Err
	}
	return err
}

// noteLocks serialises the appends to each note, and holds nothing for a note no append is
// waiting for.
type noteLocks struct {
	mu   sync.Mutex
	held map[string]*noteLock
}

type noteLock struct {
	sync.Mutex
	users int // appends holding or waiting for it
}

// lock waits until no other append to note is under way, and returns the function that lets
// the next one in.
func (l *noteLocks) lock(note string) (unlock func()) {
	l.mu.Lock()
	if l.held == nil {
		l.held = map[string]*noteLock{}
	}
	k := l.held[note]
	if k == nil {
		k = &noteLock{}
		l.held[note] = k
	}
	k.users++
	l.mu.Unlock()

	k.Lock()
	return func() {
		k.Unlock()
		l.mu.Lock()
		if k.users--; k.users == 0 {
			delete(l.held, note)
		}
		l.mu.Unlock()
	}
}
