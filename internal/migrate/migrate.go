// Package migrate applies numbered schema migrations, the same way on
// SQLite (through database/sql) and PostgreSQL (through pgx). Each store
// keeps its own migration list and its own one-row version table, so
// stores sharing one database migrate independently.
package migrate

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Tx is the part of a transaction the runner needs. The caller begins it
// and commits it after Run returns nil, so that a PostgreSQL store can take
// a lock in the same transaction first.
type Tx interface {
	// Exec runs a statement without arguments.
	Exec(ctx context.Context, query string) error
	// QueryInt runs a query returning at most one integer; found is false
	// when it returned no row.
	QueryInt(ctx context.Context, query string) (n int, found bool, err error)
}

// Run brings the schema recorded in versionTable up to len(migrations),
// applying migrations[v:] inside tx, so that either all of them land or
// none. A database newer than this program is refused with an error
// wrapping tooNew, so an old binary never writes to a schema it does not
// know. versionTable is a trusted identifier, never user input.
func Run(ctx context.Context, tx Tx, versionTable string, migrations []string, tooNew error) error {
	if err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS `+versionTable+` (version INTEGER NOT NULL)`); err != nil {
		return err
	}
	v, found, err := tx.QueryInt(ctx, `SELECT version FROM `+versionTable)
	if err != nil {
		return err
	}
	if !found {
		if err := tx.Exec(ctx, `INSERT INTO `+versionTable+` (version) VALUES (0)`); err != nil {
			return err
		}
	}
	if v > len(migrations) {
		return fmt.Errorf("%w: version %d, this program knows %d", tooNew, v, len(migrations))
	}
	for ; v < len(migrations); v++ {
		if err := tx.Exec(ctx, migrations[v]); err != nil {
			return fmt.Errorf("migration %d: %w", v+1, err)
		}
	}
	// v is an int this function counted: formatting it into the statement
	// keeps the runner free of any one driver's placeholder syntax.
	return tx.Exec(ctx, fmt.Sprintf(`UPDATE %s SET version = %d`, versionTable, v))
}

// RunSQL runs the migrations in one database/sql transaction and commits it.
func RunSQL(ctx context.Context, db *sql.DB, versionTable string, migrations []string, tooNew error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := Run(ctx, sqlTx{tx}, versionTable, migrations, tooNew); err != nil {
		return err
	}
	return tx.Commit()
}

type sqlTx struct{ tx *sql.Tx }

func (t sqlTx) Exec(ctx context.Context, query string) error {
	_, err := t.tx.ExecContext(ctx, query)
	return err
}

func (t sqlTx) QueryInt(ctx context.Context, query string) (int, bool, error) {
	var n int
	err := t.tx.QueryRowContext(ctx, query).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	return n, err == nil, err
}
