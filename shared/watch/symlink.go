package watch

import (
	"path/filepath"
)

// symlinks keeps the notes that are symbolic links to other files of the vault, by the path
// each leads to. Saving the note a link leads to makes events for that note's own name only,
// yet the link's note changed with it, as vault.Notes and the index see it: the Watcher settles
// both. (Polling needs none of this: it stats each note through its link.)
type symlinks struct {
	dir  string                     // the vault folder with every link in its own path resolved
	to   map[string]map[string]bool // by the path a link leads to, the links
	from map[string]string          // by link, the path it leads to
}

func newSymlinks(dir string) symlinks {
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return symlinks{dir: dir, to: map[string]map[string]bool{}, from: map[string]string{}}
}

// set records whether the note at p is a link and, if so, where it leads now. A link that
// leads outside the vault, or nowhere, is not recorded: it is not a note.
func (s *symlinks) set(p string, isLink bool) {
	if old, ok := s.from[p]; ok {
		delete(s.to[old], p)
		if len(s.to[old]) == 0 {
			delete(s.to, old)
		}
		delete(s.from, p)
	}
	if !isLink {
		return
	}
	real, err := filepath.EvalSymlinks(filepath.Join(s.dir, filepath.FromSlash(p)))
	if err != nil {
		return
	}
	rel, err := filepath.Rel(s.dir, real)
	if err != nil || !filepath.IsLocal(rel) {
		return
	}
	target := filepath.ToSlash(rel)
	if s.to[target] == nil {
		s.to[target] = map[string]bool{}
	}
	s.to[target][p] = true
	s.from[p] = target
}

func (s *symlinks) clear() {
	clear(s.to)
	clear(s.from)
}
