package pgstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/agent/session"
	"github.com/tetherdev/tether/internal/pgmigrate"
	"github.com/tetherdev/tether/llm"
)

// Store is a [session.Store] in PostgreSQL, safe for concurrent use by
// any number of goroutines and processes.
type Store struct {
	pool    *pgxpool.Pool
	ownPool bool // Close closes the pool only when Open created it
}

var _ session.Store = (*Store)(nil)

// migrations are applied in order; tether_session_schema holds how many
// ran. Never edit an entry once released: append a new one.
var migrations = []string{
	`CREATE TABLE tether_sessions (
		id TEXT PRIMARY KEY,
		title TEXT NOT NULL,
		runs INTEGER NOT NULL,
		created_ns BIGINT NOT NULL,
		updated_ns BIGINT NOT NULL,
		memory TEXT NOT NULL,
		workspace TEXT NOT NULL,
		last_seq BIGINT NOT NULL DEFAULT 0
	);
	CREATE TABLE tether_session_messages (
		session TEXT NOT NULL REFERENCES tether_sessions(id) ON DELETE CASCADE,
		seq INTEGER NOT NULL,
		data TEXT NOT NULL,
		PRIMARY KEY (session, seq)
	);
	CREATE TABLE tether_session_events (
		session TEXT NOT NULL REFERENCES tether_sessions(id) ON DELETE CASCADE,
		seq BIGINT NOT NULL,
		type TEXT NOT NULL,
		time_ns BIGINT NOT NULL,
		data TEXT NOT NULL,
		PRIMARY KEY (session, seq)
	);
	CREATE TABLE tether_session_leases (
		session TEXT PRIMARY KEY REFERENCES tether_sessions(id) ON DELETE CASCADE,
		owner TEXT NOT NULL,
		until_ns BIGINT NOT NULL
	);`,
}

// Open connects to the database named by connString (a postgres:// URL or
// keyword/value string, as pgx accepts) and brings the session tables up
// to date. It fails with session.ErrSchemaTooNew if a newer Tether
// migrated them.
func Open(ctx context.Context, connString string) (*Store, error) {
	pool, err := pgxpool.New(ctx, connString)
	if err != nil {
		return nil, fmt.Errorf("session: pgstore: %w", err)
	}
	s, err := New(ctx, pool)
	if err != nil {
		pool.Close()
		return nil, err
	}
	s.ownPool = true
	return s, nil
}

// New uses a pool the host already has (Close then leaves it open) and
// brings the session tables up to date.
func New(ctx context.Context, pool *pgxpool.Pool) (*Store, error) {
	if pool == nil {
		return nil, errors.New("session: pgstore.New: nil pool; use pgstore.Open with a connection string")
	}
	if err := pgmigrate.Run(ctx, pool, "tether_session_schema", migrations, session.ErrSchemaTooNew); err != nil {
		return nil, fmt.Errorf("session: pgstore: migrating: %w", err)
	}
	return &Store{pool: pool}, nil
}

// Close closes the pool if Open created it.
func (s *Store) Close() error {
	if s.ownPool {
		s.pool.Close()
	}
	return nil
}

// SQLSTATE codes the store turns into the session package's errors.
const (
	uniqueViolation     = "23505"
	foreignKeyViolation = "23503"
)

func isCode(err error, code string) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == code
}

func notFound(id string) error { return fmt.Errorf("session %q: %w", id, session.ErrNotFound) }

func (s *Store) Create(ctx context.Context, info session.Info) error {
	if info.ID == "" {
		return errors.New("session: create: empty id")
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO tether_sessions (id, title, runs, created_ns, updated_ns, memory, workspace) VALUES ($1, $2, $3, $4, $5, '', $6)`,
		info.ID, info.Title, info.Runs, info.Created.UnixNano(), info.Updated.UnixNano(), info.Workspace)
	if isCode(err, uniqueViolation) {
		return fmt.Errorf("session %q: %w", info.ID, session.ErrExists)
	}
	if err != nil {
		return fmt.Errorf("session %q: create: %w", info.ID, err)
	}
	return nil
}

const infoColumns = `id, title, runs, created_ns, updated_ns, workspace`

func scanInfo(row pgx.Row) (session.Info, error) {
	var i session.Info
	var c, u int64
	err := row.Scan(&i.ID, &i.Title, &i.Runs, &c, &u, &i.Workspace)
	i.Created, i.Updated = time.Unix(0, c), time.Unix(0, u)
	return i, err
}

func (s *Store) Info(ctx context.Context, id string) (session.Info, error) {
	i, err := scanInfo(s.pool.QueryRow(ctx, `SELECT `+infoColumns+` FROM tether_sessions WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return session.Info{}, notFound(id)
	}
	if err != nil {
		return session.Info{}, fmt.Errorf("session %q: %w", id, err)
	}
	return i, nil
}

func (s *Store) List(ctx context.Context) ([]session.Info, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+infoColumns+` FROM tether_sessions ORDER BY updated_ns DESC, id`)
	if err != nil {
		return nil, fmt.Errorf("session: list: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (session.Info, error) { return scanInfo(r) })
}

func (s *Store) Delete(ctx context.Context, id string) error {
	tag, err := s.pool.Exec(ctx, `DELETE FROM tether_sessions WHERE id = $1`, id) // the rest cascades
	if err != nil {
		return fmt.Errorf("session %q: delete: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return notFound(id)
	}
	return nil
}

func (s *Store) Rename(ctx context.Context, id, title string) error {
	tag, err := s.pool.Exec(ctx, `UPDATE tether_sessions SET title = $1 WHERE id = $2`, title, id)
	if err != nil {
		return fmt.Errorf("session %q: rename: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		return notFound(id)
	}
	return nil
}

func (s *Store) SaveState(ctx context.Context, id string, st session.State, runs int, now time.Time) (err error) {
	defer func() {
		if err != nil && !errors.Is(err, session.ErrNotFound) {
			err = fmt.Errorf("session %q: saving state: %w", id, err)
		}
	}()
	mem := []byte{}
	if st.Memory != nil {
		if mem, err = json.Marshal(st.Memory); err != nil {
			return err
		}
	}
	rows := make([][]any, len(st.Messages))
	for i, m := range st.Messages {
		data, err := json.Marshal(m)
		if err != nil {
			return err
		}
		rows[i] = []any{id, i, string(data)}
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	tag, err := tx.Exec(ctx, `UPDATE tether_sessions SET runs = runs + $1, updated_ns = $2, memory = $3 WHERE id = $4`, runs, now.UnixNano(), string(mem), id)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return notFound(id)
	}
	// The whole conversation is replaced: compaction rewrites its start.
	if _, err := tx.Exec(ctx, `DELETE FROM tether_session_messages WHERE session = $1`, id); err != nil {
		return err
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"tether_session_messages"}, []string{"session", "seq", "data"}, pgx.CopyFromRows(rows)); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

func (s *Store) State(ctx context.Context, id string) (session.State, error) {
	var st session.State
	var mem string
	err := s.pool.QueryRow(ctx, `SELECT memory FROM tether_sessions WHERE id = $1`, id).Scan(&mem)
	if errors.Is(err, pgx.ErrNoRows) {
		return st, notFound(id)
	}
	if err != nil {
		return st, fmt.Errorf("session %q: %w", id, err)
	}
	if mem != "" {
		st.Memory = &agent.Memory{}
		if err := json.Unmarshal([]byte(mem), st.Memory); err != nil {
			return st, fmt.Errorf("session %q: decoding memory: %w", id, err)
		}
	}
	rows, err := s.pool.Query(ctx, `SELECT data FROM tether_session_messages WHERE session = $1 ORDER BY seq`, id)
	if err != nil {
		return st, fmt.Errorf("session %q: %w", id, err)
	}
	st.Messages, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (llm.Message, error) {
		var data string
		var m llm.Message
		if err := r.Scan(&data); err != nil {
			return m, err
		}
		return m, json.Unmarshal([]byte(data), &m)
	})
	if err != nil {
		return st, fmt.Errorf("session %q: decoding messages: %w", id, err)
	}
	return st, nil
}
