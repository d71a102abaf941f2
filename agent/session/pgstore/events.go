package pgstore

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/agent/session"
)

func (s *Store) AppendEvent(ctx context.Context, id string, at time.Time, ev event.Event) (int64, error) {
	data, err := event.Marshal(ev)
	if err != nil {
		return 0, err
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return 0, fmt.Errorf("session %q: event: %w", id, err)
	}
	defer tx.Rollback(ctx)
	// The session row's lock, held to commit, orders concurrent appenders.
	var seq int64
	err = tx.QueryRow(ctx, `UPDATE tether_sessions SET last_seq = last_seq + 1 WHERE id = $1 RETURNING last_seq`, id).Scan(&seq)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, notFound(id)
	}
	if err != nil {
		return 0, fmt.Errorf("session %q: event: %w", id, err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO tether_session_events (session, seq, type, time_ns, data) VALUES ($1, $2, $3, $4, $5)`,
		id, seq, ev.Type(), at.UnixNano(), string(data)); err != nil {
		return 0, fmt.Errorf("session %q: event: %w", id, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return 0, fmt.Errorf("session %q: event: %w", id, err)
	}
	return seq, nil
}

// eventPage bounds the rows read per query, so a long log streams with
// bounded memory and no connection is held while the caller works.
const eventPage = 500

func (s *Store) Events(ctx context.Context, id string, after int64) iter.Seq2[session.StoredEvent, error] {
	return func(yield func(session.StoredEvent, error) bool) {
		if _, err := s.Info(ctx, id); err != nil {
			yield(session.StoredEvent{}, err)
			return
		}
		for {
			rows, err := s.pool.Query(ctx, `SELECT seq, time_ns, data FROM tether_session_events
				WHERE session = $1 AND seq > $2 ORDER BY seq LIMIT $3`, id, after, eventPage)
			if err != nil {
				yield(session.StoredEvent{}, fmt.Errorf("session %q: events: %w", id, err))
				return
			}
			type row struct {
				seq, ns int64
				data    string
			}
			page, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (row, error) {
				var x row
				return x, r.Scan(&x.seq, &x.ns, &x.data)
			})
			if err != nil {
				yield(session.StoredEvent{}, fmt.Errorf("session %q: events: %w", id, err))
				return
			}
			for _, r := range page {
				after = r.seq
				if !yield(session.DecodeEvent(r.seq, time.Unix(0, r.ns), []byte(r.data))) {
					return
				}
			}
			if len(page) < eventPage {
				return
			}
		}
	}
}

func (s *Store) Lease(ctx context.Context, id, owner string, now, until time.Time) error {
	// One statement, atomic under PostgreSQL's row locking: insert, or
	// take over an expired lease, or renew one's own.
	tag, err := s.pool.Exec(ctx, `INSERT INTO tether_session_leases (session, owner, until_ns) VALUES ($1, $2, $3)
		ON CONFLICT (session) DO UPDATE SET owner = excluded.owner, until_ns = excluded.until_ns
		WHERE tether_session_leases.owner = excluded.owner OR tether_session_leases.until_ns <= $4`,
		id, owner, until.UnixNano(), now.UnixNano())
	if isCode(err, foreignKeyViolation) {
		return notFound(id)
	}
	if err != nil {
		return fmt.Errorf("session %q: lease: %w", id, err)
	}
	if tag.RowsAffected() == 1 {
		return nil
	}
	var holder string
	var ns int64
	err = s.pool.QueryRow(ctx, `SELECT owner, until_ns FROM tether_session_leases WHERE session = $1`, id).Scan(&holder, &ns)
	if errors.Is(err, pgx.ErrNoRows) { // released between the two statements: try again
		return s.Lease(ctx, id, owner, now, until)
	}
	if err != nil {
		return fmt.Errorf("session %q: lease: %w", id, err)
	}
	return &session.LeaseError{Session: id, Owner: holder, Until: time.Unix(0, ns)}
}

func (s *Store) Release(ctx context.Context, id, owner string) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM tether_session_leases WHERE session = $1 AND owner = $2`, id, owner); err != nil {
		return fmt.Errorf("session %q: release: %w", id, err)
	}
	return nil
}
