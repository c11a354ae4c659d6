// Package links is the vault's link graph: the note each link leads to, resolved the way
// Obsidian resolves it, and for each note the links that lead to it, its backlinks.
//
// # Resolving a link
//
// A link's target is what markdown.Link.Target holds, the text before any "#heading",
// "#^block" or "|display text", so [[a#h|shown]] leads where [[a]] does. It names a note:
//
//   - by name or by path: "Ideas", "Garden/Ideas". Writing ".md" is optional, and letter
//     case does not matter, in any script: "ideas.MD" finds Ideas.md, "ÉTÉ" finds été.md;
//   - a path matches the end of a note's path, in whole folder names: "Garden/Ideas" finds
//     Home/Garden/Ideas.md, never MyGarden/Ideas.md, nor Ideas.md elsewhere;
//   - a target starting with "./" or "../" is a path from the linking note's folder, and one
//     starting with "/" a path from the vault root; it must be a note's whole path;
//   - an empty target, as in [[#Heading]] or [[#^block]], is the linking note itself.
//
// Markdown links, [text](Garden/Ideas.md), are resolved the same way once the parser has
// decoded them ("%20" is a space), as Obsidian does.
//
// When several notes match, the first of these rules that tells them apart decides:
//
//  1. the note whose whole path is the target: [[Ideas]] is Ideas.md at the vault root;
//  2. the note at the target's path from the linking note's folder: [[Ideas]] written in
//     Garden/Plan.md is Garden/Ideas.md; the folders above that one do not count;
//  3. the shortest path: Ideas/Ideas.md before Garden/Ideas.md (measured in bytes);
//  4. the path that sorts first, byte by byte.
//
// Within each of rules 1 to 3, a note spelled as the target is written comes before one that
// matches only when letter case is ignored: on a disk that keeps note.md and Note.md apart,
// [[note]] is note.md and [[Note]] is Note.md, whichever sorts first.
//
// Rules 1 to 3 are Obsidian's: they are what Obsidian 1.13.7 answered when asked from its
// developer console (metadataCache.getFirstLinkpathDest, on notes built to tell the rules
// apart; published in github.com/pvliesdonk/markdown-vault-mcp pull request 1380), and the
// answer key of the tests agrees on names, letter case and paths. Neither its help nor that
// check says how Obsidian chooses between paths of equal length; rule 4 is ours, so that a
// vault always gives the same answer. The exact spelling first is Obsidian's for whole paths, which
// it looks up as written before it ignores case; within rules 2 and 3 it is ours.
//
// # Aliases
//
// A note's frontmatter may give it other names: the property "aliases" or "alias", in any
// letter case, holding a list or a comma-separated text. A link that matches no note's name or
// path resolves to the note declaring an alias equal to its target, letter case aside, with
// Ref.ByAlias set. When several notes declare it, one in the linking note's folder wins, then
// the shortest path, then byte order. A target written with ".md" names a file, not an alias.
//
// That is our rule, not Obsidian's. Obsidian offers aliases while a link is typed and then
// writes [[Name|Alias]], but leaves a hand-written [[Alias]] unresolved. Its author meant the
// note, and a model asking what links to it should hear so. As a name always wins over an
// alias, every link that Obsidian resolves leads to the same note here.
//
// # Links that lead nowhere
//
// A link that finds no note keeps its target as written, with Ref.To empty; Unresolved lists
// them by missing note. A link to a file with one of Obsidian's attachment extensions, such
// as ![[photo.png]] or [[paper.pdf]], is an attachment: the graph holds notes only and cannot
// tell whether the file exists, so such a link is kept, with Ref.Attachment set, and is
// neither resolved nor counted as missing (Obsidian counts a missing attachment as unresolved).
//
// # Changes
//
// Obsidian rewrites the links to a note that is renamed inside it. Nothing here edits a note:
// after Rename, a link that named the old path is resolved again as written, to another note of
// that name or to none.
//
// A change costs as much as the links it can affect, not the size of the vault. Notes are
// indexed by lower-cased name and by alias, so resolving a link is a map lookup and a choice
// among the few notes that share the name; links are indexed by the name they are looking for,
// so a note that appears, disappears or changes its aliases re-resolves only the links that
// could lead to it.
//
// # In memory or in the index
//
// Graph holds the graph in memory, and is built again from every note at each start. Stored
// keeps it in the index's tables instead, with the same rules and the same answers: a restart
// finds it there and reads only the notes that changed, and a large vault's links take disk
// rather than memory. Stored looks up in tables what Graph finds in its maps, so each of its
// changes costs a few queries for every link it can affect.
package links

import (
	"cmp"
	"slices"
	"sync"

	"vaultmcp/shared/markdown"
)

// Ref is one link: where it is written and the note it leads to.
type Ref struct {
	From       string        // the note the link is written in
	Link       markdown.Link // the link as written; Link.Line is 0 in the frontmatter
	Text       string        // the line that holds the link, or MaxText bytes around it; "property: [[link]]" in the frontmatter
	Section    string        // the heading of the section that holds the link; "" above the first
	To         string        // the note it leads to; "" when there is none
	ByAlias    bool          // To was found through a frontmatter alias, which Obsidian does not do
	Attachment bool          // the target is a file other than a note, which the graph does not track
}

// Missing is a note that links lead to but that does not exist.
type Missing struct {
	Target string // its path as the first link names it, relative forms resolved, without ".md"
	Refs   []Ref  // the links to it
}

// Graph is the link graph of one vault. It is safe for concurrent use.
type Graph struct {
	mu    sync.RWMutex
	notes map[string]*note

	// The notes by lower-cased name (file name without ".md") and by lower-cased alias.
	byName  map[string][]*note
	byAlias map[string][]*note

	// The links by the lower-cased name or alias they look for: those to re-resolve when a
	// note of that name or alias comes or goes. Sets, not lists: a much-linked note that
	// goes away moves thousands of links, and each must leave its set in constant time.
	seeking refIndex

	// The links by the note they lead to.
	incoming refIndex
}

// New returns an empty graph.
func New() *Graph {
	return &Graph{
		notes:    map[string]*note{},
		byName:   map[string][]*note{},
		byAlias:  map[string][]*note{},
		seeking:  refIndex{},
		incoming: refIndex{},
	}
}

// Set adds the note at path, or replaces what the graph holds for it: its links and its
// aliases. content is the note's text and parsed is markdown.Parse(path, content); the graph
// keeps the lines that hold links, not the content.
func (g *Graph) Set(path, content string, parsed markdown.Note) {
	n := newNote(path, content, parsed)

	g.mu.Lock()
	defer g.mu.Unlock()
	old := g.notes[path]
	if old != nil {
		g.detach(old)
	}
	g.attach(n)
	// A new note may take over links to its name and aliases. An edit keeps the name, so
	// only the aliases it adds or drops can move other notes' links.
	g.reresolve(changedNames(old, n))
}

// Remove removes the note at path, if the graph holds it. Links to it resolve again: to
// another note of the same name, or to none.
func (g *Graph) Remove(path string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := g.notes[path]
	if n == nil {
		return
	}
	g.detach(n)
	g.reresolve(n.names())
}

// Rename moves the note at from to the path to, keeping its links and aliases, as when the
// file is renamed or moved; a note already at to is replaced. The note's own links are
// resolved again from its new folder, and so are the links to either path, as written: see
// the package documentation.
func (g *Graph) Rename(from, to string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := g.notes[from]
	if n == nil || from == to {
		return
	}
	g.detach(n)
	names := n.names()
	if replaced := g.notes[to]; replaced != nil {
		g.detach(replaced)
		names = append(names, replaced.names()...)
	}
	moved := n.movedTo(to)
	g.attach(moved)
	g.reresolve(append(names, moved.names()...))
}

// Resolve returns the note that a link to target, written in the note at from, leads to.
// target is written as in a link, such as "Ideas", "Garden/Ideas.md" or "../Ideas"; a
// "#heading" or "#^block" after it is ignored.
func (g *Graph) Resolve(from, target string) (path string, ok bool) {
	t := parseTarget(from, target)
	g.mu.RLock()
	defer g.mu.RUnlock()
	path, _ = g.resolve(from, t)
	return path, path != ""
}

// Backlinks returns the links from other notes that lead to the note at path, sorted by the
// note they are in and then in the order written. A note's links to itself are not
// backlinks; Outgoing lists them.
func (g *Graph) Backlinks(path string) []Ref {
	g.mu.RLock()
	defer g.mu.RUnlock()
	var refs []*ref
	for r := range g.incoming[path] {
		if r.From != path {
			refs = append(refs, r)
		}
	}
	sortByPlace(refs)
	return copies(refs)
}

// Outgoing returns the links written in the note at path, in the order written, each with
// what it resolves to. It returns nil when the graph does not hold the note.
func (g *Graph) Outgoing(path string) []Ref {
	g.mu.RLock()
	defer g.mu.RUnlock()
	if n := g.notes[path]; n != nil {
		return copies(n.refs) // already in the order written
	}
	return nil
}

// Unresolved returns the notes that links lead to but that do not exist, each with the links
// to it, sorted by target regardless of letter case. Links written differently that name the
// same path ([[Idea]], [[idea.md]]) count as one missing note. Attachments are not included.
func (g *Graph) Unresolved() []Missing {
	g.mu.RLock()
	defer g.mu.RUnlock()
	byKey := map[string][]*ref{}
	for _, n := range g.notes {
		for _, r := range n.refs {
			if r.To == "" && !r.Attachment {
				byKey[r.target.key] = append(byKey[r.target.key], r)
			}
		}
	}
	missing := make([]Missing, 0, len(byKey))
	for _, refs := range byKey {
		sortByPlace(refs)
		target, _ := targetPath(refs[0].From, refs[0].Link.Target)
		missing = append(missing, Missing{Target: trimMD(target), Refs: copies(refs)})
	}
	slices.SortFunc(missing, func(a, b Missing) int {
		return cmp.Or(cmp.Compare(lower(a.Target), lower(b.Target)), cmp.Compare(a.Target, b.Target))
	})
	return missing
}

// attach adds n to the graph and resolves its links.
func (g *Graph) attach(n *note) {
	g.notes[n.path] = n
	g.byName[n.name] = append(g.byName[n.name], n)
	for _, a := range n.aliases {
		g.byAlias[a] = append(g.byAlias[a], n)
	}
	for _, r := range n.refs {
		for _, name := range r.target.seeks() {
			g.seeking.add(name, r)
		}
		g.setTo(r)
	}
}

// detach removes n and its links from the graph. Links from other notes that lead to n still
// say so until they are re-resolved.
func (g *Graph) detach(n *note) {
	delete(g.notes, n.path)
	isN := func(m *note) bool { return m == n }
	deleteFrom(g.byName, n.name, isN)
	for _, a := range n.aliases {
		deleteFrom(g.byAlias, a, isN)
	}
	for _, r := range n.refs {
		for _, name := range r.target.seeks() {
			g.seeking.remove(name, r)
		}
		if r.To != "" {
			g.incoming.remove(r.To, r)
		}
	}
}

// reresolve resolves again every link that looks for one of names.
func (g *Graph) reresolve(names []string) {
	for _, name := range names {
		for r := range g.seeking[name] {
			g.setTo(r)
		}
	}
}

// setTo resolves r and files it under the note it now leads to.
func (g *Graph) setTo(r *ref) {
	to, byAlias := g.resolve(r.From, r.target)
	if to != r.To {
		if r.To != "" {
			g.incoming.remove(r.To, r)
		}
		if to != "" {
			g.incoming.add(to, r)
		}
	}
	r.To, r.ByAlias = to, byAlias
	r.Attachment = to == "" && r.target.attachment
}

// refSet is a set of links; refIndex files them under a key.
type (
	refSet   map[*ref]struct{}
	refIndex map[string]refSet
)

func (m refIndex) add(key string, r *ref) {
	if m[key] == nil {
		m[key] = refSet{}
	}
	m[key][r] = struct{}{}
}

// remove takes r out of the set under key, and the key with its last link.
func (m refIndex) remove(key string, r *ref) {
	delete(m[key], r)
	if len(m[key]) == 0 {
		delete(m, key)
	}
}

// deleteFrom removes the values that del reports from the list m[key], and the key with
// its last value.
func deleteFrom[V any](m map[string][]V, key string, del func(V) bool) {
	list := slices.DeleteFunc(m[key], del)
	if len(list) == 0 {
		delete(m, key)
		return
	}
	m[key] = list
}

// sortByPlace sorts links by the note they are in, then in the order written.
func sortByPlace(refs []*ref) {
	slices.SortFunc(refs, func(a, b *ref) int {
		return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.order, b.order))
	})
}

// copies returns what refs hold, for a caller to keep; nil for none.
func copies(refs []*ref) []Ref {
	if len(refs) == 0 {
		return nil
	}
	out := make([]Ref, len(refs))
	for i, r := range refs {
		out[i] = r.Ref
	}
	return out
}
