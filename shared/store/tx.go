package store

import (
	"context"
	"database/sql"
)

// cachedTx is a transaction that prepares each query once. A batch runs the same few
// statements for every note and every link, and SQLite would otherwise compile each one again
// every time, which costs about as much as running it.
type cachedTx struct {
	ctx   context.Context
	tx    *sql.Tx
	stmts map[string]*sql.Stmt
}

func newCachedTx(ctx context.Context, tx *sql.Tx) *cachedTx {
	return &cachedTx{ctx: ctx, tx: tx, stmts: map[string]*sql.Stmt{}}
}

// close releases the prepared statements; the transaction itself is the caller's to end.
func (t *cachedTx) close() {
	for _, stmt := range t.stmts {
		stmt.Close()
	}
}

func (t *cachedTx) stmt(query string) (*sql.Stmt, error) {
	if stmt, ok := t.stmts[query]; ok {
		return stmt, nil
	}
	stmt, err := t.tx.PrepareContext(t.ctx, query)
	if err == nil {
		t.stmts[query] = stmt
	}
	return stmt, err
}

func (t *cachedTx) query(query string, args ...any) (*sql.Rows, error) {
	stmt, err := t.stmt(query)
	if err != nil {
		return nil, err
	}
	return stmt.QueryContext(t.ctx, args...)
}

func (t *cachedTx) exec(query string, args ...any) error {
	stmt, err := t.stmt(query)
	if err == nil {
		_, err = stmt.ExecContext(t.ctx, args...)
	}
	return err
}

// insert runs an INSERT and returns the rowid of the row it added.
func (t *cachedTx) insert(query string, args ...any) (int64, error) {
	stmt, err := t.stmt(query)
	if err != nil {
		return 0, err
	}
	res, err := stmt.ExecContext(t.ctx, args...)
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

func (t *cachedTx) queryRow(query string, args ...any) *sql.Row {
	stmt, err := t.stmt(query)
	if err != nil {
		return t.tx.QueryRowContext(t.ctx, query, args...) // gives the same error, from Scan
	}
	return stmt.QueryRowContext(t.ctx, args...)
}
