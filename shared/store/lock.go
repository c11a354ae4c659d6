package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// errLocked is what lockFile returns when another process holds the lock.
var errLocked = errors.New("locked by another process")

// chooseDB is how a user picks another index file. Every step takes the flag, with the
// variable as its fallback, and a user may have set either: make step and the clients'
// configurations set the variable, so an error that named only the flag would send them
// looking for a flag they never typed.
const chooseDB = "-db or VAULTMCP_DB"

// lock takes the lock file beside the index at path, so that one server at a time uses the
// index. SQLite's own locks keep two writers from corrupting the file, but not from undoing
// each other's work: a second server would check the embedder and empty the index, or write
// notes under the first. So a second server is refused before it opens the database.
//
// The operating system holds the lock for the open file, and drops it when the file is
// closed or the process ends, however it ends: a crash or a kill -9 leaves nothing to clean
// up. The lock file itself stays, empty; deleting it would let two servers lock two files of
// the same name.
func lock(path string) (*os.File, error) {
	name := path + ".lock"
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("folder %s does not exist: create it, or choose another index file with %s", filepath.Dir(path), chooseDB)
	case err != nil:
		return nil, fmt.Errorf("cannot create the index's lock file %s: check that vaultmcp may create and write files in %s, or choose another index file with %s (%w)",
			name, filepath.Dir(path), chooseDB, err)
	}
	if err := lockFile(f); err != nil {
		f.Close()
		if errors.Is(err, errLocked) {
			return nil, fmt.Errorf("the index %s is in use by another vaultmcp server (it holds %s): stop that server (a client such as Claude Desktop may have started it), or give this one its own index with %s",
				path, name, chooseDB)
		}
		return nil, fmt.Errorf("cannot lock the index %s through %s: %w", path, name, err)
	}
	return f, nil
}
