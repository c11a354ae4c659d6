package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// Stats is what the index holds.
type Stats struct {
	Notes    int
	Sections int
	Embedder Embedder // zero until the index has been built
}

// Stats counts the notes and sections in the index and says which embedder built it.
func (s *Store) Stats(ctx context.Context) (Stats, error) {
	var st Stats
	err := s.db.QueryRowContext(ctx, `
		SELECT (SELECT count(*) FROM notes), (SELECT count(*) FROM sections)`).Scan(&st.Notes, &st.Sections)
	if err != nil {
		return Stats{}, fmt.Errorf("count the index's notes: %w", err)
	}
	if st.Embedder, err = s.Embedder(ctx); err != nil {
		return Stats{}, err
	}
	return st, nil
}

// HasFolder reports whether any note in the index is in folder (at any depth). The ranges are
// those SearchNotes filters with, so a folder or tag found here is one it can find notes in.
func (s *Store) HasFolder(ctx context.Context, folder string) (bool, error) {
	folder = strings.Trim(folder, "/")
	var found bool
	err := s.db.QueryRowContext(ctx, `
		SELECT EXISTS (SELECT 1 FROM notes WHERE path >= :f || '/' AND path < :f || '0')`,
		sql.Named("f", folder)).Scan(&found)
	if err != nil {
		return false, fmt.Errorf("look for folder %q: %w", folder, err)
	}
	return found, nil
}

// HasTag reports whether any note in the index carries tag, or a tag nested under it.
func (s *Store) HasTag(ctx context.Context, tag string) (bool, error) {
	tag = normalizeTag(tag)
	var found bool
	err := s.db.QueryRowContext(ctx, `
		SELECT EXISTS (SELECT 1 FROM tags WHERE tag = :t OR (tag >= :t || '/' AND tag < :t || '0'))`,
		sql.Named("t", tag)).Scan(&found)
	if err != nil {
		return false, fmt.Errorf("look for tag %q: %w", tag, err)
	}
	return found, nil
}

// State returns what the index knows of the file behind the note at path, and whether it holds
// the note at all. A watcher asks it to skip notes saved without a change.
func (s *Store) State(ctx context.Context, path string) (NoteState, bool, error) {
	st, err := scanState(s.db.QueryRowContext(ctx, `SELECT `+noteStateColumns+` FROM notes WHERE path = ?`, path))
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return NoteState{}, false, nil
	case err != nil:
		return NoteState{}, false, fmt.Errorf("read the state of %s: %w", path, err)
	}
	return st, true, nil
}

// Check verifies the index file: SQLite's own integrity check, the links from sections and tags
// to their notes, and that every vector belongs to a section. Each note is written in one
// transaction, so an index passes even after its process was killed mid-write. An error means
// the file is damaged; the index is derived data, and deleting the file rebuilds it.
func (s *Store) Check(ctx context.Context) error {
	var problem string
	err := s.db.QueryRowContext(ctx, `
		SELECT coalesce(
			(SELECT group_concat(integrity_check, '; ') FROM pragma_integrity_check WHERE integrity_check <> 'ok'),
			(SELECT 'foreign key: ' || "table" || ' row ' || rowid FROM pragma_foreign_key_check LIMIT 1),
			(SELECT 'vector ' || rowid || ' has no section' FROM vectors
			 WHERE rowid NOT IN (SELECT id FROM sections) LIMIT 1),
			'')`).Scan(&problem)
	switch {
	case err != nil:
		return fmt.Errorf("check the index %s: %w", s.path, err)
	case problem != "":
		return fmt.Errorf("the index %s is damaged (%s): delete it, and it is rebuilt at the next start", s.path, problem)
	}
	return nil
}
