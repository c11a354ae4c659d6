package store

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"sync/atomic"
)

// Dead slots, and compaction.
//
// sqlite-vec v0.1.6 keeps vectors in chunks of slots (signChunk) and reuses the slot of a deleted
// vector only in the newest chunk (asg017/sqlite-vec issues 54, 178, 184, 185). Every edit to a
// note stores its sections again, so it leaves its old vectors' slots dead, in the file for
// good. The other tables leave waste too, of a kind SQLite reclaims only when asked: pages left
// part-empty by deletions all over the B-trees, and keyword segments that still hold deleted
// sections until FTS5 merges them. A vault edited every day for a year would have an index many
// times the size of a fresh one, and slower to read.
//
// So an index that KeepCompact looks after counts the vectors it deletes (the meta row
// dead_vectors, written in the same transaction as the deletion; a slot the newest chunk
// reuses is counted too, so the count errs towards compacting early), and when too few slots
// are live, the write that crossed the line compacts the index: it rebuilds the vectors table
// from the live vectors and merges the keyword index, in one transaction, then VACUUMs the
// file. Searches go on meanwhile: in WAL mode a reader never waits for a writer, and the signs
// in memory do not change, since every section keeps its id and its signs.

// MinLiveShare is the share of the vector slots that must be live, or the index compacts.
// The other tables' waste grows with the dead slots, a few KB for each at 768 dimensions, so a
// quarter dead keeps a churned index within about 1.2 times the size of a fresh one at its
// largest (the pages it empties given back, see giveBack), and compacting, which rewrites the file, happens once for every third of the
// sections written again (BenchmarkChurn).
const MinLiveShare = 0.75

// minDead is how many dead slots there must be before compacting is worth its fixed cost.
const minDead = 1024

// Slots says how many vectors the index holds (live) and how many slots deleted vectors left
// behind (dead) since it was built or last compacted. Only the deletions of writes that
// KeepCompact looks after are counted. An index whose embedder is not confirmed (see
// CheckEmbedder) may have no vectors table yet, and has no slots.
func (s *Store) Slots(ctx context.Context) (live, dead int, err error) {
	if _, err := s.confirmed(); err != nil {
		return 0, 0, nil
	}
	err = s.db.QueryRowContext(ctx, `
		SELECT (SELECT count(*) FROM vectors_rowids),
		       coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'dead_vectors'), 0)`).Scan(&live, &dead)
	if err != nil {
		return 0, 0, fmt.Errorf("count the index's vector slots: %w", err)
	}
	return live, dead, nil
}

// countDead adds n to the dead slots, in tx, the transaction that deleted their vectors.
func countDead(ctx context.Context, tx *sql.Tx, n int) error {
	_, err := tx.ExecContext(ctx, `
		INSERT INTO meta (key, value) VALUES ('dead_vectors', ?)
		ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + CAST(excluded.value AS INTEGER)`, n)
	return err
}

// wasteful reports whether the live slots have fallen below MinLiveShare of all the slots.
func wasteful(live, dead int) bool {
	return dead >= minDead && float64(live) < MinLiveShare*float64(live+dead)
}

// Compaction is the upkeep that KeepCompact adds to an index: what it reports.
type Compaction struct {
	s       *Store
	err     atomic.Pointer[error] // of the latest compaction; nil before the first
	retryAt atomic.Int64          // after a failure: the dead slots to wait for
}

// KeepCompact makes s look after its size at every write, as an index written while it is
// served needs: a write that deletes vectors counts their slots as dead, in its own
// transaction, and compacts the index once too few slots are live; a write that leaves the
// write-ahead log past maxLog empties it (see trimLog); and one that leaves more than
// maxFreePages empty pages gives them back to the file system (see giveBack). Call it once, after Open and
// before the index is shared with other goroutines. An index that is only ever built and then
// read has no need of it: nothing in it dies, and no search holds the log open against a
// writer.
func (s *Store) KeepCompact() *Compaction {
	c := &Compaction{s: s}
	transact := s.write
	s.write = func(ctx context.Context, changes *signChanges, fn func(*sql.Tx) error) error {
		removed := 0
		err := transact(ctx, changes, func(tx *sql.Tx) error {
			if err := fn(tx); err != nil {
				return err
			}
			if removed = changes.removed(); removed > 0 {
				return countDead(ctx, tx, removed)
			}
			return nil
		})
		if err != nil {
			return err
		}
		if removed > 0 {
			c.compactIfWasteful(ctx)
		}
		s.trimLog(ctx, maxLog)
		s.giveBack(ctx)
		return nil
	}
	return c
}

// Err returns why the latest compaction failed, or nil if it did not (or none has run).
func (c *Compaction) Err() error {
	if err := c.err.Load(); err != nil {
		return *err
	}
	return nil
}

// compactIfWasteful compacts the index when it has become wasteful. A compaction that fails
// (a full disk, say) is tried again once another minDead slots have died, not at every
// write; its error is kept for Err.
func (c *Compaction) compactIfWasteful(ctx context.Context) {
	live, dead, err := c.s.Slots(ctx)
	if err != nil || !wasteful(live, dead) || dead < int(c.retryAt.Load()) {
		return
	}
	err = c.s.Compact(ctx)
	c.err.Store(&err)
	if err != nil {
		c.retryAt.Store(int64(dead + minDead))
	}
}

// maxLog is the size past which the write-ahead log is emptied after a write.
const maxLog = 8 << 20

// trimLog empties the write-ahead log when it has grown past over bytes. SQLite starts the log
// again from the top only when no search is reading it, so with searches one after another it
// grows with every write, and each search looks up pages in a longer log. A TRUNCATE
// checkpoint waits, the busy timeout at most, for the searches already running to finish
// (new ones read the file, which then holds everything), copies the log into the file and
// cuts the log to nothing.
func (s *Store) trimLog(ctx context.Context, over int64) {
	if info, err := os.Stat(s.path + "-wal"); err == nil && info.Size() > over {
		s.db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
	}
}

// maxFreePages is how many empty pages an index keeps for the writes to come: 256 KiB.
const maxFreePages = 64

// giveBack gives the file's empty pages back to the file system once more than maxFreePages
// wait. A deletion empties pages, and FTS5 empties a whole segment's when it merges it into
// another; SQLite keeps them for later writes to reuse, so the file stays at the largest size
// it ever reached: in BenchmarkChurn, up to an eighth of the file just before a compaction.
// With auto_vacuum = INCREMENTAL (see Open and Compact), incremental_vacuum moves the pages at the end
// of the file into the empty ones and cuts it short.
func (s *Store) giveBack(ctx context.Context) {
	var free int
	err := s.db.QueryRowContext(ctx, `SELECT freelist_count FROM pragma_freelist_count`).Scan(&free)
	if err == nil && free > maxFreePages {
		s.db.ExecContext(ctx, `PRAGMA incremental_vacuum`)
	}
}

// EmptyLog empties the write-ahead log, if it holds anything: for a writer that has nothing
// left to write. Otherwise the log waits beside the index until the next write, and SQLite
// keeps its file at the size it reached, up to the 4 MiB Open allows: more than the whole
// index of a small vault.
func (s *Store) EmptyLog(ctx context.Context) {
	s.trimLog(ctx, 0)
}

// Compact reclaims the space that deleted notes left in the index, whatever its share: it
// rebuilds the vectors table from the live vectors and merges the keyword index, in one
// transaction, then VACUUMs the file. Interrupted, it leaves the index as it was or compacted,
// never in between: the transaction commits whole or not at all, and so does VACUUM.
func (s *Store) Compact(ctx context.Context) error {
	e, err := s.confirmed()
	if err != nil {
		return err
	}
	err = s.write(ctx, nil, func(tx *sql.Tx) error {
		var ids []int64
		var signs [][]byte
		err := readSigns(ctx, tx, e.Dimension, func(id int64, sg []byte) {
			ids, signs = append(ids, id), append(signs, sg)
		})
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DROP TABLE vectors; `+createVectors(e.Dimension)+`;
			INSERT INTO words (words) VALUES ('optimize');
			DELETE FROM meta WHERE key = 'dead_vectors';`)
		if err != nil {
			return err
		}
		insert, err := tx.PrepareContext(ctx, `INSERT INTO vectors (rowid, embedding) VALUES (?, vec_bit(?))`)
		if err != nil {
			return err
		}
		defer insert.Close()
		for i, id := range ids {
			if _, err := insert.ExecContext(ctx, id, signs[i]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("compact the index: %w", err)
	}
	// VACUUM writes the whole file anew, its pages full and in order. It cannot run inside a
	// transaction, and it needs as much free disk again as the file takes while it runs. Nor
	// can it run beside another statement of its connection, and to make a context able to
	// interrupt a statement, the driver keeps one started: so VACUUM runs to its end (a few
	// seconds at most) even when ctx ends.
	whole := context.WithoutCancel(ctx)
	conn, err := s.db.Conn(whole)
	if err != nil {
		return fmt.Errorf("compact the index: %w", s.failed(err))
	}
	defer conn.Close()
	// An index made before Open asked for auto_vacuum takes it on here (see giveBack).
	if _, err := conn.ExecContext(whole, `PRAGMA auto_vacuum = INCREMENTAL`); err != nil {
		return fmt.Errorf("compact the index: %w", s.failed(err))
	}
	if _, err := conn.ExecContext(whole, `VACUUM`); err != nil {
		return fmt.Errorf("compact the index: %w", s.failed(err))
	}
	// VACUUM went through the write-ahead log, which is now as large as the file; SQLite
	// keeps a log's file at its largest size for reuse, so empty it while nobody reads.
	s.db.ExecContext(whole, `PRAGMA wal_checkpoint(TRUNCATE)`)
	return nil
}
