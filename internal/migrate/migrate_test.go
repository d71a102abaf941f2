package migrate

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"

	_ "modernc.org/sqlite"
)

var errTooNew = errors.New("too new")

func open(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "m.db"))
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

func version(t *testing.T, db *sql.DB) int {
	t.Helper()
	var v int
	if err := db.QueryRow(`SELECT version FROM v`).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestRun(t *testing.T) {
	ctx := context.Background()
	db := open(t)
	one := []string{`CREATE TABLE a (x INTEGER)`}
	two := append(one, `CREATE TABLE b (y INTEGER)`)

	if err := RunSQL(ctx, db, "v", one, errTooNew); err != nil {
		t.Fatal(err)
	}
	if err := RunSQL(ctx, db, "v", one, errTooNew); err != nil {
		t.Fatalf("re-running applied migrations: %v", err)
	}
	if err := RunSQL(ctx, db, "v", two, errTooNew); err != nil || version(t, db) != 2 {
		t.Fatalf("upgrade: err %v, version %d", err, version(t, db))
	}

	// A failing migration applies nothing: the version and the tables stay.
	bad := append(two, `CREATE TABLE c (z INTEGER)`, `NOT SQL`)
	if err := RunSQL(ctx, db, "v", bad, errTooNew); err == nil {
		t.Fatal("a broken migration was accepted")
	}
	if v := version(t, db); v != 2 {
		t.Errorf("version after a failed migration = %d, want 2", v)
	}
	if _, err := db.Exec(`SELECT * FROM c`); err == nil {
		t.Error("table c exists: a failed run was partly applied")
	}

	// An older program refuses a newer file.
	if err := RunSQL(ctx, db, "v", one, errTooNew); !errors.Is(err, errTooNew) {
		t.Errorf("older migration list on a newer file: %v, want errTooNew", err)
	}
}
