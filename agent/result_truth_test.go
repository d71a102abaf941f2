package agent

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/tools"
)

// TestToolTimeoutIsTold: a tool stopped by Config.ToolTimeout is
// reported to the model and the host as timed out, with the limit, not as
// a cancellation with no output.
func TestToolTimeoutIsTold(t *testing.T) {
	e := newEnv(t, `{"tool_calls":[{"name":"slow_probe","arguments":{}}]}
{"content":"It timed out. [TASK_COMPLETE]"}`, nil)
	require.NoError(t, e.reg.Register(tools.Func{
		Spec: tools.Spec{Name: "slow_probe", Description: "Waits until stopped.", ReadOnly: true},
		Run: func(ctx context.Context, _ tools.Call) (tools.Result, error) {
			<-ctx.Done()
			return tools.Result{}, ctx.Err()
		},
	}))
	cfg := e.config()
	cfg.ToolTimeout = 50 * time.Millisecond
	res, err := e.run(cfg, "probe it")
	require.NoError(t, err)
	require.Equal(t, event.StopCompleted, res.StopReason)
	reqs := e.model.Requests()
	told := reqs[1].Messages[len(reqs[1].Messages)-1].Content
	require.Contains(t, strings.ToLower(told), "timed out")
	require.Contains(t, told, "50ms")
	require.NotContains(t, strings.ToLower(told), "cancel")
	var finished []event.ToolAction
	for _, a := range eventsOf[event.ToolAction](e.rec) {
		if a.Status != event.StatusRunning {
			finished = append(finished, a)
		}
	}
	require.Len(t, finished, 1)
	require.Equal(t, event.StatusError, finished[0].Status)
	require.Equal(t, "timed out", finished[0].Detail)
}

// TestResultDetail: an action's detail is the tool's own account when it
// gives one (get_diagnostics: "1 error, 2 warnings"), and counts read
// as English otherwise, never "1 matches in 0 files".
func TestResultDetail(t *testing.T) {
	for _, tt := range []struct {
		meta tools.Meta
		want string
	}{
		{tools.Meta{Matches: 3, Summary: "1 error, 2 warnings"}, "1 error, 2 warnings"},
		{tools.Meta{Matches: 1}, "1 result"},
		{tools.Meta{Matches: 1, Files: 1}, "1 match in 1 file"},
		{tools.Meta{Matches: 7, Files: 2}, "7 matches in 2 files"},
		{tools.Meta{Entries: 1}, "1 entry"},
	} {
		require.Equal(t, tt.want, resultDetail(tools.Result{Meta: tt.meta}, ""))
	}
}
