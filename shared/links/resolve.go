package links

import (
	"path"
	"strings"
)

// target is a link's target, read once when the link is added: what resolving it looks up.
type target struct {
	self       bool   // an empty target: the linking note
	key        string // the path it names, lower-cased, without ".md": "garden/ideas"
	spelled    string // the same path as written, letter case kept: "Garden/Ideas"
	exact      bool   // written from the vault root or the linking note's folder: key is a whole path
	alias      bool   // it may be an alias: a name or path, not a whole path nor written with ".md"
	attachment bool   // it names a file with an attachment extension (".png", ".pdf")
}

// attachmentExts are the extensions of the files besides notes that Obsidian opens and embeds
// (see https://help.obsidian.md/file-formats): images, audio, video, PDF, canvas and base.
var attachmentExts = map[string]bool{
	".avif": true, ".bmp": true, ".gif": true, ".jpeg": true, ".jpg": true, ".png": true, ".svg": true, ".webp": true,
	".flac": true, ".m4a": true, ".mp3": true, ".ogg": true, ".wav": true, ".webm": true, ".3gp": true,
	".mkv": true, ".mov": true, ".mp4": true, ".ogv": true,
	".pdf": true, ".canvas": true, ".base": true,
}

// parseTarget reads the target of a link written in the note at from.
func parseTarget(from, raw string) target {
	raw, _, _ = strings.Cut(raw, "#")
	if raw == "" {
		return target{self: true}
	}
	p, exact := targetPath(from, raw)
	return target{
		key:        lower(trimMD(p)),
		spelled:    trimMD(p),
		exact:      exact,
		alias:      !exact && trimMD(raw) == raw,
		attachment: attachmentExts[lower(path.Ext(p))],
	}
}

// targetPath returns the vault path that a target names from the note at from, and whether
// that path is whole: written from the vault root or from the note's folder.
func targetPath(from, raw string) (p string, exact bool) {
	switch {
	case strings.HasPrefix(raw, "./") || strings.HasPrefix(raw, "../"):
		// A path that climbs out of the vault keeps its leading "../" and matches no note.
		return path.Join(path.Dir(from), raw), true
	case strings.HasPrefix(raw, "/"):
		return strings.TrimLeft(raw, "/"), true
	}
	return raw, false
}

// name returns the last element of the target's path: the notes to choose among.
func (t target) name() string { return t.key[strings.LastIndexByte(t.key, '/')+1:] }

// seeks returns the names and aliases of the notes that t may lead to: the links to
// re-resolve when a note of one of these names or aliases comes or goes.
func (t target) seeks() []string {
	switch {
	case t.self:
		return nil
	case t.alias && t.key != t.name():
		return []string{t.name(), t.key}
	}
	return []string{t.name()}
}

// resolve is resolve with the graph's maps.
func (g *Graph) resolve(from string, t target) (to string, byAlias bool) {
	lookup := func(m map[string][]*note) func(string) ([]*note, error) {
		return func(key string) ([]*note, error) { return m[key], nil }
	}
	to, byAlias, _ = resolve(from, t, lookup(g.byName), lookup(g.byAlias))
	return to, byAlias
}

// resolve returns the note that t, written in the note at from, leads to, or "" (see the
// package documentation for the rules). named and aliased find the candidates: the notes of a
// lower-cased name, and those declaring a lower-cased alias. Graph looks them up in its maps;
// Stored, which keeps the graph in the index, in tables.
func resolve(from string, t target, named, aliased func(string) ([]*note, error)) (to string, byAlias bool, err error) {
	if t.self {
		return from, false, nil
	}
	folder := lower(path.Dir(from)) // "." at the vault root
	candidates, err := named(t.name())
	if err != nil {
		return "", false, err
	}
	if n := pickByName(candidates, t, folder); n != nil {
		return n.path, false, nil
	}
	if t.alias {
		candidates, err := aliased(t.key)
		if err != nil {
			return "", false, err
		}
		if n := pickByAlias(candidates, folder); n != nil {
			return n.path, true, nil
		}
	}
	return "", false, nil
}

// pickByName chooses among the notes named like t the one it leads to, or nil.
func pickByName(candidates []*note, t target, folder string) *note {
	sameFolder := folder + "/" + t.key
	rank := func(n *note) int {
		switch {
		case n.key == t.key:
			return 1
		case t.exact:
			return 0
		case n.key == sameFolder:
			return 2
		case strings.HasSuffix(n.key, "/"+t.key):
			return 3
		}
		return 0
	}
	// Within a rule, the note spelled as the link is spelled comes first: on a disk that
	// keeps note.md and Note.md apart, [[note]] is note.md.
	return pick(candidates, func(n *note) int {
		r := rank(n) * 2
		if r > 0 && !strings.HasSuffix("/"+trimMD(n.path), "/"+t.spelled) {
			r++
		}
		return r
	})
}

// pickByAlias chooses among the notes that share an alias.
func pickByAlias(candidates []*note, folder string) *note {
	return pick(candidates, func(n *note) int {
		if path.Dir(n.key) == folder {
			return 1
		}
		return 2
	})
}

// pick returns the candidate of the lowest rank above 0; among equals the one with the
// shortest path, then the path that sorts first.
func pick(candidates []*note, rank func(*note) int) *note {
	var best *note
	bestRank := 0
	for _, n := range candidates {
		r := rank(n)
		if r == 0 {
			continue
		}
		if best == nil || r < bestRank || r == bestRank && shorter(n.path, best.path) {
			best, bestRank = n, r
		}
	}
	return best
}

func shorter(a, b string) bool {
	return len(a) < len(b) || len(a) == len(b) && a < b
}

// trimMD removes a ".md" extension, in any letter case.
func trimMD(p string) string {
	if strings.EqualFold(path.Ext(p), ".md") {
		return p[:len(p)-len(".md")]
	}
	return p
}

// lower folds letter case for matching names, in every script.
func lower(s string) string { return strings.ToLower(s) }
