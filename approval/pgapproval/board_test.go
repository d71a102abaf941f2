package pgapproval_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/approval/pgapproval"
	"github.com/tetherdev/tether/internal/pgtest"
	"github.com/tetherdev/tether/safety"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

func openBoard(t *testing.T, dsn string) *pgapproval.Board {
	t.Helper()
	b, err := pgapproval.Open(context.Background(), dsn, pgapproval.WithPollInterval(200*time.Millisecond))
	require.NoError(t, err)
	t.Cleanup(func() { b.Close() })
	return b
}

func command(id, cmd string) approval.Request {
	return approval.Request{ID: id, Kind: approval.KindCommand, ToolName: "run_terminal_command", Command: cmd,
		Decision: safety.Confirm, Severity: safety.SeverityHigh, Reasons: []string{"installs packages"}}
}

type outcome struct {
	resp approval.Response
	err  error
}

// ask runs one approval on the worker's board in the background.
func ask(ctx context.Context, a approval.Approver, req approval.Request) <-chan outcome {
	ch := make(chan outcome, 1)
	go func() {
		resp, err := a.Approve(ctx, req)
		ch <- outcome{resp, err}
	}()
	return ch
}

// waitPending polls the board until id is listed.
func waitPending(t testing.TB, b *pgapproval.Board, id string) approval.Request {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		reqs, err := b.Pending(context.Background())
		require.NoError(t, err)
		for _, r := range reqs {
			if r.ID == id {
				return r
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("request %s never appeared on the board", id)
	return approval.Request{}
}

// TestRulesAcrossBoards plays a worker and a UI with two boards on one
// database: the in-process Manager's rules hold between them.
func TestRulesAcrossBoards(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.Database(t)
	workerBoard, ui := openBoard(t, dsn), openBoard(t, dsn)
	m := &approval.Manager{Timeout: 5 * time.Second}
	a := workerBoard.Approver(m)

	t.Run("answered from the other board; first answer wins", func(t *testing.T) {
		done := ask(ctx, a, command("req_1", "npm install"))
		got := waitPending(t, ui, "req_1")
		require.Equal(t, "npm install", got.Command)
		require.Equal(t, []string{"installs packages"}, got.Reasons)
		require.NoError(t, ui.Resolve(ctx, "req_1", approval.Response{Choice: approval.AllowOnce, Reason: "ok"}))
		require.ErrorIs(t, ui.Resolve(ctx, "req_1", approval.Response{Choice: approval.Deny}), approval.ErrStale)
		o := <-done
		require.NoError(t, o.err)
		require.Equal(t, approval.AllowOnce, o.resp.Choice)
		reqs, _ := ui.Pending(ctx)
		require.Empty(t, reqs)
	})

	t.Run("unknown id", func(t *testing.T) {
		require.ErrorIs(t, ui.Resolve(ctx, "req_never", approval.Response{}), approval.ErrUnknownRequest)
		require.ErrorIs(t, ui.Resolve(ctx, "req_1", approval.Response{Choice: 9}), approval.ErrInvalidResponse)
	})

	t.Run("timeout denies; a later answer is stale", func(t *testing.T) {
		short := &approval.Manager{Timeout: 300 * time.Millisecond}
		o := <-ask(ctx, workerBoard.Approver(short), command("req_2", "make deploy"))
		require.ErrorIs(t, o.err, approval.ErrTimeout)
		require.False(t, o.resp.Allowed())
		require.ErrorIs(t, ui.Resolve(ctx, "req_2", approval.Response{Choice: approval.AllowOnce}), approval.ErrStale)
	})

	t.Run("cancellation denies; a later answer is stale", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		done := ask(cctx, a, command("req_3", "rm -rf build"))
		waitPending(t, ui, "req_3")
		cancel()
		o := <-done
		require.ErrorIs(t, o.err, context.Canceled)
		require.False(t, o.resp.Allowed())
		require.ErrorIs(t, ui.Resolve(ctx, "req_3", approval.Response{Choice: approval.AllowOnce}), approval.ErrStale)
	})

	t.Run("prune forgets settled requests only", func(t *testing.T) {
		done := ask(ctx, a, command("req_5", "make"))
		waitPending(t, ui, "req_5")
		n, err := ui.Prune(ctx, time.Now().Add(time.Minute))
		require.NoError(t, err)
		require.Equal(t, int64(3), n, "req_1, req_2 and req_3 were settled")
		require.ErrorIs(t, ui.Resolve(ctx, "req_1", approval.Response{}), approval.ErrUnknownRequest)
		require.NoError(t, ui.Resolve(ctx, "req_5", approval.Response{Choice: approval.AllowOnce}), "the pending request survives")
		require.NoError(t, (<-done).err)
	})

	t.Run("an id pending in another process is refused", func(t *testing.T) {
		done := ask(ctx, a, command("req_4", "make"))
		waitPending(t, ui, "req_4")
		other := &approval.Manager{Timeout: time.Second}
		o := <-ask(ctx, ui.Approver(other), command("req_4", "make"))
		require.False(t, o.resp.Allowed())
		require.Contains(t, o.resp.Reason, "already on the board")
		require.NoError(t, ui.Resolve(ctx, "req_4", approval.Response{Choice: approval.Deny, Message: "not now"}))
		o = <-done
		require.NoError(t, o.err)
		require.Equal(t, "not now", o.resp.Message)
	})
}

const childEnv = "TETHER_PGAPPROVAL_CHILD"

// TestAnswerFromAnotherProcess: a worker process waits on a request; this
// process lists it and answers it; the worker runs with that answer.
func TestAnswerFromAnotherProcess(t *testing.T) {
	if dsn := os.Getenv(childEnv); dsn != "" {
		b, err := pgapproval.Open(context.Background(), dsn)
		require.NoError(t, err)
		defer b.Close()
		m := &approval.Manager{Timeout: 30 * time.Second}
		resp, err := b.Approver(m).Approve(context.Background(), command("", "go test ./..."))
		fmt.Printf("answer %s %v %q\n", resp.Choice, err, resp.Message)
		return
	}
	ctx := context.Background()
	dsn := pgtest.Database(t)
	ui := openBoard(t, dsn)
	cmd := exec.Command(os.Args[0], "-test.run=^TestAnswerFromAnotherProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"="+dsn)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })

	var req approval.Request
	deadline := time.Now().Add(30 * time.Second)
	for req.ID == "" && time.Now().Before(deadline) {
		reqs, err := ui.Pending(ctx)
		require.NoError(t, err)
		if len(reqs) > 0 {
			req = reqs[0]
		}
		time.Sleep(20 * time.Millisecond)
	}
	require.Equal(t, "go test ./...", req.Command, "the worker's request never appeared")
	start := time.Now()
	require.NoError(t, ui.Resolve(ctx, req.ID, approval.Response{Choice: approval.AllowSession, Message: "from the web page"}))

	sc := bufio.NewScanner(out)
	var line string
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "answer ") {
			line = sc.Text()
			break
		}
	}
	require.Equal(t, `answer allow_session <nil> "from the web page"`, line)
	// Delivered by notification, not by the one-second fallback poll.
	t.Logf("answer reached the other process in %v", time.Since(start))
	if err := cmd.Wait(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		t.Fatalf("worker: %v", err)
	}
}
