package sqlitestore

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/agent/session"
	"github.com/tetherdev/tether/checkpoint"
	cpsqlite "github.com/tetherdev/tether/checkpoint/sqlitestore"
)

// TestSQLiteEventPaging reads a log longer than one page.
func TestSQLiteEventPaging(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "t.db"))
	require.NoError(t, err)
	defer s.Close()
	require.NoError(t, s.Create(ctx, session.Info{ID: "a"}))
	for i := range eventPage*2 + 3 {
		_, err := s.AppendEvent(ctx, "a", time.Unix(1700000000, 0), event.TextDelta{Text: string(rune('a' + i%26))})
		require.NoError(t, err)
	}
	n := int64(0)
	for se, err := range s.Events(ctx, "a", 0) {
		require.NoError(t, err)
		n++
		require.Equal(t, n, se.Seq)
	}
	require.Equal(t, int64(eventPage*2+3), n)
}

// TestSharedDatabase: sessions and checkpoints live in one SQLite file,
// through two connections, each with its own schema version.
func TestSharedDatabase(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "tether.db")
	cps, err := cpsqlite.Open(ctx, db)
	require.NoError(t, err)
	defer cps.Close()
	ss, err := Open(ctx, db)
	require.NoError(t, err)
	require.NoError(t, cps.Create(ctx, checkpoint.Info{ID: "cp1", Session: "ses_1", Label: "x", Created: time.Unix(1700000000, 0), State: "open"}))
	require.NoError(t, ss.Create(ctx, session.Info{ID: "ses_1", Created: time.Unix(1700000000, 0), Updated: time.Unix(1700000000, 0)}))
	v, err := ss.SchemaVersion(ctx)
	require.NoError(t, err)
	require.Equal(t, len(migrations), v)
	require.NoError(t, ss.Close())

	// Reopening both (a new process) finds both.
	ss, err = Open(ctx, db)
	require.NoError(t, err)
	defer ss.Close()
	_, err = ss.Info(ctx, "ses_1")
	require.NoError(t, err)
	cps2, err := cpsqlite.Open(ctx, db)
	require.NoError(t, err)
	defer cps2.Close()
	info, err := cps2.Info(ctx, "cp1")
	require.NoError(t, err)
	require.Equal(t, "ses_1", info.Session)
}
