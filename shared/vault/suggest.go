package vault

import (
	"cmp"
	"path"
	"slices"
	"strings"
	"unicode/utf8"
)

// Suggest returns up to n existing note paths that look like the note path p, best first,
// so that a "not found" error can tell the model what to send instead. In order:
//
//  1. the same path in another case ("projects/plan.md" for "Projects/Plan.md"),
//  2. the same name in another folder ("Archive/Plan.md"),
//  3. a similar name: a few typos away, or one name the start of the other ("Planning.md").
//
// Ties go to notes in the same folder, then to the alphabet. Names are compared without
// case and without ".md". The cost is one walk of the vault and a cheap comparison per note,
// paid only when a note is not found.
func (v *Vault) Suggest(p string, n int) []string {
	if n <= 0 {
		return nil
	}
	notes, err := v.Notes()
	if err != nil {
		return nil
	}
	want := strings.ToLower(p)
	wantDir, wantName := split(want)
	wantLen := utf8.RuneCountInString(wantName)
	maxTypos := wantLen/3 + 1

	type match struct {
		path             string
		rank, dist, away int // away is 0 in p's folder, 1 elsewhere
	}
	var matches []match
	for _, note := range notes {
		lower := strings.ToLower(note)
		dir, name := split(lower)
		m := match{path: note}
		if dir != wantDir {
			m.away = 1
		}
		switch {
		case lower == want:
			m.rank = 0
		case name == wantName:
			m.rank = 1
		default:
			m.rank = 2
			prefix := strings.HasPrefix(name, wantName) || strings.HasPrefix(wantName, name)
			// Names whose lengths differ by more than maxTypos cannot be close enough:
			// skip the edit distance for them, which keeps large vaults cheap.
			nameLen := utf8.RuneCountInString(name)
			if !prefix && max(nameLen, wantLen)-min(nameLen, wantLen) > maxTypos {
				continue
			}
			m.dist = distance(name, wantName)
			if !prefix && m.dist > maxTypos {
				continue
			}
		}
		matches = append(matches, m)
	}

	slices.SortFunc(matches, func(a, b match) int {
		return cmp.Or(
			cmp.Compare(a.rank, b.rank),
			cmp.Compare(a.dist, b.dist),
			cmp.Compare(a.away, b.away),
			strings.Compare(a.path, b.path),
		)
	})
	var paths []string
	for _, m := range matches[:min(n, len(matches))] {
		paths = append(paths, m.path)
	}
	return paths
}

// split returns the folder of a note path and its name without ".md".
func split(note string) (dir, name string) {
	dir, file := path.Split(note)
	return dir, strings.TrimSuffix(file, ".md")
}

// distance is the Levenshtein distance between a and b: the fewest single-rune insertions,
// deletions and substitutions that turn one into the other. It keeps two rows of the table.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev, cur := make([]int, len(rb)+1), make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := range ra {
		cur[0] = i + 1
		for j := range rb {
			substitute := prev[j]
			if ra[i] != rb[j] {
				substitute++
			}
			cur[j+1] = min(prev[j+1]+1, cur[j]+1, substitute)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
