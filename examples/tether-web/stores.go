package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/tetherdev/tether/agent/session"
	sessionpg "github.com/tetherdev/tether/agent/session/pgstore"
	sessionsqlite "github.com/tetherdev/tether/agent/session/sqlitestore"
	"github.com/tetherdev/tether/checkpoint"
	cppg "github.com/tetherdev/tether/checkpoint/pgstore"
	cpsqlite "github.com/tetherdev/tether/checkpoint/sqlitestore"
)

// isPostgres reports whether -db names a PostgreSQL database rather than
// a SQLite file.
func isPostgres(db string) bool {
	return strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://")
}

// openStores opens the checkpoint and session stores -db names: both in
// one PostgreSQL database for a postgres:// URL (web processes on it share
// sessions, a session lease keeping two of them from running one at once),
// both in one SQLite file for a path, in memory when it is empty.
func (s *server) openStores(ctx context.Context, db string) (checkpoint.Store, session.Store, error) {
	type closer interface{ Close() error }
	var cp interface {
		checkpoint.Store
		closer
	}
	var ss interface {
		session.Store
		closer
	}
	var err error
	switch {
	case db == "":
		return checkpoint.NewMemoryStore(), session.NewMemoryStore(), nil
	case isPostgres(db):
		if cp, err = cppg.Open(ctx, db); err != nil {
			return nil, nil, fmt.Errorf("checkpoints: %w", err)
		}
		s.closers = append(s.closers, cp.Close)
		if ss, err = sessionpg.Open(ctx, db); err != nil {
			return nil, nil, fmt.Errorf("sessions: %w", err)
		}
	default:
		if cp, err = cpsqlite.Open(ctx, db); err != nil {
			return nil, nil, fmt.Errorf("checkpoints: %w", err)
		}
		s.closers = append(s.closers, cp.Close)
		if ss, err = sessionsqlite.Open(ctx, db); err != nil {
			return nil, nil, fmt.Errorf("sessions: %w", err)
		}
	}
	s.closers = append(s.closers, ss.Close)
	return cp, ss, nil
}
