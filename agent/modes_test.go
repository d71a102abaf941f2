package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/approval"
)

// Read-only modes default to 10 iterations.
func TestReadOnlyIterationDefault(t *testing.T) {
	c := Config{}
	assert.Equal(t, 25, c.maxIterations(builtinMode(ModeAgent), ToolCallingNative))
	assert.Equal(t, DefaultEnvelopeRounds, c.maxIterations(builtinMode(ModeAgent), ToolCallingEnvelope))
	assert.Equal(t, 10, c.maxIterations(builtinMode(ModeExplore), ToolCallingText))
	assert.Equal(t, 10, c.maxIterations(builtinMode(ModeReview), ToolCallingNative))
}

// builtinMode is the built-in mode named m.
func builtinMode(m Mode) ModeSpec {
	s, err := (&Config{}).modeSpec(m)
	if err != nil {
		panic(err)
	}
	return s
}

// Read-only modes block writes in code, whatever the model writes.
func TestReadOnlyModeBlocksWrite(t *testing.T) {
	inBothModes(t, `{"capabilities":{"tools":true}}
{"tool_calls":[{"name":"write_file","arguments":{"path":"a.txt","content":"x"}},{"name":"read_file","arguments":{"path":"main.go"}}]}
{"content":"main.go prints a greeting."}
`, map[string]string{"main.go": mainGo}, func(t *testing.T, e *env) {
		ap := &approver{answer: allowAll}
		cfg := e.config()
		cfg.Mode = ModeExplore
		cfg.Approver = ap
		cfg.Policy = approval.AutoApprove()
		res, err := e.run(cfg, "Create a.txt and explain main.go")
		require.NoError(t, err)
		assert.Equal(t, event.StopCompleted, res.StopReason, "no write validation in read-only modes")
		assert.False(t, e.exists("a.txt"))
		assert.Empty(t, ap.asked)
		assert.Empty(t, res.CheckpointID)
		acts := e.rec.actions()
		require.Len(t, acts, 2)
		assert.Equal(t, event.StatusDenied, acts[0].Status)
		assert.Contains(t, acts[0].Output, "not available in explore mode")
		assert.Equal(t, event.StatusSuccess, acts[1].Status)
		req := e.model.Requests()[0]
		var offered []string
		for _, s := range req.Tools {
			offered = append(offered, s.Name)
		}
		if len(offered) == 0 { // text mode: the tools are described in the prompt
			for _, line := range strings.Split(req.Messages[0].Content, "\n") {
				if name, ok := strings.CutPrefix(line, "### "); ok {
					offered = append(offered, name)
				}
			}
		}
		assert.ElementsMatch(t, []string{"read_file", "list_files", "search_workspace"}, offered)
	})
}

// Review mode may run read-only git commands without approval, and
// nothing else.
func TestReviewModeGit(t *testing.T) {
	e := newEnv(t, `{"capabilities":{"tools":true}}
{"tool_calls":[{"name":"run_terminal_command","arguments":{"command":"git status --short"}},{"name":"run_terminal_command","arguments":{"command":"touch x.txt"}},{"name":"run_terminal_command","arguments":{"command":"git -c core.pager=evil log"}}]}
{"content":"Reviewed."}
`, nil)
	ap := &approver{answer: allowAll}
	cfg := e.config()
	cfg.Mode = ModeReview
	cfg.Approver = ap
	_, err := e.run(cfg, "Review the latest changes")
	require.NoError(t, err)
	assert.Empty(t, ap.asked)
	assert.False(t, e.exists("x.txt"))
	acts := e.rec.actions()
	require.Len(t, acts, 3)
	assert.NotEqual(t, event.StatusDenied, acts[0].Status, "git status runs (it may fail outside a repository)")
	assert.Equal(t, event.StatusDenied, acts[1].Status)
	assert.Equal(t, event.StatusDenied, acts[2].Status)
}

// Envelope mode: one ```yips-agent block; results come back
// as "Action results:".
func TestEnvelopeMode(t *testing.T) {
	e := newEnv(t, `{"capabilities":{"tools":true}}
{"content":"`+"```yips-agent\\n"+`{\"assistant_text\": \"Reading it.\", \"actions\": [{\"type\": \"tool\", \"id\": \"t1\", \"name\": \"read_file\", \"arguments\": {\"path\": \"main.go\"}}]}`+"\\n```"+`"}
{"content":"It prints a greeting."}
`, map[string]string{"main.go": mainGo})
	cfg := e.config()
	cfg.ToolCalling = ToolCallingEnvelope
	res, err := e.run(cfg, "What does main.go do?")
	require.NoError(t, err)
	assert.Equal(t, ToolCallingEnvelope, res.ToolCalling)
	assert.Contains(t, e.model.Requests()[0].Messages[0].Content, "```yips-agent")
	results := lastUser(e.model.Requests()[1])
	assert.True(t, strings.HasPrefix(results, "Action results:"), results)
	assert.Contains(t, results, "id t1, tool read_file: success")
	assert.Contains(t, e.rec.text(), "Reading it.")
	assert.NotContains(t, e.rec.text(), "yips-agent")
}

// Two envelopes in one message break the envelope rule; the parser's reason
// goes back to the model.
func TestEnvelopeTwoBlocksFedBack(t *testing.T) {
	block := "```yips-agent\\n{\\\"actions\\\": [{\\\"type\\\": \\\"tool\\\", \\\"id\\\": \\\"t1\\\", \\\"name\\\": \\\"list_files\\\", \\\"arguments\\\": {}}]}\\n```"
	e := newEnv(t, `{"capabilities":{"tools":true}}
{"content":"`+block+`\\n`+block+`"}
{"content":"Sorry, one block only."}
`, nil)
	cfg := e.config()
	cfg.ToolCalling = ToolCallingEnvelope
	_, err := e.run(cfg, "List the files")
	require.NoError(t, err)
	fb := lastResult(e.model.Requests()[1])
	assert.Contains(t, fb, "exactly one ```yips-agent fenced block")
}

// Input.Mode overrides Config.Mode for one run, and "allow for this
// session" answers carry over to the Executor's later runs.
func TestModeOverrideAndSessionGrants(t *testing.T) {
	e := newEnv(t, `{"capabilities":{"tools":true}}
{"tool_calls":[{"name":"run_terminal_command","arguments":{"command":"echo one"}}]}
{"content":"Ran it."}
{"tool_calls":[{"name":"run_terminal_command","arguments":{"command":"echo one"}}]}
{"content":"Ran it again."}
{"tool_calls":[{"name":"run_terminal_command","arguments":{"command":"echo one"}}]}
{"content":"Not in explore mode."}
`, nil)
	ap := &approver{answer: func(approval.Request) approval.Response { return approval.Response{Choice: approval.AllowSession} }}
	cfg := e.config()
	cfg.Approver = ap
	x, err := New(cfg)
	require.NoError(t, err)
	for range 2 {
		_, err := x.Run(context.Background(), Input{Prompt: "Say one"})
		require.NoError(t, err)
	}
	assert.Len(t, ap.asked, 1, "the session grant covers the second run")
	res, err := x.Run(context.Background(), Input{Prompt: "Say one", Mode: ModeExplore})
	require.NoError(t, err)
	assert.Equal(t, ModeExplore, res.Mode)
	acts := e.rec.actions()
	require.Len(t, acts, 3)
	assert.Equal(t, []event.ActionStatus{event.StatusSuccess, event.StatusSuccess, event.StatusDenied}, []event.ActionStatus{acts[0].Status, acts[1].Status, acts[2].Status})
}
