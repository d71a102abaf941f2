package session

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tetherdev/tether/internal/worker"
)

// DefaultLeaseTTL is how long a worker's claim on a session lasts without
// renewal. A running turn renews it every third of that, so only a worker
// that died (kill -9, lost machine) lets it lapse; another worker can take
// the session over once it has.
const DefaultLeaseTTL = 30 * time.Second

// WithWorker names this process in the session leases it takes, for the
// error another worker gets (*LeaseError.Owner). The default is the host
// name, the process id and a random suffix; names must be unique among
// the workers sharing a store.
func WithWorker(name string) Option {
	return func(m *Manager) error {
		if err := worker.CheckName("session", name); err != nil {
			return err
		}
		m.worker = name
		return nil
	}
}

// WithLeaseTTL sets how long a session lease lasts without renewal
// (default DefaultLeaseTTL): shorter lets another worker take over the
// session of a dead one sooner, at the cost of more renewals.
func WithLeaseTTL(ttl time.Duration) Option {
	return func(m *Manager) error {
		if err := worker.CheckLeaseTTL("session", ttl); err != nil {
			return err
		}
		m.leaseTTL = ttl
		return nil
	}
}

// errLeaseLost is the cause of a turn's cancellation when its lease could
// not be renewed: another worker may now run the session, so this one
// must stop rather than interleave.
var errLeaseLost = errors.New("session: this worker lost its lease on the session; the turn was stopped so that two workers never run it at once")

// hold claims the session for this worker and renews the claim until
// release is called. The returned context is cancelled (cause wrapping
// errLeaseLost) when a renewal fails. Invariant: while hold's context is
// live, no other worker holds a valid lease on the session.
func (s *Session) hold(ctx context.Context) (context.Context, func(), error) {
	m := s.m
	if err := s.claim(ctx); err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(m.leaseTTL / 3)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				now := m.now()
				if err := m.store.Lease(context.WithoutCancel(ctx), s.id, m.worker, now, now.Add(m.leaseTTL)); err != nil {
					cancel(fmt.Errorf("%w: %w", errLeaseLost, err))
					return
				}
			}
		}
	}()
	release := func() {
		close(done)
		<-stopped
		cancel(nil)
		// A failed release only delays the next worker until the lease
		// expires; the turn's own outcome is what the caller reports.
		_ = m.store.Release(context.WithoutCancel(ctx), s.id, m.worker)
	}
	return ctx, release, nil
}

// leaseGrace is how long claiming a session waits out another worker's
// lease before failing with ErrBusy. A turn that ends in another process
// saves its conversation and releases its lease just after its last
// event, and a host reacting to that event (a second server showing the
// same session) must get the session rather than a refusal.
const leaseGrace = 2 * time.Second

// claim takes the session's lease for this worker, retrying while
// another worker holds it, for up to leaseGrace.
func (s *Session) claim(ctx context.Context) error {
	m := s.m
	giveUp := time.Now().Add(leaseGrace)
	for {
		now := m.now()
		err := m.store.Lease(ctx, s.id, m.worker, now, now.Add(m.leaseTTL))
		if err == nil || !errors.Is(err, ErrBusy) || time.Now().After(giveUp) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(50 * time.Millisecond):
		}
	}
}
