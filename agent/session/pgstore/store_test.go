package pgstore_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent/session"
	"github.com/tetherdev/tether/agent/session/pgstore"
	"github.com/tetherdev/tether/checkpoint"
	cppg "github.com/tetherdev/tether/checkpoint/pgstore"
	"github.com/tetherdev/tether/internal/pgtest"
	"github.com/tetherdev/tether/internal/storetest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

func TestConformance(t *testing.T) {
	storetest.Session(t, func(t *testing.T) session.Store {
		s, err := pgstore.Open(context.Background(), pgtest.Database(t))
		require.NoError(t, err)
		t.Cleanup(func() { s.Close() })
		return s
	})
}

// openShared opens both stores on one database. The first worker creates
// the database and leaves its connection string in dir for the others.
func openShared(t testing.TB, dir string) (checkpoint.Store, session.Store) {
	ctx := context.Background()
	file := filepath.Join(dir, "dsn")
	dsn, err := os.ReadFile(file)
	if os.IsNotExist(err) {
		dsn = []byte(pgtest.Database(t))
		require.NoError(t, os.WriteFile(file, dsn, 0o600))
	} else {
		require.NoError(t, err)
	}
	cps, err := cppg.Open(ctx, string(dsn))
	require.NoError(t, err)
	t.Cleanup(func() { cps.Close() })
	ss, err := pgstore.Open(ctx, string(dsn))
	require.NoError(t, err)
	t.Cleanup(func() { ss.Close() })
	return cps, ss
}

// TestWorkers: worker processes sharing one PostgreSQL database resume
// each other's sessions, are locked out of a session another runs, and
// undo the edits of a worker killed with SIGKILL mid-turn.
func TestWorkers(t *testing.T) { storetest.Workers(t, openShared) }
