package links

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"vaultmcp/shared/markdown"
	"vaultmcp/shared/store"
)

// Stored is the link graph kept in the index rather than in memory. It follows the same rules
// and gives the same answers as Graph, from tables (see store.UpdateLinks), so a restart finds
// the graph on disk, with nothing to read but the notes that changed, and a vault's links cost
// disk rather than memory. Each change is one transaction. It is safe for concurrent use.
type Stored struct {
	db *store.Store
}

// NewStored returns the graph that db holds.
func NewStored(db *store.Store) *Stored {
	return &Stored{db: db}
}

// Set adds the note at path, or replaces what the graph holds for it, as Graph.Set does.
func (g *Stored) Set(ctx context.Context, path, content string, parsed markdown.Note) error {
	return g.SetMany(ctx, []Source{{Path: path, Content: content, Parsed: parsed}})
}

// Source is a note's text, with markdown.Parse's reading of it.
type Source struct {
	Path, Content string
	Parsed        markdown.Note
}

// SetMany sets each note as Set does, in one transaction: all or none. A commit costs more
// than setting a note, so a catch-up that reads many notes sets them a batch at a time.
func (g *Stored) SetMany(ctx context.Context, notes []Source) error {
	err := g.db.UpdateLinks(ctx, func(tx *store.LinkTx) error {
		for _, src := range notes {
			n := newNote(src.Path, src.Content, src.Parsed)
			aliases, _, found, err := tx.RemoveNote(src.Path)
			if err != nil {
				return err
			}
			var old *note
			if found {
				old = &note{aliases: aliases}
			}
			if err := attachStored(tx, n, changedNames(old, n)); err != nil {
				return fmt.Errorf("%s: %w", src.Path, err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store links: %w", err)
	}
	return nil
}

// Remove removes the note at path, if the graph holds it, as Graph.Remove does.
func (g *Stored) Remove(ctx context.Context, path string) error {
	err := g.db.UpdateLinks(ctx, func(tx *store.LinkTx) error {
		aliases, _, found, err := tx.RemoveNote(path)
		if err != nil || !found {
			return err
		}
		gone := newEmptyNote(path)
		gone.aliases = aliases
		return reresolveStored(tx, gone.names())
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
		aliases, links, found, err := tx.RemoveNote(from)
		if err != nil || !found {
			return err
		}
		old := newEmptyNote(from)
		old.aliases = aliases
		names := old.names()
		replacedAliases, _, replaced, err := tx.RemoveNote(to)
		if err != nil {
			return err
		}
		if replaced {
			r := newEmptyNote(to)
			r.aliases = replacedAliases
			names = append(names, r.names()...)
		}
		// The links are parsed again from the new folder, as written.
		moved := newEmptyNote(to)
		moved.aliases = aliases
		for _, l := range links {
			w, err := decodeWritten(l.Written)
			if err != nil {
				return err
			}
			moved.add(w.Link, w.Text, w.Section)
		}
		return attachStored(tx, moved, append(names, moved.names()...))
	})
	if err != nil {
		return fmt.Errorf("rename the links of %s to %s: %w", from, to, err)
	}
	return nil
}

// Backlinks returns the links from other notes that lead to the note at path, as
// Graph.Backlinks does.
func (g *Stored) Backlinks(ctx context.Context, path string) ([]Ref, error) {
	stored, err := g.db.LinksTo(ctx, path)
	if err != nil {
		return nil, err
	}
	stored = slices.DeleteFunc(stored, func(l store.StoredLink) bool { return l.From == path })
	return refsOf(stored)
}

// Outgoing returns the links written in the note at path, as Graph.Outgoing does.
func (g *Stored) Outgoing(ctx context.Context, path string) ([]Ref, error) {
	stored, _, err := g.db.LinksFrom(ctx, path)
	if err != nil {
		return nil, err
	}
	return refsOf(stored)
}

// Unresolved returns the notes that links lead to but that do not exist, as Graph.Unresolved
// does.
func (g *Stored) Unresolved(ctx context.Context) ([]Missing, error) {
	return g.missing(ctx, "")
}

// Missing returns the note that does not exist at path (letter case and ".md" aside) with the
// links that lead to it; found is false when no link does.
func (g *Stored) Missing(ctx context.Context, path string) (m Missing, found bool, err error) {
	key := lower(trimMD(path))
	if key == "" {
		return Missing{}, false, nil
	}
	missing, err := g.missing(ctx, key)
	if err != nil || len(missing) == 0 {
		return Missing{}, false, err
	}
	return missing[0], true, nil
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
	out := []Missing{} // as Graph.Unresolved: empty, not nil
	for len(stored) > 0 {
		end := 1 // the links come ordered by key: a group ends where the key changes
		for end < len(stored) && stored[end].TargetKey == stored[0].TargetKey {
			end++
		}
		refs, err := refsOf(stored[:end])
		stored = stored[end:]
		if err != nil {
			return nil, err
		}
		target, _ := targetPath(refs[0].From, refs[0].Link.Target)
		out = append(out, Missing{Target: trimMD(target), Refs: refs})
	}
	slices.SortFunc(out, func(a, b Missing) int {
		return cmp.Or(cmp.Compare(lower(a.Target), lower(b.Target)), cmp.Compare(a.Target, b.Target))
	})
	return out, nil
}

// attachStored adds n to the graph and resolves its links, then the links of other notes that
// look for one of names.
func attachStored(tx *store.LinkTx, n *note, names []string) error {
	id, err := tx.AddNote(n.path, n.name, n.aliases)
	if err != nil {
		return err
	}
	stored := make([]store.StoredLink, len(n.refs))
	for i, r := range n.refs {
		to, byAlias, err := resolveStored(tx, n.path, r.target)
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
	if err := tx.AddLinks(id, stored); err != nil {
		return err
	}
	return reresolveStored(tx, names)
}

// reresolveStored resolves again every link that looks for one of names, and records those
// that now lead elsewhere.
func reresolveStored(tx *store.LinkTx, names []string) error {
	for _, name := range names {
		links, err := tx.LinksSeeking(name)
		if err != nil {
			return err
		}
		for _, l := range links {
			w, err := decodeWritten(l.Written)
			if err != nil {
				return err
			}
			t := parseTarget(l.From, w.Link.Target)
			to, byAlias, err := resolveStored(tx, l.From, t)
			if err != nil {
				return err
			}
			attachment := to == "" && t.attachment
			if to == l.To && byAlias == l.ByAlias && attachment == l.Attachment {
				continue
			}
			if err := tx.SetTo(l.ID, to, byAlias, attachment); err != nil {
				return err
			}
		}
	}
	return nil
}

// resolveStored resolves t among the notes the tables hold.
func resolveStored(tx *store.LinkTx, from string, t target) (string, bool, error) {
	lookup := func(find func(string) ([]string, error)) func(string) ([]*note, error) {
		return func(key string) ([]*note, error) {
			paths, err := find(key)
			notes := make([]*note, len(paths))
			for i, p := range paths {
				notes[i] = newEmptyNote(p)
			}
			return notes, err
		}
	}
	return resolve(from, t, lookup(tx.NotesNamed), lookup(tx.NotesAliased))
}

// written is how a link is written, as the index keeps it: JSON, with short names, since it is
// stored for every link of the vault.
type written struct {
	Target   string `json:"t,omitempty"`
	Heading  string `json:"h,omitempty"`
	Block    string `json:"b,omitempty"`
	Alias    string `json:"a,omitempty"`
	Embed    bool   `json:"e,omitempty"`
	Markdown bool   `json:"m,omitempty"`
	Key      string `json:"k,omitempty"`
	Line     int    `json:"l,omitempty"`
	Original string `json:"o,omitempty"`
	Text     string `json:"x,omitempty"`
	Section  string `json:"s,omitempty"`
}

func encodeWritten(r Ref) []byte {
	l := r.Link
	data, _ := json.Marshal(written{
		Target: l.Target, Heading: l.Heading, Block: l.Block, Alias: l.Alias, Embed: l.Embed,
		Markdown: l.Markdown, Key: l.Key, Line: l.Line, Original: l.Original,
		Text: r.Text, Section: r.Section,
	}) // strings and numbers only: it cannot fail
	return data
}

// decodeWritten returns a Ref with what written holds: the link, its line and its section.
func decodeWritten(data []byte) (Ref, error) {
	var w written
	if err := json.Unmarshal(data, &w); err != nil {
		return Ref{}, fmt.Errorf("a link in the index cannot be read (%w); delete the index file to rebuild it", err)
	}
	return Ref{
		Link: markdown.Link{
			Target: w.Target, Heading: w.Heading, Block: w.Block, Alias: w.Alias, Embed: w.Embed,
			Markdown: w.Markdown, Key: w.Key, Line: w.Line, Original: w.Original,
		},
		Text: w.Text, Section: w.Section,
	}, nil
}

// refsOf turns links read from the index into Refs; nil for none.
func refsOf(stored []store.StoredLink) ([]Ref, error) {
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
	return refs, nil
}
