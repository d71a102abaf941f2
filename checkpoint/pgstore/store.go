package pgstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tetherdev/tether/checkpoint"
	"github.com/tetherdev/tether/internal/pgmigrate"
)

// Store is a [checkpoint.Store] in PostgreSQL. It is safe for concurrent
// use by any number of goroutines and processes.
type Store struct {
	pool    *pgxpool.Pool
	ownPool bool // Close closes the pool only when Open created it
}

var _ checkpoint.Store = (*Store)(nil)

// migrations are applied in order; tether_checkpoint_schema holds how many
// ran. Never edit an entry once released: append a new one.
var migrations = []string{
	`CREATE TABLE tether_checkpoints (
		id TEXT PRIMARY KEY,
		ord BIGSERIAL NOT NULL,
		session TEXT NOT NULL,
		label TEXT NOT NULL,
		created_ns BIGINT NOT NULL,
		state TEXT NOT NULL,
		workspace TEXT NOT NULL
	);
	CREATE INDEX tether_checkpoints_by_session ON tether_checkpoints (session, ord);
	CREATE TABLE tether_checkpoint_blobs (
		hash TEXT PRIMARY KEY,
		data BYTEA NOT NULL
	);
	-- Uncompressed out-of-line storage: substring() then reads only the
	-- slices it is asked for, which is how large blobs are streamed.
	ALTER TABLE tether_checkpoint_blobs ALTER COLUMN data SET STORAGE EXTERNAL;
	CREATE TABLE tether_checkpoint_files (
		checkpoint TEXT NOT NULL REFERENCES tether_checkpoints(id) ON DELETE CASCADE,
		path TEXT NOT NULL,
		ord BIGINT NOT NULL,
		pre_exists BOOLEAN NOT NULL, pre_hash TEXT NOT NULL, pre_mode BIGINT NOT NULL,
		post_exists BOOLEAN NOT NULL, post_hash TEXT NOT NULL, post_mode BIGINT NOT NULL,
		status TEXT NOT NULL,
		tainted BOOLEAN NOT NULL,
		renamed_from TEXT NOT NULL,
		created_dirs TEXT NOT NULL,
		PRIMARY KEY (checkpoint, path)
	);
	CREATE TABLE tether_checkpoint_changes (
		checkpoint TEXT NOT NULL REFERENCES tether_checkpoints(id) ON DELETE CASCADE,
		seq BIGINT NOT NULL,
		path TEXT NOT NULL,
		from_path TEXT NOT NULL,
		op TEXT NOT NULL,
		call_id TEXT NOT NULL,
		tool TEXT NOT NULL,
		before_exists BOOLEAN NOT NULL, before_hash TEXT NOT NULL, before_mode BIGINT NOT NULL,
		after_exists BOOLEAN NOT NULL, after_hash TEXT NOT NULL, after_mode BIGINT NOT NULL,
		from_exists BOOLEAN NOT NULL, from_hash TEXT NOT NULL, from_mode BIGINT NOT NULL,
		pending BOOLEAN NOT NULL,
		time_ns BIGINT NOT NULL,
		PRIMARY KEY (checkpoint, seq)
	);
	-- Pruning asks, per blob, whether anything still refers to it.
	CREATE INDEX tether_checkpoint_files_pre ON tether_checkpoint_files (pre_hash);
	CREATE INDEX tether_checkpoint_files_post ON tether_checkpoint_files (post_hash);
	CREATE INDEX tether_checkpoint_changes_before ON tether_checkpoint_changes (before_hash);
	CREATE INDEX tether_checkpoint_changes_after ON tether_checkpoint_changes (after_hash);
	CREATE INDEX tether_checkpoint_changes_from ON tether_checkpoint_changes (from_hash);`,
}

// Open connects to the database named by connString (a postgres:// URL or
// keyword/value string, as pgx accepts) and brings the checkpoint tables up
// to date. It fails with checkpoint.ErrSchemaTooNew if a newer Tether
// migrated them.
func Open(ctx context.Context, connString string) (*Store, error) {
	pool, err := pgxpool.New(ctx, connString)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: pgstore: %w", err)
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
// brings the checkpoint tables up to date.
func New(ctx context.Context, pool *pgxpool.Pool) (*Store, error) {
	if pool == nil {
		return nil, errors.New("checkpoint: pgstore.New: nil pool; use pgstore.Open with a connection string")
	}
	if err := pgmigrate.Run(ctx, pool, "tether_checkpoint_schema", migrations, checkpoint.ErrSchemaTooNew); err != nil {
		return nil, fmt.Errorf("checkpoint: pgstore: migrating: %w", err)
	}
	return &Store{pool: pool}, nil
}

// SchemaVersion reports how many migrations the database has applied.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	err := s.pool.QueryRow(ctx, `SELECT version FROM tether_checkpoint_schema`).Scan(&v)
	return v, err
}

// Close closes the pool if Open created it.
func (s *Store) Close() error {
	if s.ownPool {
		s.pool.Close()
	}
	return nil
}

func (s *Store) Create(ctx context.Context, info checkpoint.Info) error {
	if info.ID == "" {
		return errors.New("checkpoint: create: empty id")
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO tether_checkpoints (id, session, label, created_ns, state, workspace) VALUES ($1, $2, $3, $4, $5, $6)`,
		info.ID, info.Session, info.Label, info.Created.UnixNano(), string(info.State), info.Workspace)
	if err != nil {
		return fmt.Errorf("checkpoint: create %s: %w", info.ID, err)
	}
	return nil
}

const infoColumns = `id, session, label, created_ns, state, workspace`

func scanInfo(row pgx.Row) (checkpoint.Info, error) {
	var i checkpoint.Info
	var ns int64
	err := row.Scan(&i.ID, &i.Session, &i.Label, &ns, &i.State, &i.Workspace)
	i.Created = time.Unix(0, ns)
	return i, err
}

func (s *Store) Info(ctx context.Context, id string) (checkpoint.Info, error) {
	i, err := scanInfo(s.pool.QueryRow(ctx, `SELECT `+infoColumns+` FROM tether_checkpoints WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return checkpoint.Info{}, fmt.Errorf("checkpoint %q: %w", id, checkpoint.ErrNotFound)
	}
	if err != nil {
		return checkpoint.Info{}, fmt.Errorf("checkpoint %q: %w", id, err)
	}
	return i, nil
}

func (s *Store) List(ctx context.Context, session string) ([]checkpoint.Info, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+infoColumns+` FROM tether_checkpoints WHERE $1 = '' OR session = $1 ORDER BY ord`, session)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: list: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (checkpoint.Info, error) { return scanInfo(r) })
}

func (s *Store) exists(ctx context.Context, q querier, id string) error {
	var one int
	err := q.QueryRow(ctx, `SELECT 1 FROM tether_checkpoints WHERE id = $1`, id).Scan(&one)
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("checkpoint %q: %w", id, checkpoint.ErrNotFound)
	}
	return err
}

// querier is what a pool and a transaction share.
type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

func (s *Store) Files(ctx context.Context, id string) ([]checkpoint.FileRecord, error) {
	if err := s.exists(ctx, s.pool, id); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT path, ord, pre_exists, pre_hash, pre_mode, post_exists, post_hash, post_mode,
		status, tainted, renamed_from, created_dirs FROM tether_checkpoint_files WHERE checkpoint = $1 ORDER BY ord, path`, id)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (checkpoint.FileRecord, error) {
		f := checkpoint.FileRecord{Checkpoint: id}
		var preMode, postMode int64
		var dirs string
		if err := r.Scan(&f.Path, &f.Order, &f.Pre.Exists, &f.Pre.Hash, &preMode, &f.Post.Exists, &f.Post.Hash, &postMode,
			&f.Status, &f.Tainted, &f.RenamedFrom, &dirs); err != nil {
			return f, err
		}
		f.Pre.Mode, f.Post.Mode = fs.FileMode(preMode), fs.FileMode(postMode)
		if err := json.Unmarshal([]byte(dirs), &f.CreatedDirs); err != nil {
			return f, fmt.Errorf("file record %s: created_dirs: %w", f.Path, err)
		}
		return f, nil
	})
}

func (s *Store) Changes(ctx context.Context, id string) ([]checkpoint.Change, error) {
	if err := s.exists(ctx, s.pool, id); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT seq, path, from_path, op, call_id, tool,
		before_exists, before_hash, before_mode, after_exists, after_hash, after_mode, from_exists, from_hash, from_mode,
		pending, time_ns FROM tether_checkpoint_changes WHERE checkpoint = $1 ORDER BY seq`, id)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (checkpoint.Change, error) {
		c := checkpoint.Change{Checkpoint: id}
		var bm, am, fm, ns int64
		err := r.Scan(&c.Seq, &c.Path, &c.From, &c.Op, &c.Call.ID, &c.Call.Tool,
			&c.Before.Exists, &c.Before.Hash, &bm, &c.After.Exists, &c.After.Hash, &am, &c.FromBefore.Exists, &c.FromBefore.Hash, &fm,
			&c.Pending, &ns)
		c.Before.Mode, c.After.Mode, c.FromBefore.Mode = fs.FileMode(bm), fs.FileMode(am), fs.FileMode(fm)
		c.Time = time.Unix(0, ns)
		return c, err
	})
}
