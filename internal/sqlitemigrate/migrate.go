// Package sqlitemigrate applies numbered schema migrations to a SQLite
// database. Checkpoints and sessions share one database file, each with its
// own version table, so each package keeps its own migration list.
package sqlitemigrate

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Run brings the schema recorded in versionTable up to len(migrations),
// applying migrations[v:] in one transaction: either all of them land or
// none. A file newer than this program is refused with an error wrapping
// tooNew, so an old binary never writes to a schema it does not know.
// versionTable is a trusted identifier, never user input.
func Run(ctx context.Context, db *sql.DB, versionTable string, migrations []string, tooNew error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS `+versionTable+` (version INTEGER NOT NULL)`); err != nil {
		return err
	}
	var v int
	err = tx.QueryRowContext(ctx, `SELECT version FROM `+versionTable).Scan(&v)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		if _, err := tx.ExecContext(ctx, `INSERT INTO `+versionTable+` (version) VALUES (0)`); err != nil {
			return err
		}
	case err != nil:
		return err
	}
	if v > len(migrations) {
		return fmt.Errorf("%w: version %d, this program knows %d", tooNew, v, len(migrations))
	}
	for ; v < len(migrations); v++ {
		if _, err := tx.ExecContext(ctx, migrations[v]); err != nil {
			return fmt.Errorf("migration %d: %w", v+1, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE `+versionTable+` SET version = ?`, v); err != nil {
		return err
	}
	return tx.Commit()
}
