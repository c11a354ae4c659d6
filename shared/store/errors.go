package store

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/ncruces/go-sqlite3"
)

// ExplainWriteErrors makes every write that fails say, in words the user can act on, what
// went wrong and what to do, where SQLite says "disk I/O error" (see writeError). Call it once,
// after Open and before the index is shared with other goroutines. The words are written for
// a server that retries what failed: they say so.
func (s *Store) ExplainWriteErrors() {
	s.explain = s.writeError
}

// writeFailure is a failed write, said in words: what happened and what to do.
type writeFailure struct {
	what string
	err  error
}

func (e *writeFailure) Error() string { return fmt.Sprintf("%s (%v)", e.what, e.err) }
func (e *writeFailure) Unwrap() error { return e.err }

// writeError says what a failed write means for the user, when its cause lies outside the
// program: a full disk, an index it may not write, another program holding it, a damaged
// file. SQLite's own words ("disk I/O error") say none of that. The text reaches index_status
// and search results, so it names no path; the log gives the index's.
func (s *Store) writeError(err error) error {
	if _, ok := errors.AsType[*writeFailure](err); ok {
		return err
	}
	var what string
	switch {
	// SQLite in WebAssembly reports a write the disk refused as an I/O error, whatever the
	// reason; the free space tells a full disk apart.
	case errors.Is(err, sqlite3.FULL), errors.Is(err, sqlite3.IOERR) && diskFull(filepath.Dir(s.path)):
		what = "the disk that holds the index is full: free some space; what failed is written again"
	case errors.Is(err, sqlite3.IOERR):
		what = "the disk could not write the index: check that it is connected, healthy and not full"
	case errors.Is(err, sqlite3.READONLY):
		what = "the index may not be written: give vaultmcp write access to the index file and its folder"
	case errors.Is(err, sqlite3.BUSY), errors.Is(err, sqlite3.LOCKED):
		what = "the index is locked by another program, such as a database browser: close it"
	case errors.Is(err, sqlite3.CORRUPT), errors.Is(err, sqlite3.NOTADB):
		what = "the index file is damaged: stop the server and delete the file (the log names it); the next start builds it again"
	default:
		return err
	}
	return &writeFailure{what, err}
}
