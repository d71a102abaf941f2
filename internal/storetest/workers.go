package storetest

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/agent/session"
	"github.com/tetherdev/tether/checkpoint"
)

// Opener opens the checkpoint and session stores that every worker of a
// test shares; dir is a directory all of them see, and the parent opens
// it before any worker starts. The stores are closed by the opener's
// t.Cleanup.
type Opener func(t testing.TB, dir string) (checkpoint.Store, session.Store)

// workerEnv tells a re-executed test binary to play a worker: "role:dir".
const workerEnv = "TETHER_STORETEST_WORKER"

// childLease is the lease of a worker that is about to be killed: short,
// so that the test sees another worker take the session over, yet longer
// than the two seconds a Run waits for a lease before it reports ErrBusy,
// so that the test sees that refusal first.
const childLease = 6 * time.Second

// Workers runs the multi-process tests on a store: a session written by
// one process is resumed, replayed and undone by another; a worker killed
// with SIGKILL in the middle of a turn loses no event the host saw, keeps
// other workers out until its lease expires, and its edit is undone by
// another worker, and the next turn continues from the iterations the
// killed one completed. Call it from a top-level test: it re-executes the test
// binary to run that test again as the child workers, so a TestMain must
// pass its database on to children through the environment.
func Workers(t *testing.T, open Opener) {
	if v := os.Getenv(workerEnv); v != "" {
		role, dir, _ := strings.Cut(v, ":")
		switch role {
		case "resume":
			resumeChild(t, open, dir)
		case "kill":
			killChild(t, open, dir)
		default:
			t.Fatalf("unknown worker role %q", role)
		}
		return
	}
	if testing.Short() {
		t.Skip("spawns worker processes")
	}
	t.Run("resume in another process", func(t *testing.T) { resumeParent(t, open) })
	t.Run("kill -9 mid-turn", func(t *testing.T) { killParent(t, open) })
}

// worker starts this test binary as a worker with the given role.
func worker(t *testing.T, role, dir string) *exec.Cmd {
	top, _, _ := strings.Cut(t.Name(), "/")
	cmd := exec.Command(os.Args[0], "-test.run=^"+top+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), workerEnv+"="+role+":"+dir)
	return cmd
}

func resumeParent(t *testing.T, open Opener) {
	ctx := context.Background()
	dir := t.TempDir()
	cps, store := open(t, dir) // first, so that the database outlives the worker
	out, err := worker(t, "resume", dir).CombinedOutput()
	require.NoError(t, err, "worker: %s", out)
	id := readID(t, dir, out)

	a := NewAgent(t, dir, cps, `{"content":"You asked me to create hello.txt, and I did. [TASK_COMPLETE]"}`)
	require.FileExists(t, filepath.Join(a.Workspace.Root(), "hello.txt"))
	mgr, err := session.NewManager(store, a.Config)
	require.NoError(t, err)
	list, err := mgr.List(ctx)
	require.NoError(t, err)
	require.Len(t, list, 1)
	require.Equal(t, id, list[0].ID)
	s, err := mgr.Open(ctx, id)
	require.NoError(t, err)

	// The event log replays the other worker's turn.
	var types []string
	var cpID string
	for se, err := range s.Events(ctx, 0) {
		require.NoError(t, err)
		types = append(types, se.Event.Type())
		if rf, ok := se.Event.(event.RunFinished); ok {
			cpID = rf.CheckpointID
		}
	}
	require.Equal(t, "run_started", types[0])
	require.Equal(t, "run_finished", types[len(types)-1])
	require.Contains(t, types, "tool_action")
	require.NotEmpty(t, cpID)

	// The conversation continues where the other worker left it.
	res, err := s.Run(ctx, agent.Input{Prompt: "what did I ask you?"})
	require.NoError(t, err)
	require.Contains(t, res.FinalMessage, "create hello.txt")
	require.Equal(t, "create hello.txt saying hi", a.Model.Requests()[0].Messages[1].Content)

	// And its edit is undone from the shared store.
	cp, err := s.Executor().Checkpoints().Open(ctx, cpID)
	require.NoError(t, err)
	_, err = cp.Undo(ctx, checkpoint.UndoOptions{})
	require.NoError(t, err)
	require.NoFileExists(t, filepath.Join(a.Workspace.Root(), "hello.txt"))
}

// resumeChild creates a session, runs one turn in it and exits.
func resumeChild(t *testing.T, open Opener, dir string) {
	ctx := context.Background()
	cps, store := open(t, dir)
	a := NewAgent(t, dir, cps, `{"tool_calls":[{"name":"write_file","arguments":{"path":"hello.txt","content":"hi\n"}}]}
{"content":"Created hello.txt. [TASK_COMPLETE]"}`)
	mgr, err := session.NewManager(store, a.Config)
	require.NoError(t, err)
	s, err := mgr.Create(ctx, "Hello")
	require.NoError(t, err)
	_, err = s.Run(ctx, agent.Input{Prompt: "create hello.txt saying hi"})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "id"), []byte(s.ID()), 0o644))
}

func readID(t *testing.T, dir string, out []byte) string {
	t.Helper()
	id, err := os.ReadFile(filepath.Join(dir, "id"))
	require.NoError(t, err, "worker: %s", out)
	return string(id)
}

// Lines the kill worker prints: every event its host sink saw, then the
// moment it waits on the model with the edit done.
const (
	hostSawPrefix = "host-saw "
	hangingLine   = "worker-waits-on-model"
)

func killChild(t *testing.T, open Opener, dir string) {
	ctx := context.Background()
	cps, store := open(t, dir)
	a := NewAgent(t, dir, cps, `{"capabilities":{"tools":true}}
{"content":"Reading it.","tool_calls":[{"name":"read_file","arguments":{"path":"a.txt"}}]}
{"content":"Writing it.","tool_calls":[{"name":"write_file","arguments":{"path":"a.txt","content":"edited\n"}}]}`)
	a.Config.Model = hangAfter(a.Model, 2, func() { fmt.Println(hangingLine) })
	a.Config.Sink = event.SinkFunc(func(_ context.Context, ev event.Event) error {
		fmt.Println(hostSawPrefix + ev.Type())
		return nil
	})
	mgr, err := session.NewManager(store, a.Config, session.WithWorker("doomed"), session.WithLeaseTTL(childLease))
	require.NoError(t, err)
	s, err := mgr.Create(ctx, "Doomed")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "id"), []byte(s.ID()), 0o644))
	_, err = s.Run(ctx, agent.Input{Prompt: "edit a.txt"})
	t.Fatalf("the worker's turn returned (%v); it should have been killed while waiting", err)
}

func killParent(t *testing.T, open Opener) {
	ctx := context.Background()
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "ws"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ws", "a.txt"), []byte("original\n"), 0o644))
	cps, store := open(t, dir) // first, so that the database outlives the worker
	cmd := worker(t, "kill", dir)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	var seen []string // events the killed worker's host saw
	waiting := make(chan struct{})
	done := make(chan struct{})
	var output strings.Builder
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			line := sc.Text()
			output.WriteString(line + "\n")
			if typ, ok := strings.CutPrefix(line, hostSawPrefix); ok {
				seen = append(seen, typ)
			}
			if line == hangingLine {
				close(waiting)
			}
		}
	}()
	select {
	case <-waiting:
	case <-done:
	case <-time.After(60 * time.Second):
	}
	require.NoError(t, cmd.Process.Kill()) // SIGKILL
	_ = cmd.Wait()
	<-done
	require.Contains(t, output.String(), hangingLine, "the worker never reached the model wait")
	killedAt := time.Now()
	id := readID(t, dir, []byte(output.String()))

	// Every event the dead worker's host saw is in the store, in order.
	var stored []string
	for se, err := range store.Events(ctx, id, 0) {
		require.NoError(t, err)
		require.Equal(t, int64(len(stored)+1), se.Seq)
		stored = append(stored, se.Event.Type())
	}
	require.NotEmpty(t, seen)
	require.GreaterOrEqual(t, len(stored), len(seen))
	require.Equal(t, seen, stored[:len(seen)], "stored events differ from what the host saw")
	require.Contains(t, seen, "tool_action", "worker output:\n%s", output.String())

	a := NewAgent(t, dir, cps, `{"content":"Taken over. [TASK_COMPLETE]"}`)
	require.FileExists(t, filepath.Join(a.Workspace.Root(), "a.txt"))
	mgr, err := session.NewManager(store, a.Config, session.WithWorker("survivor"))
	require.NoError(t, err)
	s, err := mgr.Open(ctx, id)
	require.NoError(t, err)

	// The dead worker's lease keeps this one out until it expires.
	if time.Since(killedAt) < childLease/2 {
		_, err = s.Run(ctx, agent.Input{Prompt: "go on"})
		var le *session.LeaseError
		require.ErrorAs(t, err, &le)
		require.Equal(t, "doomed", le.Owner)
	}

	// The edit of the killed turn is undone from this worker.
	infos, err := s.Executor().Checkpoints().List(ctx, id)
	require.NoError(t, err)
	require.Len(t, infos, 1)
	cp, err := s.Executor().Checkpoints().Open(ctx, infos[0].ID)
	require.NoError(t, err)
	_, err = cp.Undo(ctx, checkpoint.UndoOptions{})
	require.NoError(t, err)
	got, err := os.ReadFile(filepath.Join(a.Workspace.Root(), "a.txt"))
	require.NoError(t, err)
	require.Equal(t, "original\n", string(got))

	// Once the lease has expired, this worker runs the session.
	time.Sleep(time.Until(killedAt.Add(childLease + 100*time.Millisecond)))
	res, err := s.Run(ctx, agent.Input{Prompt: "go on"})
	require.NoError(t, err)
	require.Contains(t, res.FinalMessage, "Taken over")

	// The turn continues from what the killed one did: its prompt, both
	// completed iterations (the read and the write with their results),
	// then the new prompt.
	sent := a.Model.Requests()[len(a.Model.Requests())-1].Messages[1:]
	var calls []string
	for _, m := range sent {
		for _, c := range m.ToolCalls {
			calls = append(calls, c.Name)
		}
	}
	require.Equal(t, "edit a.txt", sent[0].Content, "the killed turn's prompt is lost: %+v", sent)
	require.Equal(t, []string{"read_file", "write_file"}, calls)
	require.Contains(t, sent[2].Content, "original", "the read's result")
	require.Equal(t, "go on", sent[len(sent)-1].Content)
}
