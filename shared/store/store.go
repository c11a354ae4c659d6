// Package store is the search index on disk: notes, their sections, and one vector per section,
// in a single SQLite file.
//
// SQLite runs as WebAssembly inside the Go program (github.com/ncruces/go-sqlite3), so there is
// no C compiler to install and the same code builds for every OS. The build used here includes
// sqlite-vec, whose vec0 virtual table holds a coarse form of each vector and whose functions
// compare vectors. Ordinary tables hold everything else, and ordinary SQL joins the two.
//
// The package uses database/sql through the ncruces driver rather than the driver's own
// connection type. A sqlite3.Conn serves one goroutine at a time; database/sql keeps a pool of
// them, so searches run on one connection while a note is written on another. SQLite's
// write-ahead log (WAL) lets those readers carry on while the writer works.
//
// The index is derived data: everything in it can be rebuilt from the vault. That is why every
// note is replaced in one transaction, why a change of embedder empties the index rather than
// mixing vectors from two models, and why a damaged file is best deleted.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	// Sets sqlite3.Binary to a build of SQLite 3.47 that includes sqlite-vec v0.1.6.
	_ "github.com/asg017/sqlite-vec-go-bindings/ncruces"
	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/driver"
	"github.com/tetratelabs/wazero"
)

// Config adjusts Open. The zero Config is ready to use.
type Config struct {
	// CacheDir keeps SQLite's compiled machine code between runs; "" means DefaultCacheDir.
	// Only the first Open in a process uses it. A folder that cannot be created costs
	// start-up time (about a second, compiling again) but is not an error.
	CacheDir string

	// BusyTimeout is how long a statement waits for another connection's lock before it
	// fails; 0 means 5 seconds.
	BusyTimeout time.Duration
}

// A Store is an open index. It is safe for concurrent use.
type Store struct {
	db   *sql.DB
	path string
	lock *os.File // held while the Store is open: one server per index

	// embedder is what the vectors in the index came from, once CheckEmbedder or Reset has
	// confirmed it; nil until then. PutNote and Search refuse to run without it.
	embedder atomic.Pointer[Embedder]

	signs signIndex // the first pass of a search, in memory
	names nameIndex // the notes' names, for completion

	// commitMu is held across a write's commit and the changes to memory that follow it, so
	// that memory changes in the order the transactions committed.
	commitMu sync.Mutex
	// applyNames changes the names in memory as a write commits, as signs.apply changes the
	// signs; nil until the first completion reads them (see CompleteNotes). Guarded by commitMu.
	applyNames func(*signChanges)

	// writes counts the write transactions committed, so that what is kept in memory about
	// the index (wordCounts) knows when it is out of date.
	writes     atomic.Int64
	wordCounts wordCounts

	// write runs fn in one write transaction: transact, unless KeepCompact has wrapped it
	// with what a server that writes while it serves must do at every write.
	write func(ctx context.Context, changes *signChanges, fn func(*sql.Tx) error) error

	// explain puts a failed write in words for the user; nil keeps SQLite's own, until
	// ExplainWriteErrors sets it.
	explain func(error) error
}

// DefaultCacheDir is where compiled SQLite is cached unless Config says otherwise: a folder in
// the user's cache directory, or "" when the system has none.
func DefaultCacheDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "vaultmcp", "wazero")
}

// wasm holds the one-time set-up of the WebAssembly runtime. The ncruces package compiles
// SQLite at the first connection in a process (about a second), with whatever runtime
// configuration is set at that moment, so the configuration must come first, and only once.
var wasm struct {
	once sync.Once
	err  error
}

func prepareWasm(cacheDir string) error {
	wasm.once.Do(func() {
		// 4096 pages of 64 KiB cap each connection at 256 MiB, the limit ncruces sets when
		// it makes the configuration itself.
		cfg := wazero.NewRuntimeConfig().WithMemoryLimitPages(4096)
		if cacheDir == "" {
			cacheDir = DefaultCacheDir()
		}
		if cacheDir != "" {
			if cache, err := wazero.NewCompilationCacheWithDir(cacheDir); err == nil {
				cfg = cfg.WithCompilationCache(cache)
			}
		}
		sqlite3.RuntimeConfig = cfg
		wasm.err = sqlite3.Initialize()
	})
	return wasm.err
}

// maxConns bounds the connection pool. Each connection is a separate SQLite instance in
// WebAssembly, with its own memory and page cache, so a few are enough: one writer (SQLite
// allows only one at a time) and searches beside it.
const maxConns = 4

// Open opens the index in the file at path, creating the file and its tables if they do not
// exist. An index opened for the first time holds no embedder yet: call CheckEmbedder (and
// Reset when it says so) before PutNote or Search.
//
// One Store at a time may have an index open, in this process or any other: Open first locks
// the file path+".lock", and refuses an index another Store holds before reading a byte of it.
// Close, or the end of the process, lets it go.
//
// An error from Open says what is wrong with the file and what to do about it.
func Open(ctx context.Context, path string, cfg Config) (s *Store, err error) {
	// An absolute path makes the messages unambiguous, and keeps a name that starts with
	// "file:" from being read as a URI.
	path, err = filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("index path: %w", err)
	}
	if err := notAFile(path); err != nil {
		return nil, err
	}
	held, err := lock(path)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			held.Close()
		}
	}()
	if err := prepareWasm(cfg.CacheDir); err != nil {
		return nil, fmt.Errorf("start SQLite: %w", err)
	}
	if cfg.BusyTimeout == 0 {
		cfg.BusyTimeout = 5 * time.Second
	}

	// The function runs on every new connection: these settings belong to a connection,
	// not to the file. Each connection is a SQLite of its own, with its page cache in its own
	// WebAssembly memory: 4 MiB (SQLite's default is 2 MiB) holds the tables' upper pages and
	// the blob of signs that each write to vec0 reads and writes whole, and the four
	// connections stay within 16 MiB however large the index grows. The write-ahead log is
	// copied into the file every 1,024 pages (4 MiB) and cut back to 4 MiB when it starts
	// again from the top: SQLite otherwise keeps the log at the largest size a burst of writes
	// gave it, often more than the index itself. synchronous = NORMAL syncs the log to disk
	// when it is copied into the file, not at every commit: a power cut may lose the last
	// transactions, never the file's consistency, and the index is derived data, whose next
	// start indexes those notes again.
	db, err := driver.Open(path, func(c *sqlite3.Conn) error {
		if err := c.BusyTimeout(cfg.BusyTimeout); err != nil {
			return err
		}
		return c.Exec(`PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL; PRAGMA cache_size = -4096;
			PRAGMA wal_autocheckpoint = 1024; PRAGMA journal_size_limit = 4194304`)
	})
	if err != nil {
		return nil, fmt.Errorf("open index %s: %w", path, err)
	}
	db.SetMaxOpenConns(maxConns)
	db.SetMaxIdleConns(maxConns)

	s = &Store{db: db, path: path, lock: held}
	s.write = s.transact
	// auto_vacuum = INCREMENTAL lets an index written for weeks give its empty pages back (see
	// giveBack). SQLite applies it to a file without tables, and to an older index at its next
	// VACUUM (see Compact). It is set here, once: asked on every connection, it would wait for
	// the write lock a writer holds.
	if _, err := db.ExecContext(ctx, `PRAGMA auto_vacuum = INCREMENTAL`); err != nil {
		db.Close()
		return nil, openError(path, err)
	}
	if err := s.init(ctx); err != nil {
		db.Close()
		return nil, openError(path, err)
	}
	return s, nil
}

// Close closes the index, and then lets another Store open it. Searches and writes still
// running fail.
func (s *Store) Close() error {
	return errors.Join(s.db.Close(), s.lock.Close())
}

// Path is the absolute path of the index file.
func (s *Store) Path() string {
	return s.path
}

// notAFile refuses a path that exists but is no file to keep an index in: a folder, a device,
// a named pipe. Open asks before it creates anything, the lock file included, so a mistyped
// -db leaves nothing behind; and SQLite, given a named pipe, would wait for a writer forever.
func notAFile(path string) error {
	info, err := os.Stat(path)
	switch {
	case err != nil:
		return nil // a missing file becomes the index; lock reports what else stands in the way
	case info.IsDir():
		return fmt.Errorf("index %s is a folder: give the path of a file in it with %s, such as %s", path, chooseDB, filepath.Join(path, "index.db"))
	case !info.Mode().IsRegular():
		return fmt.Errorf("index %s is not a regular file but a %s: choose an index file with %s", path, fileKind(info.Mode()), chooseDB)
	}
	return nil
}

// fileKind names the sort of file that mode describes, for notAFile's message.
func fileKind(mode fs.FileMode) string {
	switch {
	case mode&fs.ModeNamedPipe != 0:
		return "named pipe"
	case mode&fs.ModeSocket != 0:
		return "socket"
	case mode&fs.ModeDevice != 0:
		return "device"
	}
	return "special file"
}

// errForeign reports a SQLite database that vaultmcp did not create. Open refuses to add its
// tables to someone else's data.
var errForeign = errors.New("not a vaultmcp index")

// openError turns what SQLite reports into what the user should do; chooseDB says how every
// step of vaultmcp chooses the file.
func openError(path string, err error) error {
	switch {
	case errors.Is(err, errForeign):
		return fmt.Errorf("%s is a SQLite database that vaultmcp did not create: choose another index file with %s", path, chooseDB)
	case errors.Is(err, sqlite3.BUSY), errors.Is(err, sqlite3.LOCKED):
		return fmt.Errorf("index %s is locked by another program: stop the other vaultmcp using it, or choose another index file with %s (%w)", path, chooseDB, err)
	case errors.Is(err, sqlite3.NOTADB), errors.Is(err, sqlite3.CORRUPT):
		return fmt.Errorf("%s is not a SQLite database, or it is damaged: if it is vaultmcp's index, delete it (it will be rebuilt); otherwise choose another index file with %s (%w)", path, chooseDB, err)
	case errors.Is(err, sqlite3.READONLY):
		return fmt.Errorf("index %s cannot be written: give vaultmcp write access to it and its folder, or choose another index file with %s (%w)", path, chooseDB, err)
	case errors.Is(err, sqlite3.CANTOPEN):
		// SQLite does not say why it cannot open a file; the file system does.
		if _, statErr := os.Stat(filepath.Dir(path)); errors.Is(statErr, fs.ErrNotExist) {
			return fmt.Errorf("folder %s does not exist: create it, or choose another index file with %s", filepath.Dir(path), chooseDB)
		}
		return fmt.Errorf("cannot open index %s: check that vaultmcp may create and write files in %s, or choose another index file with %s (%w)", path, filepath.Dir(path), chooseDB, err)
	}
	return fmt.Errorf("open index %s: %w", path, err)
}

// transact runs fn in a transaction that holds SQLite's write lock from its first statement.
// The driver begins a transaction of isolation level Serializable with BEGIN IMMEDIATE: it
// waits (up to the busy timeout) for the lock at the start. A plain BEGIN would take the lock
// only at the first write, and fail at once if another connection had written in between.
//
// A transaction that writes the vectors table records what it did in changes (nil for one
// that does not), and the signs in memory change the same way once it has committed.
func (s *Store) transact(ctx context.Context, changes *signChanges, fn func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelSerializable})
	if err != nil {
		return s.failed(err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return s.failed(err)
	}
	return s.failed(s.commit(tx, changes))
}

// failed returns err, the error of a write, in words if ExplainWriteErrors asked for them.
func (s *Store) failed(err error) error {
	if err == nil || s.explain == nil {
		return err
	}
	return s.explain(err)
}

// commit commits tx and then makes the signs and names in memory match what it did.
func (s *Store) commit(tx *sql.Tx, changes *signChanges) error {
	s.commitMu.Lock()
	defer s.commitMu.Unlock()
	if err := tx.Commit(); err != nil {
		return err
	}
	s.writes.Add(1)
	if changes != nil {
		s.signs.apply(changes)
		if s.applyNames != nil {
			s.applyNames(changes)
		}
	}
	return nil
}
