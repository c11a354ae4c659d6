package store

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ncruces/go-sqlite3"
)

// TestWriteErrorsInWords: a write that fails for a cause outside the program says which, and
// what to do, and still matches SQLite's code.
func TestWriteErrorsInWords(t *testing.T) {
	s := newIndex(t)
	for code, want := range map[sqlite3.ErrorCode]string{
		sqlite3.FULL:     "the disk that holds the index is full: free some space",
		sqlite3.READONLY: "the index may not be written: give vaultmcp write access",
		sqlite3.BUSY:     "the index is locked by another program",
		sqlite3.CORRUPT:  "the index file is damaged: stop the server and delete the file",
		sqlite3.NOTADB:   "the index file is damaged",
		sqlite3.IOERR:    "the disk could not write the index",
	} {
		err := s.writeError(code)
		if !strings.HasPrefix(err.Error(), want) || !errors.Is(err, code) {
			t.Errorf("writeError(%v) = %v; want it to start %q and match the code", code, err, want)
		}
		if again := s.writeError(err); again != err {
			t.Errorf("writeError said %v twice: %v", code, again)
		}
	}
	if err := errors.New("something else"); s.writeError(err) != err {
		t.Error("writeError changed an error it has nothing to say about")
	}
}

// TestFullIndex: SQLite's own "database or disk is full", made by capping the file's pages,
// reaches the caller of PutNote as SQLite says it, or, once ExplainWriteErrors asked, in words;
// either way the note's old version stays whole.
func TestFullIndex(t *testing.T) {
	s := newIndex(t)
	put(t, s, Note{Path: "Kept.md", Title: "Kept", Hash: "1"}, []float32{1, 0, 0, 0})
	s.db.SetMaxOpenConns(1) // the cap belongs to a connection: keep to one
	if _, err := s.db.ExecContext(t.Context(), `PRAGMA max_page_count = 1`); err != nil {
		t.Fatal(err)
	}
	big := Section{Heading: "Big", Text: strings.Repeat("many words of text ", 20000)}
	err := s.PutNote(t.Context(), Note{Path: "Kept.md", Title: "Kept", Hash: "2"}, []Section{big}, [][]float32{{0, 1, 0, 0}})
	if !errors.Is(err, sqlite3.FULL) || strings.Contains(err.Error(), "the disk that holds the index is full") {
		t.Fatalf("PutNote on a full index, before ExplainWriteErrors = %v; want SQLite's own words", err)
	}
	s.ExplainWriteErrors()
	err = s.PutNote(t.Context(), Note{Path: "Kept.md", Title: "Kept", Hash: "2"}, []Section{big}, [][]float32{{0, 1, 0, 0}})
	if !errors.Is(err, sqlite3.FULL) || !strings.Contains(err.Error(), "the disk that holds the index is full") {
		t.Fatalf("PutNote on a full index = %v; want it to say the disk is full", err)
	}
	if hits := search(t, s, []float32{1, 0, 0, 0}, Options{K: 1}); len(hits) != 1 || hits[0].Path != "Kept.md" {
		t.Errorf("after the failed write, search = %v; want the note as it was", paths(hits))
	}
}

// TestDiskFull puts the index on a small file system and fills it: the write fails as an I/O
// error in SQLite's words, and in ours as a full disk. Freed, the same write succeeds.
func TestDiskFull(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a 4 MiB tmpfs here, which needs root on Linux (CI runs as root): %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	s := openIndex(t, filepath.Join(dir, "index.db"))
	s.ExplainWriteErrors()
	put(t, s, Note{Path: "Kept.md", Title: "Kept", Hash: "1"}, []float32{1, 0, 0, 0})

	filler := filepath.Join(dir, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := f.Write(make([]byte, 64<<10)); err != nil {
			break // the disk is full
		}
	}
	f.Close()
	big := []Section{{Heading: "Big", Text: strings.Repeat("many words of text ", 50000)}}
	note := Note{Path: "Big.md", Title: "Big", Hash: "1"}
	err = s.PutNote(t.Context(), note, big, [][]float32{{0, 1, 0, 0}})
	if err == nil || !strings.Contains(err.Error(), "the disk that holds the index is full") {
		t.Fatalf("PutNote on a full disk = %v; want it to say the disk is full", err)
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if err := s.PutNote(t.Context(), note, big, [][]float32{{0, 1, 0, 0}}); err != nil {
		t.Fatalf("PutNote once the disk has room = %v", err)
	}
	checkIntegrity(t, s)
}
