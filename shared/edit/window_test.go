package edit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkRaceWindow times what runs between the last check of a note's version and the
// rename that puts the new note in its place: reading the note, hashing it, and the rename. An
// editor that saves by writing into the file, rather than renaming a new one over it, and
// saves within that time, loses its save. The note is 10 KiB, a long note by most vaults'
// measure.
func BenchmarkRaceWindow(b *testing.B) {
	dir := b.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer root.Close()
	note := []byte(strings.Repeat("A line of a long note, with some words in it.\n", 10<<10/47))
	write(b, filepath.Join(dir, "Note.md"), string(note))
	want := Version(note)
	for b.Loop() {
		b.StopTimer()
		write(b, filepath.Join(dir, "next.tmp"), string(note))
		b.StartTimer()
		current, err := readFile(root, "Note.md")
		if err != nil || Version(current) != want {
			b.Fatal("the version changed", err)
		}
		if err := root.Rename("next.tmp", "Note.md"); err != nil {
			b.Fatal(err)
		}
	}
}
