package links

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"vaultmcp/shared/markdown"
	"vaultmcp/shared/store"
)

// Stored is the link graph kept in the index rather than in memory. It follows the same rules
// and gives the same answers as Graph, from tables (see store.UpdateLinks), so a restart finds
// the graph on disk, with nothing to read but the notes that changed, and a vault's links cost
// disk rather than memory. Each change is one transaction. It is safe for concurrent use.
//
// A link's line is not stored: it is most of what a link would cost the index (a paragraph
// is one line), and the note holds it already. The answers read it from the note, with read,
// each note once (see withLines).
type Stored struct {
	db   *store.Store
	read NoteReader
}

// NoteReader returns the content of the note at path, as it is on disk now.
type NoteReader func(path string) (string, error)

// NewStored returns the graph that db holds, creating its tables if db has none yet, which
// reads the lines that hold links from the notes with read. An index built without the tables
// holds no links, and LinksDisagree says which notes to Set.
func NewStored(ctx context.Context, db *store.Store, read NoteReader) (*Stored, error) {
	if err := db.AddLinkTables(ctx); err != nil {
		return nil, err
	}
	return &Stored{db: db, read: read}, nil
}

// Set adds the note at path, or replaces what the graph holds for it, as Graph.Set does.
func (g *Stored) Set(ctx context.Context, path, content string, parsed markdown.Note) error {
	return g.SetMany(ctx, []Source{{Path: path, Content: content, Parsed: parsed}})
}

// Source is a note's text, with markdown.Parse's reading of it, and its version: what the
// rest of the index records of that text, its content hash. The graph keeps the version with
// the note's links, so that links read from another version than the note's sections show
// (see store.LinksDisagree).
type Source struct {
	Path, Content string
	Parsed        markdown.Note
	Version       string
}

// SetMany sets each note as Set does, in one transaction: all or none. A commit costs more
// than setting a note, so a catch-up that reads many notes sets them a batch at a time.
func (g *Stored) SetMany(ctx context.Context, notes []Source) error {
	if err := g.db.UpdateLinks(ctx, g.Setting(notes...)); err != nil {
		return fmt.Errorf("store links: %w", err)
	}
	return nil
}

// Setting is SetMany as a function to run in a transaction of the caller's: a store.Entry's
// Links, so that a note's links are written with its sections, all or nothing.
func (g *Stored) Setting(notes ...Source) func(*store.LinkTx) error {
	return func(tx *store.LinkTx) error {
		c := newLookups(tx)
		parsed := make([]*note, len(notes))
		for i, src := range notes {
			parsed[i] = newNote(src.Path, src.Content, src.Parsed)
			parsed[i].version = src.Version
		}
		if err := c.prefetch(parsed); err != nil {
			return err
		}
		var names []string
		for i, src := range notes {
			n := parsed[i]
			old, _, err := c.remove(src.Path)
			if err != nil {
				return err
			}
			if err := c.add(n); err != nil {
				return fmt.Errorf("%s: %w", src.Path, err)
			}
			names = append(names, changedNames(old, n)...)
		}
		// Once for the whole batch: a vault may hold hundreds of notes named Index, each
		// looked for by thousands of links.
		slices.Sort(names)
		return c.reresolve(slices.Compact(names))
	}
}

// Remove removes the note at path, if the graph holds it, as Graph.Remove does.
func (g *Stored) Remove(ctx context.Context, path string) error {
	err := g.db.UpdateLinks(ctx, func(tx *store.LinkTx) error {
		c := newLookups(tx)
		gone, _, err := c.remove(path)
		if err != nil || gone == nil {
			return err
		}
		return c.reresolve(gone.names())
	})
	if err != nil {
		return fmt.Errorf("remove the links of %s: %w", path, err)
	}
	return nil
}

// Rename moves the note at from to the path to, as Graph.Rename does.
func (g *Stored) Rename(ctx context.Context, from, to string) error {
	if from == to {
		return nil
	}
	err := g.db.UpdateLinks(ctx, func(tx *store.LinkTx) error {
		c := newLookups(tx)
		old, links, err := c.remove(from)
		if err != nil || old == nil {
			return err
		}
		names := old.names()
		replaced, _, err := c.remove(to)
		if err != nil {
			return err
		}
		if replaced != nil {
			names = append(names, replaced.names()...)
		}
		// The links are parsed again from the new folder, as written, from the same version.
		moved := newEmptyNote(to)
		moved.aliases, moved.version = old.aliases, old.version
		for _, l := range links {
			w, err := decodeWritten(l.Written)
			if err != nil {
				return err
			}
			moved.add(w.Link, w.Text, w.Section)
		}
		return c.attach(moved, append(names, moved.names()...))
	})
	if err != nil {
		return fmt.Errorf("rename the links of %s to %s: %w", from, to, err)
	}
	return nil
}

// Backlinks returns the links from other notes that lead to the note at path, as
// Graph.Backlinks does.
func (g *Stored) Backlinks(ctx context.Context, path string) ([]Ref, error) {
	refs, _, err := g.BacklinksFirst(ctx, path, math.MaxInt)
	return refs, err
}

// BacklinksFirst is Backlinks cut to its first n links, with the number it left out. It reads
// the lines of those n alone: an answer that shows 200 of a hub note's thousands of backlinks
// reads the notes of 200, not of thousands.
func (g *Stored) BacklinksFirst(ctx context.Context, path string, n int) (refs []Ref, left int, err error) {
	stored, err := g.db.LinksTo(ctx, path)
	if err != nil {
		return nil, 0, err
	}
	stored = slices.DeleteFunc(stored, func(l store.StoredLink) bool { return l.From == path })
	stored, left = cut(stored, n)
	refs, err = g.refsOf(stored)
	return refs, left, err
}

// cut returns the first n of links, and how many it left out.
func cut(links []store.StoredLink, n int) ([]store.StoredLink, int) {
	if len(links) <= n {
		return links, 0
	}
	return links[:n], len(links) - n
}

// Outgoing returns the links written in the note at path, as Graph.Outgoing does.
func (g *Stored) Outgoing(ctx context.Context, path string) ([]Ref, error) {
	stored, _, err := g.db.LinksFrom(ctx, path)
	if err != nil {
		return nil, err
	}
	return g.refsOf(stored)
}

// Unresolved returns the notes that links lead to but that do not exist, as Graph.Unresolved
// does.
func (g *Stored) Unresolved(ctx context.Context) ([]Missing, error) {
	return g.missing(ctx, "")
}

// Missing returns the note that does not exist at path (letter case and ".md" aside) with the
// links that lead to it; found is false when no link does.
func (g *Stored) Missing(ctx context.Context, path string) (m Missing, found bool, err error) {
	m, _, found, err = g.MissingFirst(ctx, path, math.MaxInt)
	return m, found, err
}

// MissingFirst is Missing with the links cut to their first n, and the number it left out,
// whose lines it does not read (see BacklinksFirst).
func (g *Stored) MissingFirst(ctx context.Context, path string, n int) (m Missing, left int, found bool, err error) {
	key := lower(trimMD(path))
	if key == "" {
		return Missing{}, 0, false, nil
	}
	stored, err := g.db.UnresolvedLinks(ctx, key)
	if err != nil || len(stored) == 0 {
		return Missing{}, 0, false, err
	}
	stored, left = cut(stored, n)
	missing, err := g.group(stored)
	if err != nil {
		return Missing{}, 0, false, err
	}
	return missing[0], left, true, nil
}

// Notes returns the paths of the notes the graph holds.
func (g *Stored) Notes(ctx context.Context) ([]string, error) {
	return g.db.LinkedNotes(ctx)
}

// missing groups the unresolved links to key, or to every path for "", by the path they name.
func (g *Stored) missing(ctx context.Context, key string) ([]Missing, error) {
	stored, err := g.db.UnresolvedLinks(ctx, key)
	if err != nil {
		return nil, err
	}
	return g.group(stored)
}

// group turns unresolved links, ordered by the path they name, into a Missing for each path.
func (g *Stored) group(stored []store.StoredLink) ([]Missing, error) {
	refs, err := g.refsOf(stored) // all at once: each linking note is read once
	if err != nil {
		return nil, err
	}
	out := []Missing{} // as Graph.Unresolved: empty, not nil
	for len(stored) > 0 {
		end := 1 // the links come ordered by key: a group ends where the key changes
		for end < len(stored) && stored[end].TargetKey == stored[0].TargetKey {
			end++
		}
		target, _ := targetPath(refs[0].From, refs[0].Link.Target)
		out = append(out, Missing{Target: trimMD(target), Refs: refs[:end:end]})
		stored, refs = stored[end:], refs[end:]
	}
	slices.SortFunc(out, func(a, b Missing) int {
		return cmp.Or(cmp.Compare(lower(a.Target), lower(b.Target)), cmp.Compare(a.Target, b.Target))
	})
	return out, nil
}

// lookups runs one transaction's changes, and keeps the notes that answer to each name and
// alias it has looked up, up to date as notes come and go. A batch asks for all the names it
// needs in a few queries (see prefetch), and a note that arrives re-resolves every link looking
// for its name, which all ask the same question: without the memory, a query a link.
type lookups struct {
	tx      *store.LinkTx
	named   map[string][]*note
	aliased map[string][]*note
}

func newLookups(tx *store.LinkTx) *lookups {
	return &lookups{tx: tx, named: map[string][]*note{}, aliased: map[string][]*note{}}
}

// prefetch looks up, in a few queries, the names and aliases that setting notes will ask for:
// those their links look for, and their own.
func (c *lookups) prefetch(notes []*note) error {
	var names, aliases []string
	for _, n := range notes {
		names = append(names, n.names()...)
		aliases = append(aliases, n.names()...)
		for _, r := range n.refs {
			for _, name := range r.target.seeks() {
				names = append(names, name)
				aliases = append(aliases, name)
			}
		}
	}
	if err := c.fetch(c.named, names, c.tx.NotesNamed); err != nil {
		return err
	}
	return c.fetch(c.aliased, aliases, c.tx.NotesAliased)
}

// fetch looks up the keys memo lacks with find, and remembers them, those without notes too.
func (c *lookups) fetch(memo map[string][]*note, keys []string, find func([]string) (map[string][]string, error)) error {
	slices.Sort(keys)
	keys = slices.DeleteFunc(slices.Compact(keys), func(k string) bool { _, ok := memo[k]; return ok })
	if len(keys) == 0 {
		return nil
	}
	found, err := find(keys)
	if err != nil {
		return err
	}
	for _, k := range keys {
		notes := make([]*note, len(found[k]))
		for i, p := range found[k] {
			notes[i] = newEmptyNote(p)
		}
		memo[k] = notes
	}
	return nil
}

// remove removes the note at path from the graph and returns what it was (its path and
// aliases) with its links as stored, or nil when the graph did not hold it.
func (c *lookups) remove(path string) (*note, []store.StoredLink, error) {
	removed, found, err := c.tx.RemoveNote(path)
	if err != nil || !found {
		return nil, nil, err
	}
	gone := newEmptyNote(path)
	gone.aliases, gone.version = removed.Aliases, removed.Version
	isGone := func(n *note) bool { return n.path == path }
	c.update(gone, func(notes []*note) []*note { return slices.DeleteFunc(notes, isGone) })
	return gone, removed.Links, nil
}

// update changes what c remembers of the notes under n's name and each of its aliases.
func (c *lookups) update(n *note, change func([]*note) []*note) {
	if notes, ok := c.named[n.name]; ok {
		c.named[n.name] = change(notes)
	}
	for _, a := range n.aliases {
		if notes, ok := c.aliased[a]; ok {
			c.aliased[a] = change(notes)
		}
	}
}

// attach adds n to the graph and resolves its links, then the links of other notes that look
// for one of names.
func (c *lookups) attach(n *note, names []string) error {
	if err := c.add(n); err != nil {
		return err
	}
	return c.reresolve(names)
}

// add adds n to the graph and resolves its links.
func (c *lookups) add(n *note) error {
	id, err := c.tx.AddNote(n.path, n.name, n.aliases, n.version)
	if err != nil {
		return err
	}
	c.update(n, func(notes []*note) []*note { return append(notes, n) })
	stored := make([]store.StoredLink, len(n.refs))
	for i, r := range n.refs {
		to, byAlias, err := c.resolve(n.path, r.target)
		if err != nil {
			return err
		}
		stored[i] = store.StoredLink{
			Written:   encodeWritten(r.Ref),
			TargetKey: r.target.key,
			Seeks:     r.target.seeks(),
			To:        to, ByAlias: byAlias, Attachment: to == "" && r.target.attachment,
		}
	}
	return c.tx.AddLinks(id, stored)
}

// reresolve resolves again every link that looks for one of names, and records those that now
// lead elsewhere.
func (c *lookups) reresolve(names []string) error {
	for _, name := range names {
		links, err := c.tx.LinksSeeking(name)
		if err != nil {
			return err
		}
		for _, l := range links {
			w, err := decodeWritten(l.Written)
			if err != nil {
				return err
			}
			t := parseTarget(l.From, w.Link.Target)
			to, byAlias, err := c.resolve(l.From, t)
			if err != nil {
				return err
			}
			attachment := to == "" && t.attachment
			if to == l.To && byAlias == l.ByAlias && attachment == l.Attachment {
				continue
			}
			if err := c.tx.SetTo(l.ID, to, byAlias, attachment); err != nil {
				return err
			}
		}
	}
	return nil
}

// resolve resolves t among the notes the tables hold.
func (c *lookups) resolve(from string, t target) (string, bool, error) {
	return resolve(from, t, c.lookup(c.named, c.tx.NotesNamed), c.lookup(c.aliased, c.tx.NotesAliased))
}

// lookup returns a function that finds the notes under a key with find, once.
func (c *lookups) lookup(memo map[string][]*note, find func([]string) (map[string][]string, error)) func(string) ([]*note, error) {
	return func(key string) ([]*note, error) {
		err := c.fetch(memo, []string{key}, find)
		return memo[key], err
	}
}

// written is how a link is written, as the index keeps it: JSON, with short names, since it is
// stored for every link of the vault. Not its line: withLines reads that from the note.
type written struct {
	Target   string `json:"t,omitempty"`
	Heading  string `json:"h,omitempty"`
	Block    string `json:"b,omitempty"`
	Display  string `json:"a,omitempty"` // "a" from when it was called the alias: indexes keep it
	Embed    bool   `json:"e,omitempty"`
	Markdown bool   `json:"m,omitempty"`
	Key      string `json:"k,omitempty"`
	Line     int    `json:"l,omitempty"`
	Original string `json:"o,omitempty"`
	Section  string `json:"s,omitempty"`

	// An index written before the lines were read from the notes kept the line in Text, and
	// the source text, where the line holds it, as a place there. Such a link is read as it
	// was written, until its note changes and its links are stored again.
	At     int    `json:"i,omitempty"` // where Text holds Original, from 1; 0 when it does not
	Length int    `json:"n,omitempty"` // its length there
	Text   string `json:"x,omitempty"`
}

func encodeWritten(r Ref) []byte {
	l := r.Link
	w := written{
		Target: l.Target, Heading: l.Heading, Block: l.Block, Display: l.Display, Embed: l.Embed,
		Markdown: l.Markdown, Key: l.Key, Line: l.Line, Original: l.Original, Section: r.Section,
	}
	data, _ := json.Marshal(w) // strings and numbers only: it cannot fail
	return data
}

// decodeWritten returns a Ref with what written holds: the link and its section, and its line
// only if an index written before kept it.
func decodeWritten(data []byte) (Ref, error) {
	var w written
	if err := json.Unmarshal(data, &w); err != nil {
		return Ref{}, fmt.Errorf("a link in the index cannot be read (%w); delete the index file to rebuild it", err)
	}
	if w.At > 0 {
		if w.At-1+w.Length > len(w.Text) || w.Length < 0 {
			return Ref{}, fmt.Errorf("a link in the index cannot be read (its source text is outside its line); delete the index file to rebuild it")
		}
		w.Original = w.Text[w.At-1 : w.At-1+w.Length]
	}
	return Ref{
		Link: markdown.Link{
			Target: w.Target, Heading: w.Heading, Block: w.Block, Display: w.Display, Embed: w.Embed,
			Markdown: w.Markdown, Key: w.Key, Line: w.Line, Original: w.Original,
		},
		Text: w.Text, Section: w.Section,
	}, nil
}

// refsOf turns links read from the index into Refs, their lines included; nil for none.
func (g *Stored) refsOf(stored []store.StoredLink) ([]Ref, error) {
	if len(stored) == 0 {
		return nil, nil
	}
	refs := make([]Ref, len(stored))
	for i, l := range stored {
		r, err := decodeWritten(l.Written)
		if err != nil {
			return nil, err
		}
		r.From, r.To, r.ByAlias, r.Attachment = l.From, l.To, l.ByAlias, l.Attachment
		refs[i] = r
	}
	g.withLines(refs)
	return refs, nil
}

// withLines sets each ref's Text as newNote does, from the note as it is now: one read of each
// note the refs are in, so that backlinks from a thousand notes read a thousand notes. A note
// edited since its links were stored may hold another line there; the line is taken only if
// it still holds the link as written, and otherwise, or when the note cannot be read, Text is
// the link as written. The watcher stores the new version's links a moment later.
func (g *Stored) withLines(refs []Ref) {
	byNote := map[string][]int{}
	for i, r := range refs {
		switch {
		case r.Text != "": // kept by an index written before
		case r.Link.Line == 0:
			refs[i].Text = r.Link.Key + ": " + r.Link.Original
		default:
			byNote[r.From] = append(byNote[r.From], i)
		}
	}
	for from, at := range byNote {
		content, err := g.read(from)
		if err != nil {
			content = ""
		}
		slices.SortStableFunc(at, func(a, b int) int { return cmp.Compare(refs[a].Link.Line, refs[b].Link.Line) })
		lines := newLineReader(strings.TrimPrefix(content, "\ufeff"))
		for _, i := range at {
			l := refs[i].Link
			refs[i].Text = l.Original
			if line := lines.text(l.Line); strings.Contains(line, strings.ToValidUTF8(l.Original, "\uFFFD")) {
				refs[i].Text = excerpt(line, l.Original)
			}
		}
	}
}
