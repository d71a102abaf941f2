package pgapproval_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/approval/pgapproval"
	"github.com/tetherdev/tether/internal/pgtest"
)

// watchIDs runs b.Watch in the background and sends the ids of each list
// it yields; it stops with the test.
func watchIDs(t *testing.T, b *pgapproval.Board) <-chan []string {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan []string, 16)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for reqs, err := range b.Watch(ctx) {
			if err != nil {
				t.Errorf("watch: %v", err)
				return
			}
			ids := []string{}
			for _, r := range reqs {
				ids = append(ids, r.ID)
			}
			ch <- ids
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	return ch
}

// next waits for the watch's next list.
func next(t *testing.T, ch <-chan []string) []string {
	t.Helper()
	select {
	case ids := <-ch:
		return ids
	case <-time.After(20 * time.Second):
		t.Fatal("the watch yielded nothing")
		return nil
	}
}

// A watch learns of requests registered and answered in another board by
// notification: this one polls once an hour.
func TestWatchIsNotified(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.Database(t)
	worker := openBoard(t, dsn)
	ui, err := pgapproval.Open(ctx, dsn, pgapproval.WithPollInterval(time.Hour))
	require.NoError(t, err)
	t.Cleanup(func() { ui.Close() })
	ids := watchIDs(t, ui)
	require.Empty(t, next(t, ids), "the list as it is, at once")

	a := worker.Approver(&approval.Manager{Timeout: time.Minute})
	done := ask(ctx, a, command("req_w1", "make deploy"))
	require.Equal(t, []string{"req_w1"}, next(t, ids))
	require.NoError(t, ui.Resolve(ctx, "req_w1", approval.Response{Choice: approval.AllowOnce}))
	require.Empty(t, next(t, ids))
	require.NoError(t, (<-done).err)

	// A request settled in its own worker (cancelled) leaves the list too.
	cctx, cancel := context.WithCancel(ctx)
	done = ask(cctx, a, command("req_w2", "make clean"))
	require.Equal(t, []string{"req_w2"}, next(t, ids))
	cancel()
	require.Empty(t, next(t, ids))
	<-done
}

// Closing a worker's board denies what it still waits on, and the
// requests leave every list instead of staying there until their deadline.
func TestCloseAbandonsRequests(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.Database(t)
	ui := openBoard(t, dsn)
	worker, err := pgapproval.Open(ctx, dsn)
	require.NoError(t, err)
	done := ask(ctx, worker.Approver(&approval.Manager{Timeout: -1}), command("req_c1", "make"))
	waitPending(t, ui, "req_c1")
	require.NoError(t, worker.Close())
	o := <-done
	require.NoError(t, o.err)
	require.Equal(t, approval.Deny, o.resp.Choice)
	require.Contains(t, o.resp.Reason, "closed its approval board")
	reqs, err := ui.Pending(ctx)
	require.NoError(t, err)
	require.Empty(t, reqs)
	err = ui.Resolve(ctx, "req_c1", approval.Response{Choice: approval.AllowOnce})
	require.ErrorIs(t, err, approval.ErrStale)
	require.ErrorContains(t, err, "abandoned")
}

const doomedEnv = "TETHER_PGAPPROVAL_DOOMED"

// TestDeadWorkerAbandoned: a worker process waiting without a timeout
// is killed with SIGKILL; once its lease expires its request leaves the
// approval page's watch, an answer to it is stale, and a sweep records it
// as abandoned.
func TestDeadWorkerAbandoned(t *testing.T) {
	if dsn := os.Getenv(doomedEnv); dsn != "" {
		b, err := pgapproval.Open(context.Background(), dsn, pgapproval.WithWorker("doomed"), pgapproval.WithLeaseTTL(time.Second))
		require.NoError(t, err)
		_, err = b.Approver(&approval.Manager{Timeout: -1}).Approve(context.Background(), command("req_doomed", "make release"))
		t.Fatalf("the worker's wait returned (%v); it should have been killed while waiting", err)
	}
	ctx := context.Background()
	dsn := pgtest.Database(t)
	// Its own sweep runs every third of its lease: not before the one
	// this test makes.
	ui, err := pgapproval.Open(ctx, dsn, pgapproval.WithPollInterval(200*time.Millisecond), pgapproval.WithLeaseTTL(time.Hour))
	require.NoError(t, err)
	t.Cleanup(func() { ui.Close() })
	ids := watchIDs(t, ui)
	require.Empty(t, next(t, ids))

	cmd := exec.Command(os.Args[0], "-test.run=^TestDeadWorkerAbandoned$", "-test.count=1")
	cmd.Env = append(os.Environ(), doomedEnv+"="+dsn)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })

	require.Equal(t, []string{"req_doomed"}, next(t, ids), "the worker's request reaches the page")
	require.NoError(t, cmd.Process.Kill()) // SIGKILL: no Close, no release
	_ = cmd.Wait()
	require.Empty(t, next(t, ids), "the dead worker's request leaves the page when its lease expires")

	err = ui.Resolve(ctx, "req_doomed", approval.Response{Choice: approval.AllowOnce})
	require.ErrorIs(t, err, approval.ErrStale)
	require.ErrorContains(t, err, "its worker is gone")
	n, err := ui.Sweep(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(1), n)
	err = ui.Resolve(ctx, "req_doomed", approval.Response{Choice: approval.AllowOnce})
	require.ErrorContains(t, err, "abandoned")
	n, err = ui.Sweep(ctx)
	require.NoError(t, err)
	require.Zero(t, n, "a request is abandoned once")
}

func TestLeaseOptions(t *testing.T) {
	ctx := context.Background()
	for want, o := range map[string]pgapproval.Option{
		"WithWorker(\"\")":  pgapproval.WithWorker(""),
		"WithLeaseTTL(1ms)": pgapproval.WithLeaseTTL(time.Millisecond),
	} {
		_, err := pgapproval.Open(ctx, "postgres://unused.invalid/db", o)
		require.ErrorContains(t, err, want)
	}
}

// A request published before boards recorded their owner (an older
// Tether on the same database) has no lease to expire: it stays listed
// and answerable, and no sweep abandons it.
func TestOwnerlessRequestIsNeverAbandoned(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.Database(t)
	ui := openBoard(t, dsn)
	conn, err := pgx.Connect(ctx, dsn)
	require.NoError(t, err)
	defer conn.Close(ctx)
	data, err := json.Marshal(command("req_old", "make"))
	require.NoError(t, err)
	_, err = conn.Exec(ctx, `INSERT INTO tether_approvals (id, request, state) VALUES ('req_old', $1, 'pending')`, string(data))
	require.NoError(t, err)
	n, err := ui.Sweep(ctx)
	require.NoError(t, err)
	require.Zero(t, n)
	waitPending(t, ui, "req_old")
	require.NoError(t, ui.Resolve(ctx, "req_old", approval.Response{Choice: approval.Deny}))
}
