// Package pgmigrate runs the project's migration runner (internal/migrate)
// on PostgreSQL through pgx, one store's migrations at a time across every
// process that opens the database.
package pgmigrate

import (
	"context"
	"errors"
	"hash/fnv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tetherdev/tether/internal/migrate"
)

// Run applies migrations in one transaction. It first takes a
// transaction-scoped advisory lock named after versionTable, so that
// workers starting together migrate one after the other instead of
// failing on each other's CREATE TABLE.
func Run(ctx context.Context, pool *pgxpool.Pool, versionTable string, migrations []string, tooNew error) error {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	h := fnv.New64a()
	h.Write([]byte("tether-migrate:" + versionTable))
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(h.Sum64())); err != nil {
		return err
	}
	if err := migrate.Run(ctx, pgTx{tx}, versionTable, migrations, tooNew); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

type pgTx struct{ tx pgx.Tx }

func (t pgTx) Exec(ctx context.Context, query string) error {
	// QueryExecModeSimpleProtocol: a migration may hold several
	// statements, which only the simple protocol accepts in one call.
	_, err := t.tx.Exec(ctx, query, pgx.QueryExecModeSimpleProtocol)
	return err
}

func (t pgTx) QueryInt(ctx context.Context, query string) (int, bool, error) {
	var n int
	err := t.tx.QueryRow(ctx, query).Scan(&n)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil
	}
	return n, err == nil, err
}
