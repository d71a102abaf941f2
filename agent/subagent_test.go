package agent

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tetherdev/tether/agent/event"
)

// TestSubagent: the parent delegates a question; the child runs in
// explore mode with its own round limit, its events nest under the
// parent's action, and its final message is the tool result.
func TestSubagent(t *testing.T) {
	// One scripted model serves both, in order: parent, child, child, parent.
	script := `{"tool_calls":[{"id":"p1","name":"subagent","arguments":{"task":"Which function does util.go define?","max_rounds":3}}]}
{"tool_calls":[{"name":"read_file","arguments":{"path":"util.go"}}]}
{"content":"util.go defines Add. [TASK_COMPLETE]"}
{"content":"The helper says util.go defines Add. [TASK_COMPLETE]"}`
	e := newEnv(t, script, map[string]string{"util.go": "package util\n\nfunc Add(a, b int) int { return a + b }\n"})
	cfg := e.config()
	cfg.Subagents = &SubagentConfig{}
	res, err := e.run(cfg, "Ask a helper what util.go defines")
	require.NoError(t, err)
	require.Equal(t, event.StopCompleted, res.StopReason)
	require.Equal(t, "The helper says util.go defines Add.", res.FinalMessage)

	// The parent's action carries the child's answer.
	var parent event.ToolAction
	for _, a := range e.rec.actions() {
		if a.Tool == SubagentToolName {
			parent = a
		}
	}
	require.Equal(t, event.StatusSuccess, parent.Status)
	require.Equal(t, "util.go defines Add.", parent.Output)
	require.Equal(t, "p1", parent.CallID)

	// Child events are nested, in order, between the parent's running
	// and final action events.
	all := e.rec.all()
	running := slices.IndexFunc(all, func(ev event.Event) bool {
		a, ok := ev.(event.ToolAction)
		return ok && a.Tool == SubagentToolName && a.Status == event.StatusRunning
	})
	done := slices.IndexFunc(all, func(ev event.Event) bool {
		a, ok := ev.(event.ToolAction)
		return ok && a.Tool == SubagentToolName && a.Status == event.StatusSuccess
	})
	var nested []event.Event
	for i, ev := range all {
		if s, ok := ev.(event.SubagentEvent); ok {
			require.Greater(t, i, running)
			require.Less(t, i, done)
			require.Equal(t, "p1", s.ParentCallID)
			require.Equal(t, 1, s.Depth)
			nested = append(nested, s.Event)
		}
	}
	start, ok := nested[0].(event.RunStarted)
	require.True(t, ok)
	require.Equal(t, string(ModeExplore), start.Mode, "read-only is the default policy")
	require.NotContains(t, start.Tools, SubagentToolName, "a helper does not delegate again")
	require.NotContains(t, start.Tools, "write_file")
	require.Equal(t, "run_finished", nested[len(nested)-1].Type())

	// The nested form survives JSON.
	sub := all[slices.IndexFunc(all, func(ev event.Event) bool { _, ok := ev.(event.SubagentEvent); return ok })]
	b, err := event.Marshal(sub)
	require.NoError(t, err)
	require.Contains(t, string(b), `{"type":"subagent_event","parent_call_id":"p1","depth":1,"event":{"type":"run_started"`)
	back, err := event.Unmarshal(b)
	require.NoError(t, err)
	require.IsType(t, event.SubagentEvent{}, back)
	require.IsType(t, event.RunStarted{}, back.(event.SubagentEvent).Event)
}

// TestSubagentRoundLimit: the call's max_rounds is capped by the config
// and an exhausted helper says its answer may be incomplete.
func TestSubagentRoundLimit(t *testing.T) {
	script := `{"tool_calls":[{"name":"subagent","arguments":{"task":"look around","max_rounds":50}}]}
{"tool_calls":[{"name":"list_files","arguments":{"path":"."}}]}
{"tool_calls":[{"name":"list_files","arguments":{"path":"."}}]}
{"content":"The workspace holds a.txt."}
{"content":"Done. [TASK_COMPLETE]"}`
	e := newEnv(t, script, map[string]string{"a.txt": "a"})
	cfg := e.config()
	cfg.Subagents = &SubagentConfig{MaxRounds: 2}
	_, err := e.run(cfg, "explore")
	require.NoError(t, err)
	var out string
	for _, a := range e.rec.actions() {
		if a.Tool == SubagentToolName {
			out = a.Output
		}
	}
	require.Contains(t, out, "The workspace holds a.txt.", "the helper's fallback summary is its answer")
	require.Contains(t, out, "used all 2 of its rounds")
	require.Zero(t, e.model.Remaining())
}

func TestSubagentInheritWrites(t *testing.T) {
	script := `{"tool_calls":[{"name":"subagent","arguments":{"task":"create hello.txt saying hi"}}]}
{"tool_calls":[{"name":"write_file","arguments":{"path":"hello.txt","content":"hi\n"}}]}
{"content":"Created hello.txt. [TASK_COMPLETE]"}
{"content":"The helper created hello.txt. [TASK_COMPLETE]"}`
	e := newEnv(t, script, nil)
	cfg := e.config()
	cfg.Subagents = &SubagentConfig{Policy: SubagentInherit}
	x, err := New(cfg)
	require.NoError(t, err)
	res, err := x.Run(context.Background(), Input{Prompt: "delegate the file"})
	require.NoError(t, err)
	require.Equal(t, "hi\n", e.read("hello.txt"))
	var out event.ToolAction
	for _, a := range e.rec.actions() {
		if a.Tool == SubagentToolName {
			out = a
		}
	}
	require.Contains(t, out.Output, "The helper changed: hello.txt (+1 −0)")
	require.NotEmpty(t, out.CheckpointID)
	// The helper's checkpoint is in the same session: the host can undo it.
	cps, err := x.Checkpoints().List(context.Background(), "")
	require.NoError(t, err)
	require.Len(t, cps, 1)
	require.Equal(t, out.CheckpointID, cps[0].ID)
	_ = res

	_, err = New(Config{Model: scripted(t, ""), Subagents: &SubagentConfig{Policy: "everything"}})
	require.ErrorIs(t, err, ErrConfig)
}
