package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	"golang.org/x/text/unicode/norm"
)

// Note is what the index keeps about a note, apart from its sections. The fields are plain
// values, so that this package does not depend on the Markdown parser.
type Note struct {
	Path        string    // vault-relative, with '/' between folders
	Title       string    // shown in results
	Size        int64     // of the file, in bytes
	MTime       time.Time // of the file
	CTime       time.Time // of the file: its change time, where the system gives one
	FileID      uint64    // of the file: its identity (inode), where the system gives one
	Seen        time.Time // when Size and the times were read, before the content was
	Hash        string    // of the content; reconcile compares it when the state differs
	Frontmatter string    // a JSON object, or "" for none
	Tags        []string  // as the parser found them: "garden/vegetables" for #garden/vegetables
	Aliases     []string  // the note's other names, which keyword search weighs like its title
}

// Section is a piece of a note that was embedded: the text under a heading, or part of it
// when a long section was cut in several.
type Section struct {
	Heading string // "" for the text before the first heading
	Line    int    // where the section starts in the note, from 1
	Text    string // what was embedded, returned by Search
}

// NoteState is what reconcile compares with a file on disk: the state of the file when the
// note was read (size, times, identity; see Note), when that was, and the content's hash.
type NoteState struct {
	Size   int64
	MTime  time.Time
	CTime  time.Time
	FileID uint64
	Seen   time.Time
	Hash   string
}

// ErrNotFound is wrapped by the error of RenameNote for a path the index does not hold.
var ErrNotFound = errors.New("note not in the index")

// PutNote stores a note, its sections and their vectors (vectors[i] embeds sections[i]) in
// place of whatever the index held at n.Path. It is one transaction: if anything fails, the
// index keeps the previous version of the note, whole.
func (s *Store) PutNote(ctx context.Context, n Note, sections []Section, vectors [][]float32) error {
	return s.PutNotes(ctx, []Entry{{Note: n, Sections: sections, Vectors: vectors}})[0]
}

// Entry is a note to store, with its sections and their vectors (Vectors[i] embeds
// Sections[i]).
type Entry struct {
	Note     Note
	Sections []Section
	Vectors  [][]float32
	// Links, when not nil, writes the note's links (see UpdateLinks) behind the same savepoint
	// as its sections: the index then holds both from the same version of the note, or
	// neither.
	Links func(*LinkTx) error
}

// PutNotes stores each entry as PutNote would, all in one transaction, and returns each
// note's error (nil for those stored). Each note is written behind a savepoint: one that fails
// is rolled back to it, keeping its previous version whole, and the others are kept.
//
// A batch a transaction is faster than a note a transaction: FTS5 writes a segment of the
// keyword index at every commit, and merges small segments as they pile up.
func (s *Store) PutNotes(ctx context.Context, entries []Entry) []error {
	errs := make([]error, len(entries))
	e, err := s.confirmed()
	if err != nil {
		for i := range errs {
			errs[i] = err
		}
		return errs
	}
	// SQLite writes one note while another goroutine works out what to write for the next
	// ones (see prepareNote): the writer's time is then SQLite's alone.
	prepared := make(chan preparedNote, 2)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for _, entry := range entries {
			select {
			case prepared <- prepareNote(entry):
			case <-stop:
				return
			}
		}
	}()
	var changes signChanges
	err = s.write(ctx, &changes, func(tx *sql.Tx) error {
		t := newCachedTx(ctx, tx)
		defer t.close()
		for i, entry := range entries {
			p := <-prepared
			if _, err := tx.ExecContext(ctx, `SAVEPOINT note`); err != nil {
				return err
			}
			var noteChanges signChanges
			errs[i] = putNote(t, e, entry, p, &noteChanges)
			end := `RELEASE note`
			if errs[i] != nil {
				end = `ROLLBACK TO note; RELEASE note`
			} else {
				changes.join(&noteChanges)
			}
			if _, err := tx.ExecContext(ctx, end); err != nil {
				return err
			}
		}
		return nil
	})
	for i, entry := range entries {
		if errs[i] == nil && err != nil {
			errs[i] = err // the commit failed: no note was stored
		}
		if errs[i] != nil {
			errs[i] = fmt.Errorf("index %s: %w", entry.Note.Path, s.failed(errs[i]))
		}
	}
	return errs
}

// preparedNote is what putNote writes for a note that takes no SQL to work out: the words of
// its title and aliases and of each section, as the keyword index holds them, each section's
// text deflated, and its vector quantized, with its signs.
type preparedNote struct {
	names    names
	sections []preparedSection
}

type preparedSection struct {
	text          []byte  // deflated
	heading, body string  // the words of the keyword index
	scale         float64 // and vector: the vector quantized, as the embeddings table holds it
	vector        []byte
	signs         []byte
	err           error // why the vector cannot be stored; errZero when it has no direction
}

// prepareNote works out what putNote writes for entry, short of the SQL. It checks the
// vectors as putNote does, except their dimension, which takes the index's embedder.
func prepareNote(entry Entry) preparedNote {
	n := entry.Note
	p := preparedNote{names: nameWords(n.Title, strings.Join(n.Aliases, "\n"))}
	p.sections = make([]preparedSection, min(len(entry.Sections), len(entry.Vectors)))
	for i := range p.sections {
		sec, ps := entry.Sections[i], &p.sections[i]
		ps.text = deflate(sec.Text)
		ps.heading, ps.body = sectionWords(sec.Text)
		v := entry.Vectors[i]
		unit, err := unitVector(v, len(v))
		if ps.err = err; err == nil {
			// The signs come from the vector as stored, so that they and the vector agree.
			q := quantize(unit)
			ps.scale, ps.vector, ps.signs = q.scale, q.bytes(), signs(q.unit())
		}
	}
	return p
}

// putNote writes one note in t, in place of whatever the index held at its path; p is what
// prepareNote worked out for it.
func putNote(t *cachedTx, e Embedder, entry Entry, p preparedNote, changes *signChanges) error {
	n, sections, vectors := entry.Note, entry.Sections, entry.Vectors
	if n.Path == "" {
		return errors.New("its path is empty")
	}
	if len(sections) != len(vectors) {
		return fmt.Errorf("%d sections but %d vectors", len(sections), len(vectors))
	}
	if _, err := deleteNote(t, n.Path, changes); err != nil {
		return err
	}
	aliases := strings.Join(n.Aliases, "\n")
	noteID, err := t.insert(`
		INSERT INTO notes (path, title, size, mtime, ctime, file_id, seen_at, hash, frontmatter, aliases, indexed_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		n.Path, n.Title, n.Size, n.MTime.UnixNano(), nanos(n.CTime), int64(n.FileID), nanos(n.Seen), n.Hash,
		sql.NullString{String: n.Frontmatter, Valid: n.Frontmatter != ""},
		aliases,
		time.Now().UnixNano(),
	)
	if err != nil {
		return err
	}
	changes.names = append(changes.names, nameChange{to: &noteName{n.Path, n.Title, aliases}})
	for _, tag := range n.Tags {
		if tag = normalizeTag(tag); tag == "" {
			continue
		}
		if err := t.exec(`INSERT OR IGNORE INTO tags (note_id, tag) VALUES (?, ?)`, noteID, tag); err != nil {
			return err
		}
	}

	for i, sec := range sections {
		ps := p.sections[i]
		sectionID, err := t.insert(`
			INSERT INTO sections (note_id, ord, heading, line, text)
			VALUES (?, ?, ?, ?, ?)`, noteID, i, sec.Heading, sec.Line, ps.text)
		if err != nil {
			return err
		}
		if err := insertWords(t, sectionID, p.names, ps.heading, ps.body); err != nil {
			return err
		}
		if len(vectors[i]) != e.Dimension {
			_, ps.err = unitVector(vectors[i], e.Dimension) // says what is wrong
		}
		if errors.Is(ps.err, errZero) {
			continue // a section with nothing to embed is kept, but no search can find it
		}
		if ps.err != nil {
			return fmt.Errorf("the vector of section %d (%q) %w", i, sec.Heading, ps.err)
		}
		if err := t.exec(`INSERT INTO embeddings (id, scale, vector) VALUES (?, ?, ?)`, sectionID, ps.scale, ps.vector); err != nil {
			return err
		}
		if err := t.exec(`INSERT INTO vectors (rowid, embedding) VALUES (?, vec_bit(?))`, sectionID, ps.signs); err != nil {
			return err
		}
		changes.add(sectionID, ps.signs)
	}
	if entry.Links != nil {
		return entry.Links(&LinkTx{cachedTx: t}) // the note's links, of the same version (see Entry)
	}
	return nil
}

// DeleteNote removes the note at path from the index. A path the index does not hold is not
// an error: the note is gone either way.
func (s *Store) DeleteNote(ctx context.Context, path string) error {
	var changes signChanges
	err := s.write(ctx, &changes, func(tx *sql.Tx) error {
		t := newCachedTx(ctx, tx)
		defer t.close()
		_, err := deleteNote(t, path, &changes)
		return err
	})
	if err != nil {
		return fmt.Errorf("remove %s from the index: %w", path, err)
	}
	return nil
}

// deleteNote removes a note and all that belongs to it, and reports whether there was one.
//
// Foreign keys remove its sections and tags, but not its vectors: a virtual table takes no
// part in foreign keys, and vec0 refuses to be written by a trigger. So the vectors go first,
// one by one, since vec0 finds a vector by "rowid = ?" directly but answers
// "rowid IN (...)" outside a KNN query by reading the whole table.
func deleteNote(t *cachedTx, path string, changes *signChanges) (bool, error) {
	// One row for each section, or one row with a NULL section for a note without any.
	rows, err := t.query(`
		SELECT s.id FROM notes n LEFT JOIN sections s ON s.note_id = n.id
		WHERE n.path = ?`, path)
	if err != nil {
		return false, err
	}
	var ids []int64
	found := false
	for rows.Next() {
		var id sql.NullInt64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return false, err
		}
		found = true
		if id.Valid {
			ids = append(ids, id.Int64)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil || !found {
		return false, err
	}
	for _, id := range ids {
		if err := t.exec(`DELETE FROM vectors WHERE rowid = ?`, id); err != nil {
			return false, err
		}
		changes.remove(id)
		if err := t.exec(`DELETE FROM words WHERE rowid = ?`, id); err != nil {
			return false, err
		}
	}
	if err := t.exec(`DELETE FROM notes WHERE path = ?`, path); err != nil {
		return false, err
	}
	changes.names = append(changes.names, nameChange{from: path})
	return true, nil
}

// RenameNote moves a note from one path to another with its sections and vectors: a file
// that was only renamed needs no new embeddings. The title follows the new file name, as it
// does in Obsidian. Like a file system rename, it replaces a note already at the new path.
// It fails with an error wrapping ErrNotFound when the index does not hold from.
func (s *Store) RenameNote(ctx context.Context, from, to string) error {
	if from == to {
		return nil
	}
	var changes signChanges
	err := s.write(ctx, &changes, func(tx *sql.Tx) error {
		t := newCachedTx(ctx, tx)
		defer t.close()
		if _, err := deleteNote(t, to, &changes); err != nil {
			return err
		}
		var noteID int64
		title := strings.TrimSuffix(path.Base(to), ".md")
		err := t.queryRow(`UPDATE notes SET path = ?, title = ? WHERE path = ? RETURNING id`,
			to, title, from).Scan(&noteID)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		changes.names = append(changes.names, nameChange{from, &noteName{path: to, title: title}})
		// The keyword index holds the title with every section: write them again.
		err = t.exec(`DELETE FROM words WHERE rowid IN (SELECT id FROM sections WHERE note_id = ?)`, noteID)
		if err != nil {
			return err
		}
		return putNoteWords(t, noteID)
	})
	if err != nil {
		return fmt.Errorf("rename %s to %s in the index: %w", from, to, err)
	}
	return nil
}

// UpdateState records a new state of the file behind the note at path (its Hash aside: the
// content is the index's), keeping its sections and vectors: for a file whose content is the
// same as the index's (touched, saved without edits, renamed, or read again because its state
// was too recent to trust), so the next comparison with the disk finds nothing to do. It
// fails with an error wrapping ErrNotFound when the index does not hold path.
func (s *Store) UpdateState(ctx context.Context, path string, st NoteState) error {
	err := s.write(ctx, nil, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE notes SET size = ?, mtime = ?, ctime = ?, file_id = ?, seen_at = ? WHERE path = ?`,
			st.Size, st.MTime.UnixNano(), nanos(st.CTime), int64(st.FileID), nanos(st.Seen), path)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err == nil && n == 0 {
			err = ErrNotFound
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("update the state of %s in the index: %w", path, err)
	}
	return nil
}

// noteStateColumns are the columns a NoteState is read from, in scanState's order.
const noteStateColumns = `size, mtime, ctime, file_id, seen_at, hash`

// scanState reads a NoteState from a row of noteStateColumns, after dest.
func scanState(row interface{ Scan(...any) error }, dest ...any) (NoteState, error) {
	var st NoteState
	var mtime, ctime, fileID, seen int64
	err := row.Scan(append(dest, &st.Size, &mtime, &ctime, &fileID, &seen, &st.Hash)...)
	st.MTime, st.CTime, st.FileID, st.Seen = time.Unix(0, mtime), fromNanos(ctime), uint64(fileID), fromNanos(seen)
	return st, err
}

// NoteStates returns the state of the file behind every note in the index, by path: what
// reconcile compares with the vault on disk.
//
// It reads a row per note, and checks ctx itself between rows rather than handing it to the
// query: for a context that can be cancelled, the driver (ncruces/go-sqlite3 v0.21.3) arms
// SQLite's interrupt before each row and disarms it after, two more calls into SQLite per
// row, which made this read of thousands of small rows three times slower. A row of a table
// scan is a few microseconds' work, so a stop is noticed as soon either way.
func (s *Store) NoteStates(ctx context.Context) (map[string]NoteState, error) {
	rows, err := s.db.QueryContext(context.WithoutCancel(ctx), `SELECT path, `+noteStateColumns+` FROM notes`)
	if err != nil {
		return nil, fmt.Errorf("list indexed notes: %w", err)
	}
	defer rows.Close()
	states := make(map[string]NoteState)
	for rows.Next() {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("list indexed notes: %w", err)
		}
		var p string
		st, err := scanState(rows, &p)
		if err != nil {
			return nil, fmt.Errorf("list indexed notes: %w", err)
		}
		states[p] = st
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list indexed notes: %w", err)
	}
	return states, nil
}

// nanos stores t as Unix nanoseconds, and a zero t (not known) as 0.
func nanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// fromNanos reads what nanos stored.
func fromNanos(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n)
}

// normalizeTag gives a tag the form the index keeps: without '#', in lower case, because
// Obsidian treats #Garden and #garden as one tag, and in NFC, because a tag pasted from macOS
// may come decomposed while a model sends it composed.
func normalizeTag(tag string) string {
	return norm.NFC.String(strings.ToLower(strings.TrimPrefix(strings.TrimSpace(tag), "#")))
}

// names are the words of a note's title and aliases, as the keyword index holds them with each
// of its sections.
type names struct{ title, aliases string }

func nameWords(title, aliases string) names {
	return names{strings.Join(terms(title), " "), strings.Join(terms(aliases), " ")}
}

// putWords adds a section to the keyword index. Its row holds the note's title and aliases
// too: a query that names the note and a word of one section finds that section.
func putWords(t *cachedTx, sectionID int64, of names, text string) error {
	heading, body := sectionWords(text)
	return insertWords(t, sectionID, of, heading, body)
}

// sectionWords are the words of a section's headings and body, as the keyword index holds them.
func sectionWords(text string) (heading, body string) {
	heading, body = splitSection(text)
	return strings.Join(terms(heading), " "), strings.Join(terms(body), " ")
}

// insertWords adds a section's row to the keyword index, its words worked out already.
func insertWords(t *cachedTx, sectionID int64, of names, heading, body string) error {
	return t.exec(`INSERT INTO words (rowid, title, aliases, heading, body) VALUES (?, ?, ?, ?, ?)`,
		sectionID, of.title, of.aliases, heading, body)
}

// putNoteWords adds every section of a note to the keyword index, from what the notes and
// sections tables hold: for a renamed note, whose new title each section's row must hold.
func putNoteWords(t *cachedTx, noteID int64) error {
	var title, aliases string
	err := t.queryRow(`SELECT title, aliases FROM notes WHERE id = ?`, noteID).Scan(&title, &aliases)
	if err != nil {
		return err
	}
	rows, err := t.query(`SELECT id, text FROM sections WHERE note_id = ?`, noteID)
	if err != nil {
		return err
	}
	type row struct {
		id   int64
		text string
	}
	var sections []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.id, (*deflated)(&r.text)); err != nil {
			rows.Close()
			return err
		}
		sections = append(sections, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	of := nameWords(title, aliases)
	for _, sec := range sections {
		if err := putWords(t, sec.id, of, sec.text); err != nil {
			return err
		}
	}
	return nil
}

// splitSection takes apart a section's text as the parser writes it: a line naming the note
// and the headings down to the section ("Title > Heading > Subheading"), a blank line, and the
// body. It returns the headings without the title, and the body.
func splitSection(text string) (headings, body string) {
	prefix, body, found := strings.Cut(text, "\n\n")
	if !found {
		return "", text
	}
	_, headings, _ = strings.Cut(prefix, " > ")
	return headings, body
}
