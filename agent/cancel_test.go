package agent

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/llm"
)

// Cancelling while the model streams stops the stream; the call that was
// being written never runs, so no file is touched; what was said is kept.
func TestCancelMidStream(t *testing.T) {
	inBothModes(t, `{"capabilities":{"tools":true}}
{"content":"I will now rewrite main.go completely with a much better version.","tool_calls":[{"name":"write_file","arguments":{"path":"main.go","content":"package main\n\nfunc main() {}\n"}}]}
{"content":"never reached"}
`, map[string]string{"main.go": mainGo}, func(t *testing.T, e *env) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		e.rec.hook = func(ev event.Event) {
			if _, ok := ev.(event.TextDelta); ok {
				cancel()
			}
		}
		x, err := New(e.config())
		require.NoError(t, err)
		res, err := x.Run(ctx, Input{Prompt: "Rewrite main.go"})
		require.ErrorIs(t, err, context.Canceled)
		assert.Equal(t, event.StopCanceled, res.StopReason)
		assert.Equal(t, mainGo, e.read("main.go"))
		assert.Empty(t, e.rec.actions())
		assert.Equal(t, 1, e.model.Remaining())
		require.Len(t, res.History, 2, "the partial answer is kept for the next turn")
		assert.Equal(t, llm.RoleAssistant, res.History[1].Role)
		fin := e.rec.all()[len(e.rec.all())-1].(event.RunFinished)
		assert.Equal(t, event.StopCanceled, fin.StopReason)
		assert.Contains(t, fin.Error, "canceled")
	})
}

// Cancelling while a command runs kills its whole process group
// (background children too); the write queued after it is skipped, so
// no file is written.
func TestCancelMidCommand(t *testing.T) {
	inBothModes(t, `{"capabilities":{"tools":true}}
{"tool_calls":[{"name":"run_terminal_command","arguments":{"command":"sleep 60 & echo $! > child.pid; echo $$ > shell.pid; wait"}},{"name":"write_file","arguments":{"path":"after.txt","content":"x"}}]}
{"content":"never reached"}
`, nil, func(t *testing.T, e *env) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		e.rec.hook = func(ev event.Event) {
			if a, ok := ev.(event.ToolAction); ok && a.Tool == "run_terminal_command" && a.Status == event.StatusRunning {
				go func() {
					for !e.exists("shell.pid") || !e.exists("child.pid") {
						time.Sleep(5 * time.Millisecond)
					}
					time.Sleep(20 * time.Millisecond)
					cancel()
				}()
			}
		}
		cfg := e.config()
		cfg.Policy = approval.AutoApprove()
		cfg.Approver = &approver{answer: allowAll}
		x, err := New(cfg)
		require.NoError(t, err)
		start := time.Now()
		res, err := x.Run(ctx, Input{Prompt: "Run the slow job"})
		require.ErrorIs(t, err, context.Canceled)
		assert.Less(t, time.Since(start), 20*time.Second)
		assert.Equal(t, event.StopCanceled, res.StopReason)
		assert.False(t, e.exists("after.txt"), "no write after cancellation")

		for _, f := range []string{"shell.pid", "child.pid"} {
			pid, err := strconv.Atoi(strings.TrimSpace(e.read(f)))
			require.NoError(t, err)
			require.Eventually(t, func() bool { return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) || zombie(pid) },
				5*time.Second, 10*time.Millisecond, "%s %d still running", f, pid)
		}
		acts := e.rec.actions()
		require.Len(t, acts, 2)
		assert.Equal(t, event.StatusSkipped, acts[1].Status)
	})
}

// zombie reports a process that has exited but not been reaped by its
// parent (the orphaned sleep is reparented to init, which reaps it
// eventually); it no longer runs.
func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	f := strings.Fields(string(b))
	return len(f) > 2 && f[2] == "Z"
}

// Cancelling while an approval is pending ends the wait: the action does
// not run, the card is resolved, and the run reports the cancellation.
func TestCancelPendingApproval(t *testing.T) {
	e := newEnv(t, `{"capabilities":{"tools":true}}
{"tool_calls":[{"name":"run_terminal_command","arguments":{"command":"touch marker.txt"}}]}
{"content":"never reached"}
`, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e.rec.hook = func(ev event.Event) {
		if _, ok := ev.(event.ApprovalRequested); ok {
			cancel()
		}
	}
	cfg := e.config()
	cfg.Approver = &approver{} // waits for its context
	x, err := New(cfg)
	require.NoError(t, err)
	res, err := x.Run(ctx, Input{Prompt: "Touch the marker"})
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, event.StopCanceled, res.StopReason)
	assert.False(t, e.exists("marker.txt"))
	resolved := eventsOf[event.ApprovalResolved](e.rec)
	require.Len(t, resolved, 1)
	assert.Equal(t, approval.Deny, resolved[0].Choice)
	acts := e.rec.actions()
	require.Len(t, acts, 1)
	assert.Equal(t, event.StatusSkipped, acts[0].Status)
	assert.Equal(t, 1, e.model.Remaining())
}
