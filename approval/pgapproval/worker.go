package pgapproval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tetherdev/tether/approval"
)

// Approver returns the Approver a worker gives its agent: m's Wait, with
// every request published on the board while it waits, so that any
// process can answer it. It sets m.Notify, calling the Notify m already
// had after its own work; configure m fully before calling Approver.
func (b *Board) Approver(m *approval.Manager) approval.Approver {
	prev := m.Notify
	m.Notify = func(e approval.Event) {
		switch e.Type {
		case approval.EventRequested:
			b.publish(m, e.Request)
		case approval.EventResolved:
			b.settle(e)
		}
		if prev != nil {
			prev(e)
		}
	}
	return approval.Func(func(ctx context.Context, req approval.Request) (approval.Response, error) {
		if req.ID == "" {
			req.ID = approval.NewID() // known here, for the reconciliation below
		}
		resp, err := m.Wait(ctx, req)
		if errors.Is(err, approval.ErrTimeout) {
			// The local timer and the database's deadline are two clocks:
			// an answer the database accepted first wins over the timeout,
			// as a Resolve that beats the timer does in one process.
			if answered, ok := b.answer(context.WithoutCancel(ctx), req.ID); ok {
				return answered, nil
			}
		}
		return resp, err
	})
}

// deadline is how long m waits, as the database should see it; nil means
// no deadline.
func deadline(m *approval.Manager) any {
	t := m.Timeout
	if t == 0 {
		t = approval.DefaultTimeout
	}
	if t < 0 {
		return nil
	}
	return t.Milliseconds()
}

// publish records a request m now waits on. If it cannot, the request is
// denied at once: nobody else could ever answer it. Invariant: an id is in
// waiting exactly while this board's row for it may still be settled by
// this process, so a refused duplicate never touches the original's row.
func (b *Board) publish(m *approval.Manager, req approval.Request) {
	data, err := json.Marshal(req)
	if err == nil {
		b.mu.Lock()
		_, dup := b.waiting[req.ID]
		if !dup {
			b.waiting[req.ID] = m
		}
		b.mu.Unlock()
		if dup {
			err = fmt.Errorf("%w: %q is already on the board", approval.ErrDuplicateID, req.ID)
		} else {
			_, err = b.pool.Exec(context.Background(), `INSERT INTO tether_approvals (id, request, state, deadline, owner)
				VALUES ($1, $2, 'pending', now() + $3 * interval '1 millisecond', $4)`, req.ID, string(data), deadline(m), b.worker)
			if isCode(err, "23505") {
				err = fmt.Errorf("%w: %q is already on the board", approval.ErrDuplicateID, req.ID)
			}
			if err != nil {
				b.mu.Lock()
				delete(b.waiting, req.ID)
				b.mu.Unlock()
			}
		}
	}
	if err != nil {
		// Wait is still registering this request, so Resolve cannot be
		// stale: the request is denied with the reason.
		_ = m.Resolve(req.ID, approval.Response{Choice: approval.Deny, Reason: "the request could not be published for approval: " + err.Error()})
	}
}

// settle records the local outcome of a request this board published: an
// answer given in this process, or its expiry (timeout, cancellation). A
// request already answered through the board keeps that answer.
func (b *Board) settle(e approval.Event) {
	b.mu.Lock()
	_, mine := b.waiting[e.Request.ID]
	delete(b.waiting, e.Request.ID)
	b.mu.Unlock()
	if !mine {
		return // never published (refused), so the row is someone else's
	}
	ctx := context.Background()
	var err error
	if e.Err != nil {
		_, err = b.pool.Exec(ctx, `UPDATE tether_approvals SET state = 'expired', settled = now() WHERE id = $1 AND state = 'pending'`, e.Request.ID)
	} else {
		_, err = b.pool.Exec(ctx, `UPDATE tether_approvals SET state = 'answered', response = $2, settled = now() WHERE id = $1 AND state = 'pending'`,
			e.Request.ID, responseJSON(e.Response))
	}
	if err != nil {
		b.log.Error("pgapproval: recording a request's outcome failed; other processes list it until its deadline",
			"id", e.Request.ID, "err", err)
	}
}

// settledOnBoard is true of a request row settled by an answer from any
// process or by its abandonment: an outcome the local waiter must adopt.
const settledOnBoard = `state IN ('answered', 'abandoned') AND response <> ''`

// answer returns the outcome the board holds for id, if any.
func (b *Board) answer(ctx context.Context, id string) (approval.Response, bool) {
	var data string
	err := b.pool.QueryRow(ctx, `SELECT response FROM tether_approvals WHERE id = $1 AND `+settledOnBoard, id).Scan(&data)
	if err != nil {
		return approval.Response{}, false
	}
	var resp approval.Response
	return resp, json.Unmarshal([]byte(data), &resp) == nil
}

// deliver hands answers given in any process to the local managers
// waiting on them: at once when a notification arrives, and at every poll
// for whatever a lost notification missed. It also wakes the watchers at
// every notification, and renews this board's lease and sweeps the dead
// workers' requests every third of the lease.
func (b *Board) deliver(ctx context.Context, conn *pgx.Conn) {
	defer close(b.done)
	notes := make(chan string, 64)
	var wg sync.WaitGroup
	if !b.noListen {
		wg.Go(func() { b.listen(ctx, conn, notes) })
	}
	defer wg.Wait()
	t := time.NewTicker(b.poll)
	defer t.Stop()
	lease := time.NewTicker(b.leaseTTL / 3)
	defer lease.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case id := <-notes:
			b.changes.signal()
			b.mu.Lock()
			_, mine := b.waiting[id]
			b.mu.Unlock()
			if mine {
				b.fetch(ctx, []string{id})
			}
		case <-lease.C:
			if err := b.renew(ctx); err != nil && ctx.Err() == nil {
				b.log.Error("pgapproval: this process's requests will be abandoned if the lease cannot be renewed in time", "worker", b.worker, "err", err)
			}
			if _, err := b.Sweep(ctx); err != nil && ctx.Err() == nil {
				b.log.Error("pgapproval: sweeping dead workers' requests failed", "err", err)
			}
		case <-t.C:
			b.mu.Lock()
			ids := make([]string, 0, len(b.waiting))
			for id := range b.waiting {
				ids = append(ids, id)
			}
			b.mu.Unlock()
			if len(ids) > 0 {
				b.fetch(ctx, ids)
			}
		}
	}
}

// subscribe opens a connection of its own (a pooled one would be handed
// to other queries) listening on the channel.
func (b *Board) subscribe(ctx context.Context) (*pgx.Conn, error) {
	conn, err := pgx.ConnectConfig(ctx, b.pool.Config().ConnConfig.Copy())
	if err != nil {
		return nil, err
	}
	if _, err := conn.Exec(ctx, "LISTEN "+channel); err != nil {
		conn.Close(context.Background())
		return nil, err
	}
	return conn, nil
}

// listen forwards the ids announced on conn, reconnecting after a lost
// connection; notifications that find notes full are dropped, since the
// polls (deliver's and Watch's) pick their changes up.
func (b *Board) listen(ctx context.Context, conn *pgx.Conn, notes chan<- string) {
	for ctx.Err() == nil {
		if conn != nil {
			for {
				n, err := conn.WaitForNotification(ctx)
				if err != nil {
					break
				}
				select {
				case notes <- n.Payload:
				default:
				}
			}
			conn.Close(context.Background())
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(b.poll):
		}
		conn, _ = b.subscribe(ctx) // nil on failure: retried after the next pause
	}
}

// fetch resolves, in their local managers, the requests among ids that
// the board holds an answer for.
func (b *Board) fetch(ctx context.Context, ids []string) {
	rows, err := b.pool.Query(ctx, `SELECT id, response FROM tether_approvals WHERE id = ANY($1) AND `+settledOnBoard, ids)
	if err != nil {
		return // the next poll tries again
	}
	type answer struct{ id, data string }
	answers, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (answer, error) {
		var a answer
		return a, r.Scan(&a.id, &a.data)
	})
	if err != nil {
		return
	}
	for _, a := range answers {
		b.mu.Lock()
		m := b.waiting[a.id]
		b.mu.Unlock()
		if m == nil {
			continue // another process's request, or settled already
		}
		var resp approval.Response
		if err := json.Unmarshal([]byte(a.data), &resp); err != nil {
			resp = approval.Response{Choice: approval.Deny, Reason: "the answer on the board could not be read: " + err.Error()}
		}
		// ErrStale here means the local timer fired first; the Approver
		// then reconciles with the board.
		_ = m.Resolve(a.id, resp)
	}
}
