package session

import (
	"context"
	"iter"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/checkpoint"
	"github.com/tetherdev/tether/llm"
)

// TestLeaseAcrossWorkers: two managers (two workers) share a store; while
// one runs a turn longer than the lease, renewals keep the other out of
// the session, for runs and deletes alike; afterwards it may run.
func TestLeaseAcrossWorkers(t *testing.T) {
	ctx := context.Background()
	store := NewMemoryStore()
	f := newFixture(t, t.TempDir(), checkpoint.NewMemoryStore(), `{"content":"Second worker here. [TASK_COMPLETE]"}`)
	entered, release := make(chan struct{}), make(chan struct{})
	slow := f.cfg
	slow.Model = llm.ModelFunc(func(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
		return func(yield func(llm.Chunk, error) bool) {
			close(entered)
			<-release
			yield(llm.Chunk{Content: "Done. [TASK_COMPLETE]"}, nil)
			yield(llm.Chunk{Done: true, StopReason: llm.StopEnd}, nil)
		}
	})
	const ttl = 600 * time.Millisecond // renewed every ttl/3: long enough that a busy CI machine does not miss two renewals
	a, err := NewManager(store, slow, WithWorker("worker-a"), WithLeaseTTL(ttl))
	require.NoError(t, err)
	b, err := NewManager(store, f.cfg, WithWorker("worker-b"), WithLeaseTTL(ttl))
	require.NoError(t, err)
	sa, err := a.Create(ctx, "shared")
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() {
		_, err := sa.Run(ctx, agent.Input{Prompt: "take your time"})
		done <- err
	}()
	<-entered
	time.Sleep(3 * ttl) // past the first lease: only renewals keep it
	sb, err := b.Open(ctx, sa.ID())
	require.NoError(t, err)
	_, err = sb.Run(ctx, agent.Input{Prompt: "me too"})
	var le *LeaseError
	require.ErrorAs(t, err, &le)
	require.ErrorIs(t, err, ErrBusy)
	require.Equal(t, "worker-a", le.Owner)
	require.ErrorIs(t, b.Delete(ctx, sa.ID()), ErrBusy)

	close(release)
	require.NoError(t, <-done)
	res, err := sb.Run(ctx, agent.Input{Prompt: "me too"})
	require.NoError(t, err, "the lease is released when the turn ends")
	require.Contains(t, res.FinalMessage, "Second worker")
	require.NoError(t, b.Delete(ctx, sa.ID()))
}

// TestRunWaitsForALeaseBeingReleased: a worker whose turn has just ended
// releases its lease after its last event; a prompt sent in that moment
// from another worker waits for the release instead of failing.
func TestRunWaitsForALeaseBeingReleased(t *testing.T) {
	ctx := context.Background()
	store := NewMemoryStore()
	f := newFixture(t, t.TempDir(), checkpoint.NewMemoryStore(), `{"content":"Got it. [TASK_COMPLETE]"}`)
	m, err := NewManager(store, f.cfg, WithWorker("worker-b"))
	require.NoError(t, err)
	s, err := m.Create(ctx, "shared")
	require.NoError(t, err)
	require.NoError(t, store.Lease(ctx, s.ID(), "worker-a", time.Now(), time.Now().Add(time.Minute)))
	released := make(chan error, 1)
	go func() {
		time.Sleep(300 * time.Millisecond) // worker-a saving its conversation
		released <- store.Release(ctx, s.ID(), "worker-a")
	}()
	res, err := s.Run(ctx, agent.Input{Prompt: "hello"})
	require.NoError(t, err)
	require.Contains(t, res.FinalMessage, "Got it.")
	require.NoError(t, <-released)
}

func TestLeaseOptions(t *testing.T) {
	f := newFixture(t, t.TempDir(), checkpoint.NewMemoryStore(), "")
	_, err := NewManager(NewMemoryStore(), f.cfg, WithWorker(""))
	require.ErrorContains(t, err, "unique, non-empty name")
	_, err = NewManager(NewMemoryStore(), f.cfg, WithLeaseTTL(time.Millisecond))
	require.ErrorContains(t, err, "too short")
}

// stolenLease grants the first lease and refuses every renewal, as a
// store does once another worker took over an expired lease.
type stolenLease struct {
	*MemoryStore
	granted bool
}

func (s *stolenLease) Lease(ctx context.Context, id, owner string, now, until time.Time) error {
	if s.granted {
		return &LeaseError{Session: id, Owner: "thief", Until: until}
	}
	s.granted = true
	return s.MemoryStore.Lease(ctx, id, owner, now, until)
}

// TestLostLeaseStopsTheTurn: a worker that can no longer renew its lease
// stops its turn instead of running beside the new holder.
func TestLostLeaseStopsTheTurn(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, t.TempDir(), checkpoint.NewMemoryStore(), "")
	f.cfg.Model = llm.ModelFunc(func(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
		return func(yield func(llm.Chunk, error) bool) {
			<-ctx.Done()
			yield(llm.Chunk{}, context.Cause(ctx))
		}
	})
	m, err := NewManager(&stolenLease{MemoryStore: NewMemoryStore()}, f.cfg, WithLeaseTTL(150*time.Millisecond))
	require.NoError(t, err)
	s, err := m.Create(ctx, "t")
	require.NoError(t, err)
	_, err = s.Run(ctx, agent.Input{Prompt: "wait"})
	require.ErrorIs(t, err, errLeaseLost)
	require.ErrorContains(t, err, "thief")
	require.ErrorContains(t, err, "not saved")
	st, err := s.State(ctx)
	require.NoError(t, err)
	require.Empty(t, st.Messages, "a worker that lost the session must not overwrite its conversation")
	var types []string
	for se, err := range s.Events(ctx, 0) {
		require.NoError(t, err)
		types = append(types, se.Event.Type())
	}
	require.Equal(t, "run_started", types[0], "the turn's events are in the log")
}
