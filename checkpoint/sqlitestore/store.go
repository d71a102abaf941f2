package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"sync"
	"time"

	_ "modernc.org/sqlite" // pure-Go SQLite driver, registered as "sqlite"

	"github.com/tetherdev/tether/checkpoint"
	"github.com/tetherdev/tether/internal/migrate"
)

// Store is a [checkpoint.Store] in one SQLite file in WAL mode. A
// Commit that returned survives the process being killed; by default
// (synchronous=NORMAL, SQLite's recommendation for WAL) a power cut may
// lose the last few commits but never corrupts the store. FullSync
// makes every commit survive power loss too, at one fsync per commit.
// Blobs live in the same file, keyed by their sha256, so an unchanged
// pre-image is stored once however many checkpoints refer to it. Several
// processes may open one file: SQLite serialises their writes.
type Store struct {
	db *sql.DB

	mu    sync.Mutex
	stmts map[string]*sql.Stmt // prepared once: parsing SQL was a quarter of a commit's CPU
}

// migrations are applied in order; schema_version holds how many ran.
// Never edit an entry once released: append a new one.
var migrations = []string{
	`CREATE TABLE checkpoints (
		id TEXT PRIMARY KEY,
		session TEXT NOT NULL,
		label TEXT NOT NULL,
		created_ns INTEGER NOT NULL,
		state TEXT NOT NULL
	);
	CREATE INDEX checkpoints_by_session ON checkpoints(session);
	CREATE TABLE blobs (
		hash TEXT PRIMARY KEY,
		data BLOB NOT NULL
	) WITHOUT ROWID;
	CREATE TABLE files (
		checkpoint TEXT NOT NULL REFERENCES checkpoints(id) ON DELETE CASCADE,
		path TEXT NOT NULL,
		ord INTEGER NOT NULL,
		pre_exists INTEGER NOT NULL, pre_hash TEXT NOT NULL, pre_mode INTEGER NOT NULL,
		post_exists INTEGER NOT NULL, post_hash TEXT NOT NULL, post_mode INTEGER NOT NULL,
		status TEXT NOT NULL,
		tainted INTEGER NOT NULL,
		renamed_from TEXT NOT NULL,
		created_dirs TEXT NOT NULL,
		PRIMARY KEY (checkpoint, path)
	) WITHOUT ROWID;
	CREATE TABLE changes (
		checkpoint TEXT NOT NULL REFERENCES checkpoints(id) ON DELETE CASCADE,
		seq INTEGER NOT NULL,
		path TEXT NOT NULL,
		from_path TEXT NOT NULL,
		op TEXT NOT NULL,
		call_id TEXT NOT NULL,
		tool TEXT NOT NULL,
		before_exists INTEGER NOT NULL, before_hash TEXT NOT NULL, before_mode INTEGER NOT NULL,
		after_exists INTEGER NOT NULL, after_hash TEXT NOT NULL, after_mode INTEGER NOT NULL,
		from_exists INTEGER NOT NULL, from_hash TEXT NOT NULL, from_mode INTEGER NOT NULL,
		pending INTEGER NOT NULL,
		time_ns INTEGER NOT NULL,
		PRIMARY KEY (checkpoint, seq)
	) WITHOUT ROWID;`,
	// 2: remember which workspace a checkpoint belongs to, so a host that
	// shares one store between workspaces cannot undo into the wrong one.
	`ALTER TABLE checkpoints ADD COLUMN workspace TEXT NOT NULL DEFAULT '';`,
}

// Option configures Open.
type Option func(*sqliteConfig) error

type sqliteConfig struct {
	fullSync bool
}

// FullSync fsyncs the write-ahead log on every commit
// (synchronous=FULL), so that checkpoints survive a power cut, not only a
// crash of the process.
func FullSync() Option {
	return func(c *sqliteConfig) error { c.fullSync = true; return nil }
}

// Open opens (creating if needed) the store in the file at path and
// brings its schema up to date. Keep the file outside the workspace the
// agent edits. It fails with checkpoint.ErrSchemaTooNew if a newer
// Tether wrote it.
func Open(ctx context.Context, path string, opts ...Option) (*Store, error) {
	if path == "" {
		return nil, fmt.Errorf("checkpoint: sqlitestore.Open: empty path; pass the file that should hold the checkpoints")
	}
	var cfg sqliteConfig
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	sync := "NORMAL"
	if cfg.fullSync {
		sync = "FULL"
	}
	q := url.Values{}
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous("+sync+")")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "busy_timeout(10000)")
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("checkpoint: open %s: %w", path, err)
	}
	// One connection: SQLite serialises writers anyway, and a single
	// connection keeps in-process callers from ever seeing SQLITE_BUSY.
	db.SetMaxOpenConns(1)
	s := &Store{db: db, stmts: map[string]*sql.Stmt{}}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("checkpoint: open %s: %w", path, err)
	}
	if err := s.prepare(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("checkpoint: open %s: %w", path, err)
	}
	return s, nil
}

func (s *Store) migrate(ctx context.Context) error {
	return migrate.RunSQL(ctx, s.db, "schema_version", migrations, checkpoint.ErrSchemaTooNew)
}

// Hot statements, prepared once when the store opens. They must be
// prepared before any transaction: the store has a single connection, and
// preparing while a transaction holds it would wait forever.
const (
	qCheckpointExists = `SELECT count(*) FROM checkpoints WHERE id = ?`
	qPutBlob          = `INSERT OR IGNORE INTO blobs (hash, data) VALUES (?, ?)`
	qPutFile          = `INSERT OR REPLACE INTO files (checkpoint, path, ord,
		pre_exists, pre_hash, pre_mode, post_exists, post_hash, post_mode,
		status, tainted, renamed_from, created_dirs) VALUES (?,?,?, ?,?,?, ?,?,?, ?,?,?,?)`
	qPutChange = `INSERT OR REPLACE INTO changes (checkpoint, seq, path, from_path, op, call_id, tool,
		before_exists, before_hash, before_mode, after_exists, after_hash, after_mode, from_exists, from_hash, from_mode,
		pending, time_ns) VALUES (?,?,?,?,?,?,?, ?,?,?, ?,?,?, ?,?,?, ?,?)`
	qDropChange = `DELETE FROM changes WHERE checkpoint = ? AND seq = ?`
	qSetState   = `UPDATE checkpoints SET state = ? WHERE id = ?`
	qBlob       = `SELECT data FROM blobs WHERE hash = ?`
)

func (s *Store) prepare(ctx context.Context) error {
	for _, q := range []string{qCheckpointExists, qPutBlob, qPutFile, qPutChange, qDropChange, qSetState, qBlob} {
		st, err := s.db.PrepareContext(ctx, q)
		if err != nil {
			return err
		}
		s.stmts[q] = st
	}
	return nil
}

// stmt returns the prepared statement for query, bound to tx when tx is
// not nil.
func (s *Store) stmt(ctx context.Context, tx *sql.Tx, query string) (*sql.Stmt, error) {
	s.mu.Lock()
	st, ok := s.stmts[query]
	s.mu.Unlock()
	if !ok {
		return nil, errClosed
	}
	if tx != nil {
		return tx.StmtContext(ctx, st), nil
	}
	return st, nil
}

// exec runs a prepared statement inside tx.
func (s *Store) exec(ctx context.Context, tx *sql.Tx, query string, args ...any) error {
	st, err := s.stmt(ctx, tx, query)
	if err != nil {
		return err
	}
	_, err = st.ExecContext(ctx, args...)
	return err
}

// SchemaVersion reports how many migrations the store has applied.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	err := s.db.QueryRowContext(ctx, `SELECT version FROM schema_version`).Scan(&v)
	return v, err
}

func (s *Store) Create(ctx context.Context, info checkpoint.Info) error {
	if info.ID == "" {
		return fmt.Errorf("checkpoint: create: empty id")
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO checkpoints (id, session, label, created_ns, state, workspace) VALUES (?, ?, ?, ?, ?, ?)`,
		info.ID, info.Session, info.Label, info.Created.UnixNano(), string(info.State), info.Workspace)
	if err != nil {
		return fmt.Errorf("checkpoint: create %s: %w", info.ID, err)
	}
	return nil
}

func (s *Store) Info(ctx context.Context, id string) (checkpoint.Info, error) {
	var i checkpoint.Info
	var ns int64
	err := s.db.QueryRowContext(ctx, `SELECT id, session, label, created_ns, state, workspace FROM checkpoints WHERE id = ?`, id).
		Scan(&i.ID, &i.Session, &i.Label, &ns, &i.State, &i.Workspace)
	if errors.Is(err, sql.ErrNoRows) {
		return checkpoint.Info{}, fmt.Errorf("checkpoint %q: %w", id, checkpoint.ErrNotFound)
	}
	if err != nil {
		return checkpoint.Info{}, fmt.Errorf("checkpoint %q: %w", id, err)
	}
	i.Created = time.Unix(0, ns)
	return i, nil
}

func (s *Store) List(ctx context.Context, session string) ([]checkpoint.Info, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, session, label, created_ns, state, workspace FROM checkpoints
		WHERE ? = '' OR session = ? ORDER BY rowid`, session, session)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []checkpoint.Info
	for rows.Next() {
		var i checkpoint.Info
		var ns int64
		if err := rows.Scan(&i.ID, &i.Session, &i.Label, &ns, &i.State, &i.Workspace); err != nil {
			return nil, err
		}
		i.Created = time.Unix(0, ns)
		out = append(out, i)
	}
	return out, rows.Err()
}

func (s *Store) Commit(ctx context.Context, id string, b checkpoint.Batch) (err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("checkpoint: commit to %s: %w", id, err)
		}
	}()
	if err := b.Belongs(id); err != nil {
		return err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var n int
	st, err := s.stmt(ctx, tx, qCheckpointExists)
	if err != nil {
		return err
	}
	if err := st.QueryRowContext(ctx, id).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		return checkpoint.ErrNotFound
	}
	for h, data := range b.Blobs {
		if err := s.exec(ctx, tx, qPutBlob, h, data); err != nil {
			return err
		}
	}
	for _, f := range b.Files {
		dirs, _ := json.Marshal(f.CreatedDirs) // a []string always marshals
		if err := s.exec(ctx, tx, qPutFile,
			id, f.Path, f.Order, f.Pre.Exists, f.Pre.Hash, uint32(f.Pre.Mode), f.Post.Exists, f.Post.Hash, uint32(f.Post.Mode),
			string(f.Status), f.Tainted, f.RenamedFrom, string(dirs)); err != nil {
			return err
		}
	}
	for _, c := range b.Changes {
		if err := s.exec(ctx, tx, qPutChange,
			id, c.Seq, c.Path, c.From, string(c.Op), c.Call.ID, c.Call.Tool,
			c.Before.Exists, c.Before.Hash, uint32(c.Before.Mode), c.After.Exists, c.After.Hash, uint32(c.After.Mode),
			c.FromBefore.Exists, c.FromBefore.Hash, uint32(c.FromBefore.Mode), c.Pending, c.Time.UnixNano()); err != nil {
			return err
		}
	}
	for _, seq := range b.DropChanges {
		if err := s.exec(ctx, tx, qDropChange, id, seq); err != nil {
			return err
		}
	}
	if b.State != "" {
		if err := s.exec(ctx, tx, qSetState, string(b.State), id); err != nil {
			return err
		}
	}
	return tx.Commit()
}

func (s *Store) Blob(ctx context.Context, hash string) ([]byte, error) {
	var data []byte
	st, err := s.stmt(ctx, nil, qBlob)
	if err != nil {
		return nil, err
	}
	err = st.QueryRowContext(ctx, hash).Scan(&data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("blob %s: %w", hash, checkpoint.ErrNotFound)
	}
	if data == nil && err == nil {
		data = []byte{}
	}
	return data, err
}

func (s *Store) exists(ctx context.Context, id string) error {
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM checkpoints WHERE id = ?`, id).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("checkpoint %q: %w", id, checkpoint.ErrNotFound)
	}
	return nil
}

func (s *Store) Files(ctx context.Context, id string) ([]checkpoint.FileRecord, error) {
	if err := s.exists(ctx, id); err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT path, ord, pre_exists, pre_hash, pre_mode, post_exists, post_hash, post_mode,
		status, tainted, renamed_from, created_dirs FROM files WHERE checkpoint = ? ORDER BY ord, path`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []checkpoint.FileRecord
	for rows.Next() {
		f := checkpoint.FileRecord{Checkpoint: id}
		var preMode, postMode uint32
		var dirs string
		if err := rows.Scan(&f.Path, &f.Order, &f.Pre.Exists, &f.Pre.Hash, &preMode, &f.Post.Exists, &f.Post.Hash, &postMode,
			&f.Status, &f.Tainted, &f.RenamedFrom, &dirs); err != nil {
			return nil, err
		}
		f.Pre.Mode, f.Post.Mode = fs.FileMode(preMode), fs.FileMode(postMode)
		if err := json.Unmarshal([]byte(dirs), &f.CreatedDirs); err != nil {
			return nil, fmt.Errorf("file record %s: created_dirs: %w", f.Path, err)
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

func (s *Store) Changes(ctx context.Context, id string) ([]checkpoint.Change, error) {
	if err := s.exists(ctx, id); err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT seq, path, from_path, op, call_id, tool,
		before_exists, before_hash, before_mode, after_exists, after_hash, after_mode, from_exists, from_hash, from_mode,
		pending, time_ns FROM changes WHERE checkpoint = ? ORDER BY seq`, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []checkpoint.Change
	for rows.Next() {
		c := checkpoint.Change{Checkpoint: id}
		var bm, am, fm uint32
		var ns int64
		if err := rows.Scan(&c.Seq, &c.Path, &c.From, &c.Op, &c.Call.ID, &c.Call.Tool,
			&c.Before.Exists, &c.Before.Hash, &bm, &c.After.Exists, &c.After.Hash, &am, &c.FromBefore.Exists, &c.FromBefore.Hash, &fm,
			&c.Pending, &ns); err != nil {
			return nil, err
		}
		c.Before.Mode, c.After.Mode, c.FromBefore.Mode = fs.FileMode(bm), fs.FileMode(am), fs.FileMode(fm)
		c.Time = time.Unix(0, ns)
		out = append(out, c)
	}
	return out, rows.Err()
}

func (s *Store) Delete(ctx context.Context, id string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `DELETE FROM checkpoints WHERE id = ?`, id)
	if err != nil {
		return fmt.Errorf("checkpoint: delete %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("checkpoint %q: %w", id, checkpoint.ErrNotFound)
	}
	// files and changes go by ON DELETE CASCADE; then drop unreferenced blobs.
	if _, err := tx.ExecContext(ctx, `DELETE FROM blobs WHERE hash NOT IN (
		SELECT pre_hash FROM files UNION SELECT post_hash FROM files
		UNION SELECT before_hash FROM changes UNION SELECT after_hash FROM changes UNION SELECT from_hash FROM changes)`); err != nil {
		return fmt.Errorf("checkpoint: delete %s: pruning blobs: %w", id, err)
	}
	return tx.Commit()
}

// Close closes the database.
func (s *Store) Close() error {
	s.mu.Lock()
	for _, st := range s.stmts {
		st.Close()
	}
	s.stmts = map[string]*sql.Stmt{}
	s.mu.Unlock()
	return s.db.Close()
}

var errClosed = errors.New("checkpoint: store is closed")

var _ checkpoint.Store = (*Store)(nil)
