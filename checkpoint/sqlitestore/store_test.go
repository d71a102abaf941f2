package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/tetherdev/tether/checkpoint"
	"github.com/tetherdev/tether/internal/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Checkpoint(t, func(t *testing.T) checkpoint.Store {
		s, err := Open(context.Background(), filepath.Join(t.TempDir(), "cp.db"))
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// TestSQLiteMigratesOldStore opens a store left at schema version 1 and
// checks that it is upgraded in place, data kept.
func TestSQLiteMigratesOldStore(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{
		`CREATE TABLE schema_version (version INTEGER NOT NULL)`, `INSERT INTO schema_version VALUES (1)`, migrations[0],
		`INSERT INTO checkpoints (id, session, label, created_ns, state) VALUES ('old', 's', 'from v1', 1, 'open')`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v, _ := s.SchemaVersion(ctx); v != len(migrations) {
		t.Errorf("version after migration = %d, want %d", v, len(migrations))
	}
	if i, err := s.Info(ctx, "old"); err != nil || i.Label != "from v1" || i.Workspace != "" {
		t.Errorf("v1 checkpoint after migration = %+v, %v", i, err)
	}
}

func TestSQLiteReopenAndSchema(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "cp.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Create(ctx, checkpoint.Info{ID: "x", Session: "s", State: checkpoint.StateOpen, Created: time.Now()}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := s.SchemaVersion(ctx); err != nil || v != len(migrations) {
		t.Errorf("SchemaVersion = %d, %v; want %d", v, err, len(migrations))
	}
	if _, err := s.Info(ctx, "x"); err != nil {
		t.Errorf("checkpoint lost across reopen: %v", err)
	}
	// A store written by a newer program is refused, not misread.
	if _, err := s.db.ExecContext(ctx, `UPDATE schema_version SET version = 999`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := Open(ctx, path); !errors.Is(err, checkpoint.ErrSchemaTooNew) {
		t.Errorf("Open(newer schema) = %v, want ErrSchemaTooNew", err)
	}
	if _, err := Open(ctx, ""); err == nil {
		t.Error("Open(\"\") succeeded")
	}
}
