package store

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ncruces/go-sqlite3"
)

// openFails checks that Open fails for path with an error that contains each of want.
func openFails(t *testing.T, path string, cfg Config, want ...string) {
	t.Helper()
	s, err := Open(t.Context(), path, cfg)
	if err == nil {
		s.Close()
		t.Fatalf("Open(%s) succeeded", path)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("Open(%s): %v\nwant an error containing %q", path, err, w)
		}
	}
}

// rawConn opens a connection to path that goes around Store, as another program would.
func rawConn(t *testing.T, path string) *sqlite3.Conn {
	t.Helper()
	if err := prepareWasm(""); err != nil {
		t.Fatal(err)
	}
	c, err := sqlite3.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestOpenNotADatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "index.db")
	garbage := bytes.Repeat([]byte("this is not a database\n"), 500)
	if err := os.WriteFile(path, garbage, 0o644); err != nil {
		t.Fatal(err)
	}
	openFails(t, path, Config{}, path, "not a SQLite database, or it is damaged", "delete it", "choose another index file with -db or VAULTMCP_DB")
	if got, _ := os.ReadFile(path); !bytes.Equal(got, garbage) {
		t.Error("Open changed a file that is not an index")
	}
}

// TestOpenFolder: a -db that names a folder is refused before anything is created, so the
// reader who removes the folder removes everything the attempt made.
func TestOpenFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "scratch")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	openFails(t, dir, Config{}, dir+" is a folder", filepath.Join(dir, "index.db"), "-db or VAULTMCP_DB")
	nothingBeside(t, dir)
}

// nothingBeside fails if anything but path is in its folder, such as a lock file left behind.
func nothingBeside(t *testing.T, path string) {
	t.Helper()
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != filepath.Base(path) {
			t.Errorf("Open(%s) refused the path, but left %s beside it", path, e.Name())
		}
	}
}

func TestOpenMissingFolder(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no", "such")
	openFails(t, filepath.Join(missing, "index.db"), Config{}, "folder "+missing+" does not exist", "create it", "-db or VAULTMCP_DB")
}

func TestOpenLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "index.db")
	s, err := Open(t.Context(), path, Config{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()

	// Another program holds the write lock, in the middle of a long write.
	other := rawConn(t, path)
	if err := other.Exec(`BEGIN EXCLUSIVE; INSERT INTO meta VALUES ('other', 'writing')`); err != nil {
		t.Fatal(err)
	}
	openFails(t, path, Config{BusyTimeout: 100 * time.Millisecond},
		"index "+path+" is locked by another program", "stop the other vaultmcp", "choose another index file with -db or VAULTMCP_DB")

	if err := other.Exec(`ROLLBACK`); err != nil {
		t.Fatal(err)
	}
	s, err = Open(t.Context(), path, Config{BusyTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatalf("Open once the lock is released: %v", err)
	}
	s.Close()
}

func TestOpenForeignDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app.db")
	other := rawConn(t, path)
	if err := other.Exec(`CREATE TABLE accounts (id INTEGER PRIMARY KEY, name TEXT)`); err != nil {
		t.Fatal(err)
	}
	openFails(t, path, Config{}, path+" is a SQLite database that vaultmcp did not create", "choose another index file with -db or VAULTMCP_DB")

	stmt, _, err := other.Prepare(`SELECT (SELECT journal_mode FROM pragma_journal_mode), (SELECT count(*) FROM sqlite_schema)`)
	if err != nil {
		t.Fatal(err)
	}
	defer stmt.Close()
	if !stmt.Step() {
		t.Fatal(stmt.Err())
	}
	if mode, tables := stmt.ColumnText(0), stmt.ColumnInt(1); mode != "delete" || tables != 1 {
		t.Errorf("Open changed a database it did not create: journal mode %s, %d tables", mode, tables)
	}
}

func TestOpenEmptyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "index.db")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s := openIndex(t, path) // an empty file is an empty database: it becomes an index
	put(t, s, Note{Path: "a.md"}, []float32{1, 0, 0, 0})
}

// Several goroutines may open indexes at once: the WebAssembly runtime is set up once.
func TestOpenConcurrently(t *testing.T) {
	dir := t.TempDir()
	errs := make(chan error, 4)
	for i := range 4 {
		go func() {
			s, err := Open(t.Context(), filepath.Join(dir, string(rune('a'+i))+".db"), Config{})
			if err == nil {
				err = s.Close()
			}
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// With the write-ahead log, a search does not wait for another program's write: it reads the
// index as it was before that write began.
func TestSearchDuringAnotherProgramsWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "index.db")
	s := openIndex(t, path)
	put(t, s, Note{Path: "a.md"}, []float32{1, 0, 0, 0})

	other := rawConn(t, path)
	if err := other.Exec(`BEGIN IMMEDIATE; DELETE FROM sections`); err != nil {
		t.Fatal(err)
	}
	defer other.Exec(`ROLLBACK`)
	hits, err := s.Search(t.Context(), []float32{1, 0, 0, 0}, 1)
	if err != nil || len(hits) != 1 {
		t.Errorf("a search while another program writes: %v, %v; want a.md", hits, err)
	}
}
