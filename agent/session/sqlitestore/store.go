package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/url"
	"strings"
	"time"

	_ "modernc.org/sqlite" // pure-Go SQLite driver, registered as "sqlite"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/agent/session"
	"github.com/tetherdev/tether/internal/migrate"
	"github.com/tetherdev/tether/llm"
)

// Store keeps sessions in a SQLite file: by design the same file
// as the checkpoints (checkpoint/sqlitestore), so that one database holds
// a session's conversation, its event log and the pre-images that undo
// its edits. It uses its own connection and its own tables (sessions,
// session_messages, session_events, session_leases) with their own version table
// (session_schema), so the checkpoint schema and this one migrate
// independently. Both connections use WAL mode and a busy timeout, so
// they share the file without SQLITE_BUSY errors.
type Store struct {
	db *sql.DB
}

var _ session.Store = (*Store)(nil)

// migrations are applied in order; session_schema holds how many ran.
// Never edit an entry once released: append a new one.
var migrations = []string{
	`CREATE TABLE sessions (
		id TEXT PRIMARY KEY,
		title TEXT NOT NULL,
		runs INTEGER NOT NULL,
		created_ns INTEGER NOT NULL,
		updated_ns INTEGER NOT NULL,
		memory TEXT NOT NULL
	);
	CREATE TABLE session_messages (
		session TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
		seq INTEGER NOT NULL,
		data TEXT NOT NULL,
		PRIMARY KEY (session, seq)
	) WITHOUT ROWID;
	CREATE TABLE session_events (
		session TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
		seq INTEGER NOT NULL,
		type TEXT NOT NULL,
		time_ns INTEGER NOT NULL,
		data TEXT NOT NULL,
		PRIMARY KEY (session, seq)
	) WITHOUT ROWID;`,
	`ALTER TABLE sessions ADD COLUMN workspace TEXT NOT NULL DEFAULT '';`,
	// 3: one lease row per running session, so that two processes sharing
	// the file never run turns in one session at once.
	`CREATE TABLE session_leases (
		session TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
		owner TEXT NOT NULL,
		until_ns INTEGER NOT NULL
	) WITHOUT ROWID;`,
}

// Open opens (creating if needed) the session tables in the SQLite
// file at path, usually the checkpoint database, and brings them up to
// date. Events are written with synchronous=NORMAL: in WAL mode a crash
// of the process loses nothing, and a power cut at most the last events,
// never the database; the checkpoint connection keeps its own FULL.
func Open(ctx context.Context, path string) (*Store, error) {
	if path == "" {
		return nil, errors.New("session: sqlitestore.Open: empty path; pass the database file (the checkpoint database is a good choice)")
	}
	q := url.Values{}
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "busy_timeout(10000)")
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("session: open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1) // SQLite has one writer; one connection never sees SQLITE_BUSY from itself
	s := &Store{db: db}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("session: open %s: %w", path, err)
	}
	return s, nil
}

func (s *Store) migrate(ctx context.Context) error {
	return migrate.RunSQL(ctx, s.db, "session_schema", migrations, session.ErrSchemaTooNew)
}

// SchemaVersion reports how many session migrations the file has.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	err := s.db.QueryRowContext(ctx, `SELECT version FROM session_schema`).Scan(&v)
	return v, err
}

// Close closes the connection.
func (s *Store) Close() error { return s.db.Close() }

func (s *Store) Create(ctx context.Context, info session.Info) error {
	if info.ID == "" {
		return errors.New("session: create: empty id")
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO sessions (id, title, runs, created_ns, updated_ns, memory, workspace) VALUES (?, ?, ?, ?, ?, '', ?)`,
		info.ID, info.Title, info.Runs, info.Created.UnixNano(), info.Updated.UnixNano(), info.Workspace)
	if err != nil {
		if strings.Contains(err.Error(), "UNIQUE") {
			return fmt.Errorf("session %q: %w", info.ID, session.ErrExists)
		}
		return fmt.Errorf("session %q: create: %w", info.ID, err)
	}
	return nil
}

func scanInfo(sc interface{ Scan(...any) error }) (session.Info, error) {
	var i session.Info
	var c, u int64
	err := sc.Scan(&i.ID, &i.Title, &i.Runs, &c, &u, &i.Workspace)
	i.Created, i.Updated = time.Unix(0, c), time.Unix(0, u)
	return i, err
}

func (s *Store) Info(ctx context.Context, id string) (session.Info, error) {
	i, err := scanInfo(s.db.QueryRowContext(ctx, `SELECT id, title, runs, created_ns, updated_ns, workspace FROM sessions WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return session.Info{}, fmt.Errorf("session %q: %w", id, session.ErrNotFound)
	}
	if err != nil {
		return session.Info{}, fmt.Errorf("session %q: %w", id, err)
	}
	return i, nil
}

func (s *Store) List(ctx context.Context) ([]session.Info, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, title, runs, created_ns, updated_ns, workspace FROM sessions ORDER BY updated_ns DESC, id`)
	if err != nil {
		return nil, fmt.Errorf("session: list: %w", err)
	}
	defer rows.Close()
	var out []session.Info
	for rows.Next() {
		i, err := scanInfo(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, i)
	}
	return out, rows.Err()
}

func (s *Store) Delete(ctx context.Context, id string) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM sessions WHERE id = ?`, id) // messages and events cascade
	if err != nil {
		return fmt.Errorf("session %q: delete: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("session %q: %w", id, session.ErrNotFound)
	}
	return nil
}

func (s *Store) Rename(ctx context.Context, id, title string) error {
	res, err := s.db.ExecContext(ctx, `UPDATE sessions SET title = ? WHERE id = ?`, title, id)
	if err != nil {
		return fmt.Errorf("session %q: rename: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("session %q: %w", id, session.ErrNotFound)
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
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `UPDATE sessions SET runs = runs + ?, updated_ns = ?, memory = ? WHERE id = ?`, runs, now.UnixNano(), string(mem), id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("session %q: %w", id, session.ErrNotFound)
	}
	// The whole conversation is replaced: compaction rewrites its start.
	if _, err := tx.ExecContext(ctx, `DELETE FROM session_messages WHERE session = ?`, id); err != nil {
		return err
	}
	for i, m := range st.Messages {
		data, err := json.Marshal(m)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO session_messages (session, seq, data) VALUES (?, ?, ?)`, id, i, string(data)); err != nil {
			return err
		}
	}
	return tx.Commit()
}

func (s *Store) State(ctx context.Context, id string) (session.State, error) {
	var st session.State
	var mem string
	err := s.db.QueryRowContext(ctx, `SELECT memory FROM sessions WHERE id = ?`, id).Scan(&mem)
	if errors.Is(err, sql.ErrNoRows) {
		return st, fmt.Errorf("session %q: %w", id, session.ErrNotFound)
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
	rows, err := s.db.QueryContext(ctx, `SELECT data FROM session_messages WHERE session = ? ORDER BY seq`, id)
	if err != nil {
		return st, fmt.Errorf("session %q: %w", id, err)
	}
	defer rows.Close()
	for rows.Next() {
		var data string
		if err := rows.Scan(&data); err != nil {
			return st, err
		}
		var m llm.Message
		if err := json.Unmarshal([]byte(data), &m); err != nil {
			return st, fmt.Errorf("session %q: decoding message %d: %w", id, len(st.Messages), err)
		}
		st.Messages = append(st.Messages, m)
	}
	return st, rows.Err()
}

func (s *Store) AppendEvent(ctx context.Context, id string, at time.Time, ev event.Event) (int64, error) {
	data, err := event.Marshal(ev)
	if err != nil {
		return 0, err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("session %q: event: %w", id, err)
	}
	defer tx.Rollback()
	var seq int64
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) + 1 FROM session_events WHERE session = ?`, id).Scan(&seq); err != nil {
		return 0, fmt.Errorf("session %q: event: %w", id, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO session_events (session, seq, type, time_ns, data) VALUES (?, ?, ?, ?, ?)`,
		id, seq, ev.Type(), at.UnixNano(), string(data)); err != nil {
		if strings.Contains(err.Error(), "FOREIGN KEY") {
			return 0, fmt.Errorf("session %q: %w", id, session.ErrNotFound)
		}
		return 0, fmt.Errorf("session %q: event: %w", id, err)
	}
	return seq, tx.Commit()
}

// eventPage bounds the rows read per query, so a long log streams with
// bounded memory and no read transaction is held while the caller works.
const eventPage = 500

func (s *Store) Events(ctx context.Context, id string, after int64) iter.Seq2[session.StoredEvent, error] {
	return func(yield func(session.StoredEvent, error) bool) {
		if _, err := s.Info(ctx, id); err != nil {
			yield(session.StoredEvent{}, err)
			return
		}
		for {
			page, err := s.eventPage(ctx, id, after)
			if err != nil {
				yield(session.StoredEvent{}, err)
				return
			}
			for _, r := range page {
				after = r.seq
				se, err := session.DecodeEvent(r.seq, time.Unix(0, r.ns), []byte(r.data))
				if !yield(se, err) {
					return
				}
			}
			if len(page) < eventPage {
				return
			}
		}
	}
}

type eventRow struct {
	seq, ns int64
	data    string
}

func (s *Store) eventPage(ctx context.Context, id string, after int64) ([]eventRow, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT seq, time_ns, data FROM session_events WHERE session = ? AND seq > ? ORDER BY seq LIMIT ?`, id, after, eventPage)
	if err != nil {
		return nil, fmt.Errorf("session %q: events: %w", id, err)
	}
	defer rows.Close()
	var out []eventRow
	for rows.Next() {
		var r eventRow
		if err := rows.Scan(&r.seq, &r.ns, &r.data); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

func (s *Store) Lease(ctx context.Context, id, owner string, now, until time.Time) error {
	// One statement: SQLite's single writer makes the check and the claim
	// atomic across every process sharing the file.
	res, err := s.db.ExecContext(ctx, `INSERT INTO session_leases (session, owner, until_ns) VALUES (?, ?, ?)
		ON CONFLICT (session) DO UPDATE SET owner = excluded.owner, until_ns = excluded.until_ns
		WHERE session_leases.owner = excluded.owner OR session_leases.until_ns <= ?`,
		id, owner, until.UnixNano(), now.UnixNano())
	if err != nil {
		if strings.Contains(err.Error(), "FOREIGN KEY") {
			return fmt.Errorf("session %q: %w", id, session.ErrNotFound)
		}
		return fmt.Errorf("session %q: lease: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 1 {
		return nil
	}
	var holder string
	var ns int64
	if err := s.db.QueryRowContext(ctx, `SELECT owner, until_ns FROM session_leases WHERE session = ?`, id).Scan(&holder, &ns); err != nil {
		return fmt.Errorf("session %q: lease: %w", id, err)
	}
	return &session.LeaseError{Session: id, Owner: holder, Until: time.Unix(0, ns)}
}

func (s *Store) Release(ctx context.Context, id, owner string) error {
	if _, err := s.db.ExecContext(ctx, `DELETE FROM session_leases WHERE session = ? AND owner = ?`, id, owner); err != nil {
		return fmt.Errorf("session %q: release: %w", id, err)
	}
	return nil
}
