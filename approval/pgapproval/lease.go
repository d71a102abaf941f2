package pgapproval

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/internal/worker"
)

// DefaultLeaseTTL is how long a board's claim to be alive lasts without
// renewal. A board renews it every third of that while open, so only a
// process that died (kill -9, lost machine) lets it lapse; its pending
// requests are then abandoned.
const DefaultLeaseTTL = 30 * time.Second

// WithWorker names this process on the board: the owner of the requests
// it publishes. The default is the host name, the process id and a random
// suffix; names must be unique among the processes sharing a database.
func WithWorker(name string) Option {
	return func(b *Board) error {
		if err := worker.CheckName("pgapproval", name); err != nil {
			return err
		}
		b.worker = name
		return nil
	}
}

// WithLeaseTTL sets how long this board's lease lasts without renewal
// (default DefaultLeaseTTL): shorter abandons a dead worker's requests
// sooner, at the cost of more renewals.
func WithLeaseTTL(ttl time.Duration) Option {
	return func(b *Board) error {
		if err := worker.CheckLeaseTTL("pgapproval", ttl); err != nil {
			return err
		}
		b.leaseTTL = ttl
		return nil
	}
}

// ownerAlive is true of a request row whose publishing board holds a
// lease; rows published before owners were recorded have owner ”. The
// database's clock is the only one used, so that processes on machines
// whose clocks differ agree on who is alive.
const ownerAlive = `(owner = '' OR EXISTS (SELECT 1 FROM tether_approval_workers w
	WHERE w.name = tether_approvals.owner AND w.until > now()))`

// renew claims (or extends) this board's lease.
func (b *Board) renew(ctx context.Context) error {
	_, err := b.pool.Exec(ctx, `INSERT INTO tether_approval_workers (name, until)
		VALUES ($1, now() + $2 * interval '1 millisecond')
		ON CONFLICT (name) DO UPDATE SET until = EXCLUDED.until`, b.worker, b.leaseTTL.Milliseconds())
	if err != nil {
		return fmt.Errorf("pgapproval: renewing the lease of %q: %w", b.worker, err)
	}
	return nil
}

// The answers recorded for a request whose worker is gone: a deny, as a
// timeout is, with the reason.
var (
	leaseExpired = approval.Response{Choice: approval.Deny, Reason: "the worker that asked stopped before anyone answered (its lease on the approval board expired)"}
	boardClosed  = approval.Response{Choice: approval.Deny, Reason: "the worker that asked closed its approval board before anyone answered"}
)

func responseJSON(r approval.Response) string {
	data, _ := json.Marshal(r) // a Response always marshals
	return string(data)
}

// Sweep marks abandoned (denied) the pending requests of every worker
// whose lease has expired, forgets those leases, and returns how many
// requests it abandoned. Each open board sweeps at every lease renewal;
// a process may also call it. Pending and Resolve already treat such
// requests as gone before a sweep; the sweep records their outcome, which
// notifies watchers and lets Prune delete them.
func (b *Board) Sweep(ctx context.Context) (int64, error) {
	var n int64
	// Both in one statement: the expired leases deleted are exactly those
	// the update sees as expired (one snapshot, one now()).
	err := b.pool.QueryRow(ctx, `WITH gone AS (DELETE FROM tether_approval_workers WHERE until <= now()),
		swept AS (UPDATE tether_approvals SET state = 'abandoned', response = $1, settled = now()
			WHERE state = 'pending' AND NOT `+ownerAlive+` RETURNING 1)
		SELECT count(*) FROM swept`, responseJSON(leaseExpired)).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("pgapproval: sweep: %w", err)
	}
	return n, nil
}

// release ends this board's lease: its pending requests are abandoned in
// the database, and their local waiters are denied, since no answer could
// reach them once the board stops listening.
func (b *Board) release(ctx context.Context) error {
	_, err := b.pool.Exec(ctx, `WITH gone AS (DELETE FROM tether_approval_workers WHERE name = $1)
		UPDATE tether_approvals SET state = 'abandoned', response = $2, settled = now()
		WHERE state = 'pending' AND owner = $1`, b.worker, responseJSON(boardClosed))
	b.mu.Lock()
	waiting := b.waiting
	b.waiting = map[string]*approval.Manager{}
	b.mu.Unlock()
	for id, m := range waiting {
		_ = m.Resolve(id, boardClosed) // ErrStale: it was settled meanwhile
	}
	if err != nil {
		return fmt.Errorf("pgapproval: closing: abandoning the requests of %q: %w", b.worker, err)
	}
	return nil
}
