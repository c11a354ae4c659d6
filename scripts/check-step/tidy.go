package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"vaultmcp/scripts/transcript"
)

// The transcripts of steps 8 to 10 write notes into the vault the server serves: with printf,
// as an editor saves, and through create_note. Each note is removed by a later section, so a
// run that passes leaves the vault as it found it. A run stopped part-way, by Ctrl-C or by a
// failing command, would leave some, and the next run would then fail on them (create_note
// refuses a title that is taken): so check-step lists the vault's files before the run, and
// tidy removes what the run added after it.

// listFiles returns every file under dir, as slash-separated paths relative to it. A vault
// that does not exist has none: step 1 serves none.
func listFiles(dir string) (map[string]bool, error) {
	files := map[string]bool{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == dir && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return err
		}
		if !d.IsDir() {
			rel, err := filepath.Rel(dir, path)
			if err != nil {
				return err
			}
			files[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	return files, err
}

// tidy removes the files in vault that were not there before the run and that the transcript
// names: "$VAULT_COPY/Garden/Kohlrabi.md" in a command, "Inbox/CON_.md" in an answer. A new file it
// does not name is not the run's (the reader may be saving notes meanwhile), so it stays.
// tidy says on stderr what it removed and what it left.
func tidy(vault string, before map[string]bool, transcriptText string, stderr io.Writer) {
	after, err := listFiles(vault)
	if err != nil {
		fmt.Fprintf(stderr, "check-step: cannot list the files of %s to remove the notes this run wrote: %v\n", vault, err)
		return
	}
	var removed, left []string
	for _, p := range slices.Sorted(maps.Keys(after)) {
		switch {
		case before[p]:
		case !named(transcriptText, p):
			left = append(left, p)
		default:
			if err := os.Remove(filepath.Join(vault, filepath.FromSlash(p))); err != nil && !errors.Is(err, fs.ErrNotExist) {
				fmt.Fprintf(stderr, "check-step: cannot remove %s, which this run wrote: %v\n", p, err)
				continue
			}
			removed = append(removed, p)
		}
	}
	if len(removed) > 0 {
		fmt.Fprintf(stderr, "check-step: removed what this run wrote into %s and had not removed yet: %s\n", vault, strings.Join(removed, ", "))
	}
	if len(left) > 0 {
		fmt.Fprintf(stderr, "check-step: left in %s, since the transcript does not name them: %s\n", vault, strings.Join(left, ", "))
	}
}

// named reports whether the transcript names the vault path p as a whole path: after
// $VAULT_COPY/, or at the start of a quoted string or a word. "Kohlrabi.md" at the top of the
// vault is not named by "$VAULT_COPY/Garden/Kohlrabi.md".
func named(transcriptText, p string) bool {
	return strings.Contains(transcriptText, "$"+transcript.VaultVar+"/"+p) ||
		strings.Contains(transcriptText, `"`+p) ||
		strings.Contains(transcriptText, " "+p)
}
