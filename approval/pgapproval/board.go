package pgapproval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/internal/pgmigrate"
	"github.com/tetherdev/tether/internal/worker"
)

// ErrSchemaTooNew: the approval tables were migrated by a newer Tether.
var ErrSchemaTooNew = errors.New("pgapproval: schema is newer than this program understands")

// channel is the NOTIFY channel on which a trigger announces every
// request registered or settled, in any process; the payload is the
// request id.
const channel = "tether_approval_changed"

// DefaultPollInterval bounds how late an answer reaches a worker, or a
// change reaches a Watch, whose notification was lost.
const DefaultPollInterval = time.Second

var migrations = []string{
	`CREATE TABLE tether_approvals (
		id TEXT PRIMARY KEY,
		ord BIGSERIAL NOT NULL,
		request TEXT NOT NULL,
		state TEXT NOT NULL CHECK (state IN ('pending', 'answered', 'expired')),
		response TEXT NOT NULL DEFAULT '',
		created TIMESTAMPTZ NOT NULL DEFAULT now(),
		deadline TIMESTAMPTZ,
		settled TIMESTAMPTZ
	);
	CREATE INDEX tether_approvals_pending ON tether_approvals (ord) WHERE state = 'pending';`,
	// Owners and their leases, so that a dead worker's requests are
	// abandoned; a trigger announces every change, whoever makes it.
	`ALTER TABLE tether_approvals ADD COLUMN owner TEXT NOT NULL DEFAULT '';
	ALTER TABLE tether_approvals DROP CONSTRAINT tether_approvals_state_check;
	ALTER TABLE tether_approvals ADD CONSTRAINT tether_approvals_state_check
		CHECK (state IN ('pending', 'answered', 'expired', 'abandoned'));
	CREATE TABLE tether_approval_workers (name TEXT PRIMARY KEY, until TIMESTAMPTZ NOT NULL);
	CREATE FUNCTION tether_approval_notify() RETURNS trigger LANGUAGE plpgsql AS $$
	BEGIN
		PERFORM pg_notify('tether_approval_changed', NEW.id);
		RETURN NULL;
	END $$;
	CREATE TRIGGER tether_approval_changed AFTER INSERT OR UPDATE OF state ON tether_approvals
		FOR EACH ROW EXECUTE FUNCTION tether_approval_notify();`,
}

// Board is the shared list of approval requests in one database. It is
// safe for concurrent use; open one per process and Close it at exit.
type Board struct {
	pool     *pgxpool.Pool
	ownPool  bool
	poll     time.Duration
	log      *slog.Logger
	worker   string        // this process's name, the owner of what it publishes
	leaseTTL time.Duration // how long its lease lasts without renewal
	changes  changes       // signalled at every notification, for Watch
	noListen bool          // polls alone (tests measure what LISTEN saves)

	mu      sync.Mutex
	waiting map[string]*approval.Manager // requests of this process not yet settled

	stop context.CancelFunc
	done chan struct{}
}

// Option configures Open.
type Option func(*Board) error

// WithPollInterval sets the fallback poll (default DefaultPollInterval).
func WithPollInterval(d time.Duration) Option {
	return func(b *Board) error {
		if d <= 0 {
			return fmt.Errorf("pgapproval: WithPollInterval(%v): want a positive interval", d)
		}
		b.poll = d
		return nil
	}
}

// WithLogger sets where failures that no caller can receive are logged:
// recording a local outcome on the board (the request then stays listed
// until its deadline or its worker's lease ends), renewing the lease,
// sweeping. The default discards them.
func WithLogger(l *slog.Logger) Option {
	return func(b *Board) error {
		if l == nil {
			return errors.New("pgapproval: WithLogger(nil)")
		}
		b.log = l
		return nil
	}
}

// Open connects to the database named by connString, brings the approval
// tables up to date, takes this process's lease and starts listening for
// answers and changes.
func Open(ctx context.Context, connString string, opts ...Option) (*Board, error) {
	pool, err := pgxpool.New(ctx, connString)
	if err != nil {
		return nil, fmt.Errorf("pgapproval: %w", err)
	}
	b, err := New(ctx, pool, opts...)
	if err != nil {
		pool.Close()
		return nil, err
	}
	b.ownPool = true
	return b, nil
}

// New is Open on a pool the host already has; Close leaves it open.
func New(ctx context.Context, pool *pgxpool.Pool, opts ...Option) (*Board, error) {
	if pool == nil {
		return nil, errors.New("pgapproval: New: nil pool; use Open with a connection string")
	}
	b := &Board{pool: pool, poll: DefaultPollInterval, log: slog.New(slog.DiscardHandler), worker: worker.DefaultName(), leaseTTL: DefaultLeaseTTL,
		waiting: map[string]*approval.Manager{}, done: make(chan struct{})}
	for _, o := range opts {
		if err := o(b); err != nil {
			return nil, err
		}
	}
	if err := pgmigrate.Run(ctx, pool, "tether_approval_schema", migrations, ErrSchemaTooNew); err != nil {
		return nil, fmt.Errorf("pgapproval: migrating: %w", err)
	}
	if err := b.renew(ctx); err != nil { // before the first publish
		return nil, err
	}
	// Listening before Open returns: a request published or answered
	// from now on is announced to this process, not left to the poll.
	var conn *pgx.Conn
	if !b.noListen {
		var err error
		if conn, err = b.subscribe(ctx); err != nil {
			return nil, fmt.Errorf("pgapproval: listening for changes: %w", err)
		}
	}
	lctx, stop := context.WithCancel(context.Background())
	b.stop = stop
	go b.deliver(lctx, conn)
	return b, nil
}

// Close stops listening, ends this process's lease and, if Open created
// it, closes the pool. Requests still waiting in this process are denied
// and marked abandoned, since no answer could reach them any more.
func (b *Board) Close() error {
	b.stop()
	<-b.done
	err := b.release(context.Background())
	if b.ownPool {
		b.pool.Close()
	}
	return err
}

// answerable is true of a request row an answer may still settle: pending,
// before its deadline, and published by a worker that is alive.
const answerable = `state = 'pending' AND (deadline IS NULL OR deadline > now()) AND ` + ownerAlive

// Pending returns the requests waiting for an answer in any process,
// oldest first, leaving out those whose deadline has passed and those
// of a worker whose lease has expired (it died; see Sweep).
func (b *Board) Pending(ctx context.Context) ([]approval.Request, error) {
	rows, err := b.pool.Query(ctx, `SELECT request FROM tether_approvals WHERE `+answerable+` ORDER BY ord`)
	if err != nil {
		return nil, fmt.Errorf("pgapproval: pending: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (approval.Request, error) {
		var data string
		var req approval.Request
		if err := r.Scan(&data); err != nil {
			return req, err
		}
		return req, json.Unmarshal([]byte(data), &req)
	})
}

// Resolve answers the request with the given id, from any process. Only
// the first answer before the deadline counts: a later one, one after the
// timeout, or one to a request whose worker died fails with
// approval.ErrStale; an id that was never published fails with
// approval.ErrUnknownRequest.
func (b *Board) Resolve(ctx context.Context, id string, resp approval.Response) error {
	if resp.Choice < approval.Deny || resp.Choice > approval.AllowSession {
		return fmt.Errorf("%w: unknown choice %d", approval.ErrInvalidResponse, int(resp.Choice))
	}
	data, err := json.Marshal(resp)
	if err != nil {
		return fmt.Errorf("%w: %v", approval.ErrInvalidResponse, err)
	}
	tx, err := b.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("pgapproval: resolve %s: %w", id, err)
	}
	defer tx.Rollback(ctx)
	tag, err := tx.Exec(ctx, `UPDATE tether_approvals SET state = 'answered', response = $2, settled = now()
		WHERE id = $1 AND `+answerable, id, string(data))
	if err != nil {
		return fmt.Errorf("pgapproval: resolve %s: %w", id, err)
	}
	if tag.RowsAffected() == 0 {
		var state string
		err := tx.QueryRow(ctx, `SELECT CASE WHEN state <> 'pending' THEN state
			WHEN NOT `+ownerAlive+` THEN 'its worker is gone' ELSE 'expired' END
			FROM tether_approvals WHERE id = $1`, id).Scan(&state)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("%w: %q", approval.ErrUnknownRequest, id)
		}
		if err != nil {
			return fmt.Errorf("pgapproval: resolve %s: %w", id, err)
		}
		return fmt.Errorf("%w: %q (%s)", approval.ErrStale, id, state)
	}
	// The trigger's notification is delivered when the transaction
	// commits, so the worker reads the answer.
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("pgapproval: resolve %s: %w", id, err)
	}
	return nil
}

func isCode(err error, code string) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == code
}

// Prune deletes the requests settled (answered or expired) before
// before, and returns how many it deleted. An answer for a pruned id gets
// approval.ErrUnknownRequest instead of approval.ErrStale, as the
// in-process Manager forgets old ids; pending requests are never pruned.
func (b *Board) Prune(ctx context.Context, before time.Time) (int64, error) {
	tag, err := b.pool.Exec(ctx, `DELETE FROM tether_approvals WHERE state <> 'pending' AND settled < $1`, before)
	if err != nil {
		return 0, fmt.Errorf("pgapproval: prune: %w", err)
	}
	return tag.RowsAffected(), nil
}
