package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// linksTables hold the vault's link graph, so that a restart finds it on disk instead of
// parsing every note again, and so that it takes no memory. Package links decides how a link
// resolves (Obsidian's rules); these tables only keep what it decided, with the indexes its
// updates look things up by. A note is here as soon as it is read, whether or not its
// sections could be embedded: links do not need a model. Each note's links carry the version
// of the note they were read from, its content hash, as its row in notes does: where the two
// differ, the links and the sections come from different versions of the note, and
// LinksDisagree names it. AddLinkTables creates them.
//
// A vault has about as many links as sections, so a link's row keeps each string once: the
// target as written only in written, the name and alias it seeks only where they are not its
// target_key, which they usually are ([[Compost]] seeks the name "compost", its key), and
// the note it leads to by its id. What package links encodes is deflated, as a section's text
// is: it holds the link's line, which repeats the target, and is read back only a note's
// links at a time. The index on coalesce(seeks_name, target_key) finds a link
// by name all the same. A note that leaves the graph leaves its links leading nowhere (ON
// DELETE SET NULL) until package links resolves them again.
const linksTables = `
CREATE TABLE IF NOT EXISTS link_notes (
	id      INTEGER PRIMARY KEY,
	path    TEXT NOT NULL UNIQUE,
	name    TEXT NOT NULL,           -- the file name lower-cased, without ".md"
	version TEXT NOT NULL            -- the content hash of the note the links were read from
) STRICT;
CREATE INDEX IF NOT EXISTS link_notes_name ON link_notes (name);

CREATE TABLE IF NOT EXISTS link_aliases (
	note_id INTEGER NOT NULL REFERENCES link_notes ON DELETE CASCADE,
	alias   TEXT NOT NULL,           -- lower-cased
	PRIMARY KEY (alias, note_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS link_aliases_note ON link_aliases (note_id);

CREATE TABLE IF NOT EXISTS links (
	id          INTEGER PRIMARY KEY,
	note_id     INTEGER NOT NULL REFERENCES link_notes ON DELETE CASCADE,
	ord         INTEGER NOT NULL,    -- its place among the note's links
	written     BLOB NOT NULL,       -- how it is written, its target and line included, encoded by package links, deflated
	target_key  TEXT NOT NULL,       -- the path it names, lower-cased: unresolved links group by it
	seeks_name  TEXT,                -- the name whose notes it may lead to; NULL when it is target_key
	seeks_alias INTEGER NOT NULL,    -- whether it may also lead to the notes aliased target_key
	to_note     INTEGER REFERENCES link_notes ON DELETE SET NULL, -- the note it leads to; NULL for none
	by_alias    INTEGER NOT NULL,
	attachment  INTEGER NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS links_note ON links (note_id, ord);
CREATE INDEX IF NOT EXISTS links_to ON links (to_note);
CREATE INDEX IF NOT EXISTS links_missing ON links (target_key) WHERE to_note IS NULL;
CREATE INDEX IF NOT EXISTS links_seeking_name ON links (coalesce(seeks_name, target_key));
CREATE INDEX IF NOT EXISTS links_seeking_alias ON links (target_key) WHERE seeks_alias;
`

// AddLinkTables creates the tables of the link graph, unless the index holds them already.
// Reset drops them with every other table: call it after Reset or Rebuild too, before the
// graph is read or written. An index that was built without them holds no links: LinksDisagree
// then names every note, for the caller to store its links.
func (s *Store) AddLinkTables(ctx context.Context) error {
	err := s.write(ctx, nil, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, linksTables)
		return err
	})
	if err != nil {
		return fmt.Errorf("create the link graph's tables: %w", err)
	}
	return nil
}

// StoredLink is a link as the index keeps it. Package links fills it and reads it back.
type StoredLink struct {
	ID         int64    // the index's, set when read
	From       string   // the note it is written in
	Written    []byte   // how it is written, its target included, in package links' encoding
	TargetKey  string   // the path it names, lower-cased
	Seeks      []string // the name, and the alias, whose notes it may lead to: the alias, if any, is TargetKey
	To         string   // the note it leads to; "" for none
	ByAlias    bool
	Attachment bool
}

// linkColumns are the columns a StoredLink is read from, in scanLinks' order.
const linkColumns = `l.id, n.path, l.written, l.target_key, coalesce(l.seeks_name, l.target_key), l.seeks_alias,
	coalesce(t.path, ''), l.by_alias, l.attachment`

// linksJoined is the links with the notes they are in (n) and lead to (t), for linkColumns.
const linksJoined = `links l JOIN link_notes n ON n.id = l.note_id LEFT JOIN link_notes t ON t.id = l.to_note`

// LinkTx is a transaction on the link graph: package links resolves links with what it reads,
// and writes what it decided, all or nothing.
type LinkTx struct {
	*cachedTx

	// orphaned holds, by path, the links that led to a note RemoveNote took away: AddNote
	// leads them to the note that takes its place, as if the path itself were stored.
	orphaned map[string][]int64
}

// UpdateLinks runs fn in one transaction on the link graph.
func (s *Store) UpdateLinks(ctx context.Context, fn func(*LinkTx) error) error {
	return s.write(ctx, nil, func(tx *sql.Tx) error {
		t := newCachedTx(ctx, tx)
		defer t.close()
		return fn(&LinkTx{cachedTx: t})
	})
}

// LinkedNote is a note as the link graph holds it.
type LinkedNote struct {
	Aliases []string     // lower-cased
	Links   []StoredLink // in the order written
	Version string       // the content hash of the note they were read from
}

// RemoveNote removes the note at path and its links, and returns them as they were; found is
// false when the graph did not hold it.
func (t *LinkTx) RemoveNote(path string) (removed LinkedNote, found bool, err error) {
	var id int64
	err = t.queryRow(`SELECT id, version FROM link_notes WHERE path = ?`, path).Scan(&id, &removed.Version)
	if errors.Is(err, sql.ErrNoRows) {
		return LinkedNote{}, false, nil
	}
	if err != nil {
		return LinkedNote{}, false, err
	}
	removed.Aliases, err = column[string](t.query(`SELECT alias FROM link_aliases WHERE note_id = ? ORDER BY alias`, id))
	if err != nil {
		return LinkedNote{}, false, err
	}
	removed.Links, err = scanLinks(t.query(`SELECT `+linkColumns+`
		FROM `+linksJoined+`
		WHERE l.note_id = ? ORDER BY l.ord`, id))
	if err != nil {
		return LinkedNote{}, false, err
	}
	// Deleting the row leaves the links that led to it leading nowhere (ON DELETE SET NULL).
	leading, err := column[int64](t.query(`SELECT id FROM links WHERE to_note = ?1 AND note_id <> ?1`, id))
	if err != nil {
		return LinkedNote{}, false, err
	}
	if len(leading) > 0 {
		if t.orphaned == nil {
			t.orphaned = map[string][]int64{}
		}
		t.orphaned[path] = leading
	}
	err = t.exec(`DELETE FROM link_notes WHERE id = ?`, id)
	return removed, true, err
}

// AddNote adds a note under its lower-cased name and aliases, read from the note's version
// (its content hash), and returns its id, for AddLinks. The graph must not hold path:
// RemoveNote it first.
func (t *LinkTx) AddNote(path, name string, aliases []string, version string) (int64, error) {
	var id int64
	err := t.queryRow(`INSERT INTO link_notes (path, name, version) VALUES (?, ?, ?) RETURNING id`, path, name, version).Scan(&id)
	if err != nil {
		return 0, err
	}
	for _, a := range aliases {
		if err := t.exec(`INSERT OR IGNORE INTO link_aliases (note_id, alias) VALUES (?, ?)`, id, a); err != nil {
			return 0, err
		}
	}
	if leading, ok := t.orphaned[path]; ok {
		list, _ := json.Marshal(leading) // numbers: it cannot fail
		err := t.exec(`UPDATE links SET to_note = ? WHERE id IN (SELECT value FROM json_each(?))`, id, string(list))
		if err != nil {
			return 0, err
		}
		delete(t.orphaned, path)
	}
	return id, nil
}

// linksPerInsert is how many links one INSERT writes: a statement a link would cost more
// than the rows themselves.
const linksPerInsert = 32

// AddLinks adds the links of the note with id, in the order written. A link seeks at most a
// name and an alias, and the alias only when it is the link's TargetKey.
func (t *LinkTx) AddLinks(noteID int64, links []StoredLink) error {
	const insert = `
		INSERT INTO links (note_id, ord, written, target_key, seeks_name, seeks_alias, to_note, by_alias, attachment)
		VALUES (?, ?, ?, ?, ?, ?, (SELECT id FROM link_notes WHERE path = ?), ?, ?)`
	for start := 0; start < len(links); start += linksPerInsert {
		chunk := links[start:min(start+linksPerInsert, len(links))]
		args := make([]any, 0, 9*len(chunk))
		for i, l := range chunk {
			var name sql.NullString
			if len(l.Seeks) > 0 && l.Seeks[0] != l.TargetKey {
				name = sql.NullString{String: l.Seeks[0], Valid: true}
			}
			if len(l.Seeks) > 1 && l.Seeks[1] != l.TargetKey {
				return fmt.Errorf("a link to %q seeks the alias %q: only its target key can be one", l.TargetKey, l.Seeks[1])
			}
			args = append(args, noteID, start+i, deflate(string(l.Written)), l.TargetKey, name, len(l.Seeks) > 1,
				sql.NullString{String: l.To, Valid: l.To != ""}, l.ByAlias, l.Attachment)
		}
		query := insert + strings.Repeat(", (?, ?, ?, ?, ?, ?, (SELECT id FROM link_notes WHERE path = ?), ?, ?)", len(chunk)-1)
		if err := t.exec(query, args...); err != nil {
			return err
		}
	}
	return nil
}

// NotesNamed returns, for each of the lower-cased names, the paths of the notes of that name;
// a name no note has is left out.
func (t *LinkTx) NotesNamed(names []string) (map[string][]string, error) {
	return t.pathsBy(`SELECT name, path FROM link_notes WHERE name IN (%s)`, names)
}

// NotesAliased returns, for each of the lower-cased aliases, the paths of the notes that
// declare it; an alias no note declares is left out.
func (t *LinkTx) NotesAliased(aliases []string) (map[string][]string, error) {
	return t.pathsBy(`
		SELECT a.alias, n.path FROM link_aliases a JOIN link_notes n ON n.id = a.note_id
		WHERE a.alias IN (%s)`, aliases)
}

// pathsBy runs query, whose %s takes a list of keys, for keys a few hundred at a time, and
// gathers the paths it returns by key.
func (t *LinkTx) pathsBy(query string, keys []string) (map[string][]string, error) {
	found := map[string][]string{}
	const perQuery = 500
	for start := 0; start < len(keys); start += perQuery {
		chunk := keys[start:min(start+perQuery, len(keys))]
		args := make([]any, len(chunk))
		for i, k := range chunk {
			args[i] = k
		}
		rows, err := t.query(fmt.Sprintf(query, strings.Repeat("?, ", len(chunk)-1)+"?"), args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var key, path string
			if err := rows.Scan(&key, &path); err != nil {
				rows.Close()
				return nil, err
			}
			found[key] = append(found[key], path)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return found, nil
}

// LinksSeeking returns the links that may lead to a note named or aliased name.
func (t *LinkTx) LinksSeeking(name string) ([]StoredLink, error) {
	return scanLinks(t.query(`SELECT `+linkColumns+`
		FROM `+linksJoined+`
		WHERE coalesce(l.seeks_name, l.target_key) = ?1 OR (l.target_key = ?1 AND l.seeks_alias)`, name))
}

// SetTo records where the link with id now leads.
func (t *LinkTx) SetTo(id int64, to string, byAlias, attachment bool) error {
	return t.exec(`UPDATE links SET to_note = (SELECT id FROM link_notes WHERE path = ?), by_alias = ?, attachment = ? WHERE id = ?`,
		sql.NullString{String: to, Valid: to != ""}, byAlias, attachment, id)
}

// LinksTo returns the links that lead to the note at path, by the note they are in and then
// in the order written. As a search does, it reads without handing its context to SQLite (see
// uninterrupted), and so do LinksFrom and UnresolvedLinks: a row a link.
func (s *Store) LinksTo(ctx context.Context, path string) ([]StoredLink, error) {
	ctx, err := uninterrupted(ctx)
	if err != nil {
		return nil, err
	}
	links, err := scanLinks(s.db.QueryContext(ctx, `SELECT `+linkColumns+`
		FROM `+linksJoined+`
		WHERE l.to_note = (SELECT id FROM link_notes WHERE path = ?) ORDER BY n.path, l.ord`, path))
	if err != nil {
		return nil, fmt.Errorf("read the links to %s: %w", path, err)
	}
	return links, nil
}

// LinksFrom returns the links written in the note at path, in order, and whether the graph
// holds the note.
func (s *Store) LinksFrom(ctx context.Context, path string) ([]StoredLink, bool, error) {
	ctx, err := uninterrupted(ctx)
	if err != nil {
		return nil, false, err
	}
	var found bool
	err = s.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM link_notes WHERE path = ?)`, path).Scan(&found)
	if err != nil || !found {
		return nil, false, err
	}
	links, err := scanLinks(s.db.QueryContext(ctx, `SELECT `+linkColumns+`
		FROM `+linksJoined+`
		WHERE n.path = ? ORDER BY l.ord`, path))
	if err != nil {
		return nil, false, fmt.Errorf("read the links from %s: %w", path, err)
	}
	return links, true, nil
}

// UnresolvedLinks returns the links that lead to no note and are not attachments, by target
// key, then by the note they are in and the order written. A targetKey other than "" keeps
// only the links to that path.
func (s *Store) UnresolvedLinks(ctx context.Context, targetKey string) ([]StoredLink, error) {
	ctx, err := uninterrupted(ctx)
	if err != nil {
		return nil, err
	}
	query := `SELECT ` + linkColumns + `
		FROM ` + linksJoined + `
		WHERE l.to_note IS NULL AND NOT l.attachment %s
		ORDER BY l.target_key, n.path, l.ord`
	var args []any
	filter := ""
	if targetKey != "" {
		filter, args = "AND l.target_key = ?", []any{targetKey}
	}
	links, err := scanLinks(s.db.QueryContext(ctx, fmt.Sprintf(query, filter), args...))
	if err != nil {
		return nil, fmt.Errorf("read the unresolved links: %w", err)
	}
	return links, nil
}

// LinksDisagree returns the notes that the link graph and the rest of the index do not agree
// on: those the graph holds and the index does not, and those the index holds whose links are
// missing or were read from another version of the note than its sections. Both hold every
// note that was stored whole, from one version, so these are usually few: notes whose
// embedding or whose links failed, or whose embedding a stop cut short. Both lists are in
// path order.
func (s *Store) LinksDisagree(ctx context.Context) (onlyLinked, stale []string, err error) {
	states, err := s.NoteStates(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("compare the link graph with the index: %w", err)
	}
	return s.LinksDisagreeWith(ctx, states)
}

// LinksDisagreeWith is LinksDisagree for a caller that has just read the index's NoteStates,
// as a catch-up has. It reads each note's version from the graph, a row a note read as
// NoteStates reads its rows, and compares the two in memory: a join in SQL would look each
// note up in the other table, which costs more than reading both tables through.
func (s *Store) LinksDisagreeWith(ctx context.Context, states map[string]NoteState) (onlyLinked, stale []string, err error) {
	rows, err := s.db.QueryContext(context.WithoutCancel(ctx), `SELECT path, version FROM link_notes`)
	if err != nil {
		return nil, nil, fmt.Errorf("compare the link graph with the index: %w", err)
	}
	defer rows.Close()
	matched := 0 // notes of states the graph holds
	var linked []string
	for rows.Next() {
		if err := ctx.Err(); err != nil {
			return nil, nil, fmt.Errorf("compare the link graph with the index: %w", err)
		}
		var path, version string
		if err := rows.Scan(&path, &version); err != nil {
			return nil, nil, fmt.Errorf("compare the link graph with the index: %w", err)
		}
		linked = append(linked, path)
		switch st, indexed := states[path]; {
		case !indexed:
			onlyLinked = append(onlyLinked, path)
		case st.Hash != version:
			matched++
			stale = append(stale, path)
		default:
			matched++
		}
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("compare the link graph with the index: %w", err)
	}
	if matched < len(states) { // some notes have no links stored at all: find which
		holds := make(map[string]bool, len(linked))
		for _, path := range linked {
			holds[path] = true
		}
		for path := range states {
			if !holds[path] {
				stale = append(stale, path)
			}
		}
	}
	slices.Sort(onlyLinked)
	slices.Sort(stale)
	return onlyLinked, stale, nil
}

// LinkedNotes returns the paths of every note the link graph holds.
func (s *Store) LinkedNotes(ctx context.Context) ([]string, error) {
	paths, err := column[string](s.db.QueryContext(ctx, `SELECT path FROM link_notes`))
	if err != nil {
		return nil, fmt.Errorf("list the notes of the link graph: %w", err)
	}
	return paths, nil
}

func scanLinks(rows *sql.Rows, err error) ([]StoredLink, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var links []StoredLink
	for rows.Next() {
		var l StoredLink
		var written deflated
		var name string
		var alias bool
		err := rows.Scan(&l.ID, &l.From, &written, &l.TargetKey, &name, &alias, &l.To, &l.ByAlias, &l.Attachment)
		if err != nil {
			return nil, err
		}
		l.Written = []byte(written)
		if name != "" { // "" for a link to its own note, which seeks nothing
			l.Seeks = []string{name}
		}
		if alias {
			l.Seeks = append(l.Seeks, l.TargetKey)
		}
		links = append(links, l)
	}
	return links, rows.Err()
}

// column reads the one column of rows.
func column[T any](rows *sql.Rows, err error) ([]T, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		var v T
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
