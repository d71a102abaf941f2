package sqlitestore_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent/session"
	"github.com/tetherdev/tether/agent/session/sqlitestore"
	"github.com/tetherdev/tether/checkpoint"
	cpsqlite "github.com/tetherdev/tether/checkpoint/sqlitestore"
	"github.com/tetherdev/tether/internal/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Session(t, func(t *testing.T) session.Store {
		s, err := sqlitestore.Open(context.Background(), filepath.Join(t.TempDir(), "tether.db"))
		require.NoError(t, err)
		t.Cleanup(func() { s.Close() })
		return s
	})
}

// openShared opens the checkpoint and session stores in one file, as a
// host does.
func openShared(t testing.TB, dir string) (checkpoint.Store, session.Store) {
	ctx := context.Background()
	db := filepath.Join(dir, "tether.db")
	cps, err := cpsqlite.Open(ctx, db)
	require.NoError(t, err)
	t.Cleanup(func() { cps.Close() })
	ss, err := sqlitestore.Open(ctx, db)
	require.NoError(t, err)
	t.Cleanup(func() { ss.Close() })
	return cps, ss
}

// TestWorkers: processes sharing one SQLite file resume each other's
// sessions, are locked out of a session another runs, and undo the edits
// of a worker killed mid-turn.
func TestWorkers(t *testing.T) { storetest.Workers(t, openShared) }
