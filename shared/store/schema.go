package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/ncruces/go-sqlite3"
)

// schemaVersion changes whenever the tables below change, or what goes into them. Open empties
// an index written with another version: it holds nothing that cannot be indexed again.
// Version 2 added the keyword index, and reads frontmatter as YAML does where version 1 lost
// the keys after an empty list item. Version 3 keeps one bit per number in vec0 and the exact
// vectors in a table. Version 4 keeps the link graph (see AddLinkTables). Version 5 keeps tags
// in NFC. Version 6 cuts English words of the keyword index to their Snowball stems. Version 7
// keeps each note's change time, file identity and the moment its state was read (see
// NoteState), and stamps its links with the version of the note they were read from. Version 8
// keeps a vector as a signed byte a number and a scale, a section's text deflated, and pages
// of 4 KiB: the index is half the size it was. Version 9 keeps each string of a link once, and
// its written form deflated (see linksTables).
const schemaVersion = 9

// applicationID marks the file as a vaultmcp index, in the header field SQLite reserves for
// the purpose ("vmcp" in ASCII). Open uses it to tell its own files from other databases.
const applicationID = 0x766d6370

// schema is every table except the vectors, whose size depends on the embedder (see Reset).
// STRICT tables reject a value of the wrong type instead of storing it anyway.
const schema = `
CREATE TABLE meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
) STRICT;

CREATE TABLE notes (
	id          INTEGER PRIMARY KEY,
	path        TEXT NOT NULL UNIQUE, -- vault-relative, '/' between folders
	title       TEXT NOT NULL,
	size        INTEGER NOT NULL,     -- bytes
	mtime       INTEGER NOT NULL,     -- Unix time in nanoseconds, exact for comparing
	ctime       INTEGER NOT NULL,     -- the change time, likewise; 0 where the system gives none
	file_id     INTEGER NOT NULL,     -- the file's identity (inode); 0 where the system gives none
	seen_at     INTEGER NOT NULL,     -- when size and times were read, in nanoseconds; 0 unknown
	hash        TEXT NOT NULL,        -- of the content, as the caller computes it: the note's version
	frontmatter TEXT CHECK (json_valid(frontmatter)), -- a JSON object, or NULL
	aliases     TEXT NOT NULL,        -- the note's other names, one a line
	indexed_at  INTEGER NOT NULL      -- Unix time in nanoseconds
) STRICT;

CREATE TABLE tags (
	note_id INTEGER NOT NULL REFERENCES notes ON DELETE CASCADE,
	tag     TEXT NOT NULL,            -- lower case, without '#'
	PRIMARY KEY (tag, note_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX tags_note ON tags (note_id);

CREATE TABLE sections (
	id      INTEGER PRIMARY KEY,      -- also the rowid of the section's vectors
	note_id INTEGER NOT NULL REFERENCES notes ON DELETE CASCADE,
	ord     INTEGER NOT NULL,         -- position in the note, from 0
	heading TEXT NOT NULL,
	line    INTEGER NOT NULL,
	text    BLOB NOT NULL,            -- what was embedded, deflated (see deflate)
	UNIQUE (note_id, ord)
) STRICT;

-- Each section's vector, small: a signed byte a number, which times scale is the vector at
-- unit length (see quantize). The vectors table holds one bit of each number, to find
-- candidates fast (see Search).
CREATE TABLE embeddings (
	id     INTEGER PRIMARY KEY REFERENCES sections ON DELETE CASCADE,
	scale  REAL NOT NULL,
	vector BLOB NOT NULL
) STRICT;
`

// init makes the file at s.path a current index: it creates the tables in a new file, and
// starts again in one written by another version.
func (s *Store) init(ctx context.Context) error {
	emptied := false
	err := s.write(ctx, nil, func(tx *sql.Tx) error {
		var app, tables int
		err := tx.QueryRowContext(ctx, `
			SELECT (SELECT application_id FROM pragma_application_id),
			       (SELECT count(*) FROM sqlite_schema)`).Scan(&app, &tables)
		switch {
		case err != nil:
			return err
		case app == 0 && tables == 0:
			return createSchema(ctx, tx)
		case app != applicationID:
			return errForeign
		}
		var version int
		err = tx.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'schema_version'`).Scan(&version)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if version == schemaVersion {
			return nil
		}
		if err := dropAll(ctx, tx); err != nil {
			return err
		}
		if err := createSchema(ctx, tx); err != nil {
			return err
		}
		emptied = true
		// Say why the index is empty: CheckEmbedder passes it on, and the rebuild that
		// follows records it.
		_, err = tx.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES ('emptied_because', ?)`,
			fmt.Sprintf("it was written with schema version %d, and this vaultmcp uses version %d", version, schemaVersion))
		return err
	})
	if err != nil {
		return err
	}
	if emptied {
		if err := s.repage(ctx); err != nil {
			return err
		}
	}
	// The write-ahead log lets searches read while a note is being written. The mode is
	// stored in the file; it is set after the checks so that a file that is not an index
	// is left as it was.
	_, err = s.db.ExecContext(ctx, `PRAGMA journal_mode = WAL`)
	return err
}

// pageSize is the size of the index's pages: SQLite's default, which a new file gets. Indexes
// before schema version 8 had pages of 16 KiB, which held five of their 3 KiB vectors where
// 4 KiB pages held one; a vector now takes 780 bytes, five to a 4 KiB page, and every table,
// however small, takes at least a page.
const pageSize = 4096

// repage gives an index emptied for a new schema the pages of a new file. SQLite changes the
// page size of a file only when VACUUM writes it anew, and not in write-ahead log mode; an
// empty index is written anew in an instant.
func (s *Store) repage(ctx context.Context) error {
	// VACUUM cannot run beside another statement of its connection, and the driver keeps
	// one started to let a context interrupt a statement (see Compact).
	ctx = context.WithoutCancel(ctx)
	conn, err := s.db.Conn(ctx) // the page size is set for the connection that runs VACUUM
	if err != nil {
		return err
	}
	defer conn.Close()
	var size int
	if err := conn.QueryRowContext(ctx, `PRAGMA page_size`).Scan(&size); err != nil || size == pageSize {
		return err
	}
	_, err = conn.ExecContext(ctx, fmt.Sprintf(`PRAGMA journal_mode = DELETE; PRAGMA page_size = %d; VACUUM`, pageSize))
	return err
}

func createSchema(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, schema+wordsTable+fmt.Sprintf(`
		PRAGMA application_id = %d;
		INSERT INTO meta (key, value) VALUES ('schema_version', '%d');`,
		applicationID, schemaVersion))
	return err
}

// dropAll removes every table. Virtual tables go first, since dropping one also drops the
// tables that hold its data.
func dropAll(ctx context.Context, tx *sql.Tx) error {
	for {
		var name string
		err := tx.QueryRowContext(ctx, `
			SELECT name FROM sqlite_schema
			WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
			ORDER BY sql LIKE 'CREATE VIRTUAL TABLE%' DESC
			LIMIT 1`).Scan(&name)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DROP TABLE `+sqlite3.QuoteIdentifier(name)); err != nil {
			return err
		}
	}
}

// Embedder names what turned text into the vectors in the index. Vectors from two models, or
// of two sizes, cannot be compared, so an index serves only the embedder that built it.
type Embedder struct {
	Name      string // the kind of embedder, such as "ollama" or "offline"
	Model     string // the model it runs, such as "nomic-embed-text"
	Dimension int    // the length of every vector
}

func (e Embedder) String() string {
	return fmt.Sprintf("%s/%s (%d dimensions)", e.Name, e.Model, e.Dimension)
}

// maxDimension is the longest vector a vec0 table accepts.
const maxDimension = 8192

// ErrRebuild is wrapped by the error of CheckEmbedder when the index cannot serve the given
// embedder: the caller must Reset it and index the vault again.
var ErrRebuild = errors.New("the index must be rebuilt")

// Embedder returns the embedder the index was built for, or the zero Embedder if it has
// never been built (or was emptied by a change of schema version).
func (s *Store) Embedder(ctx context.Context) (Embedder, error) {
	rows, err := s.db.QueryContext(ctx, `
		SELECT key, value FROM meta WHERE key IN ('embedder', 'model', 'dimension')`)
	if err != nil {
		return Embedder{}, fmt.Errorf("read the index's embedder: %w", err)
	}
	defer rows.Close()
	meta := make(map[string]string)
	for rows.Next() {
		var key, value string
		if err := rows.Scan(&key, &value); err != nil {
			return Embedder{}, fmt.Errorf("read the index's embedder: %w", err)
		}
		meta[key] = value
	}
	if err := rows.Err(); err != nil {
		return Embedder{}, fmt.Errorf("read the index's embedder: %w", err)
	}
	e := Embedder{Name: meta["embedder"], Model: meta["model"]}
	if d, ok := meta["dimension"]; ok {
		if e.Dimension, err = strconv.Atoi(d); err != nil {
			return Embedder{}, fmt.Errorf("the index's dimension %q is not a number: %w", d, ErrRebuild)
		}
	}
	return e, nil
}

// CheckEmbedder returns nil if the index was built for e, and then lets PutNote and Search
// use it. Otherwise it returns an error wrapping ErrRebuild that says why: the caller should
// Reset the index for e and index the vault again. An index must never be searched with
// another model's query vectors: the distances would mean nothing.
func (s *Store) CheckEmbedder(ctx context.Context, e Embedder) error {
	stored, err := s.Embedder(ctx)
	switch {
	case err != nil:
		return err
	case stored == Embedder{}:
		why := "it has not been built yet"
		s.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'emptied_because'`).Scan(&why)
		return fmt.Errorf("%w: %s", ErrRebuild, why)
	case stored != e:
		return fmt.Errorf("%w: it was built with %v, and the embedder now is %v", ErrRebuild, stored, e)
	}
	s.embedder.Store(&e)
	return nil
}

// Reset empties the index and prepares it for vectors from e, in one transaction. It drops
// every table, whatever made it, and creates the schema anew. A vec0 table has a fixed
// dimension, so the vector table is made for e: one bit for each of its dimensions, rounded up
// to whole bytes.
func (s *Store) Reset(ctx context.Context, e Embedder) error {
	return s.reset(ctx, e, nil)
}

// reset is Reset, with record, when not nil, run in the same transaction once the index is
// empty.
func (s *Store) reset(ctx context.Context, e Embedder, record func(*sql.Tx) error) error {
	if e.Name == "" || e.Model == "" {
		return fmt.Errorf("reset the index: the embedder needs a name and a model, got %q and %q", e.Name, e.Model)
	}
	if e.Dimension < 1 || e.Dimension > maxDimension {
		return fmt.Errorf("reset the index: the dimension must be between 1 and %d, got %d", maxDimension, e.Dimension)
	}
	err := s.write(ctx, &signChanges{reset: true}, func(tx *sql.Tx) error {
		if err := dropAll(ctx, tx); err != nil {
			return err
		}
		if err := createSchema(ctx, tx); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, createVectors(e.Dimension))
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES ('embedder', ?), ('model', ?), ('dimension', ?)`,
			e.Name, e.Model, strconv.Itoa(e.Dimension))
		if err == nil && record != nil {
			err = record(tx)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("reset the index for %v: %w", e, err)
	}
	s.embedder.Store(&e)
	return nil
}

// Rebuild is Reset that also records when and why the index was emptied, in the meta table,
// where Rebuilt reads it: a user who wonders why every note is being embedded again can ask.
func (s *Store) Rebuild(ctx context.Context, e Embedder, reason string) error {
	return s.reset(ctx, e, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES ('rebuilt_at', ?), ('rebuilt_because', ?)`,
			time.Now().UTC().Format(time.RFC3339), reason)
		return err
	})
}

// Rebuilt says when the index was last emptied by Rebuild, and why; a zero time and "" if it
// never was since its schema was made (by Open, or by Reset).
func (s *Store) Rebuilt(ctx context.Context) (at time.Time, because string, err error) {
	var stamp sql.NullString
	err = s.db.QueryRowContext(ctx, `
		SELECT (SELECT value FROM meta WHERE key = 'rebuilt_at'),
		       coalesce((SELECT value FROM meta WHERE key = 'rebuilt_because'), '')`).Scan(&stamp, &because)
	if err != nil {
		return time.Time{}, "", fmt.Errorf("read when the index was rebuilt: %w", err)
	}
	if stamp.Valid {
		at, _ = time.Parse(time.RFC3339, stamp.String)
	}
	return at, because, nil
}

// confirmed returns the embedder that CheckEmbedder or Reset confirmed.
func (s *Store) confirmed() (Embedder, error) {
	e := s.embedder.Load()
	if e == nil {
		return Embedder{}, errors.New("the index's embedder is not confirmed: call CheckEmbedder, or Reset, after Open")
	}
	return *e, nil
}
