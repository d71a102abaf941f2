package agent

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/tools"
)

// TestCustomMode defines an Ask mode the way a host would: read-only,
// read_file only, its own prompt, temperature and round limit. The same
// Executor and Registry serve it and the built-in agent mode.
func TestCustomMode(t *testing.T) {
	temp := 0.1
	ask := ModeSpec{Name: "ask", ReadOnly: true, Tools: []string{"read_file"},
		Role: "You answer questions about this code.", Prompt: "Answer in one paragraph.", Temperature: &temp, MaxIterations: 3}
	inBothModes(t, `{"capabilities":{"tools":true}}
{"tool_calls":[{"name":"search_workspace","arguments":{"query":"Helo"}}]}
{"tool_calls":[{"name":"read_file","arguments":{"path":"main.go"}}]}
{"tool_calls":[{"name":"write_file","arguments":{"path":"x.txt","content":"x"}}]}
{"content":"never reached"}
`, map[string]string{"main.go": mainGo}, func(t *testing.T, e *env) {
		cfg := e.config()
		cfg.Modes = []ModeSpec{ask}
		x, err := New(cfg)
		require.NoError(t, err)
		res, err := x.Run(context.Background(), Input{Prompt: "What does main print?", Mode: "ask"})
		require.NoError(t, err)
		assert.Equal(t, event.StopMaxIterations, res.StopReason, "the mode's limit of 3 rounds")
		reqs := e.model.Requests()
		require.Equal(t, 4, len(reqs), "three rounds, then the summary request")
		sys := reqs[0].Messages[0].Content
		assert.True(t, strings.HasPrefix(sys, "You answer questions about this code."), sys[:80])
		assert.Contains(t, sys, "Answer in one paragraph.")
		assert.NotContains(t, sys, "RULES:", "a read-only mode gets no edit rules")
		require.NotNil(t, reqs[0].Temperature)
		assert.Equal(t, 0.1, *reqs[0].Temperature)
		if len(reqs[0].Tools) > 0 {
			assert.Len(t, reqs[0].Tools, 1)
			assert.Equal(t, "read_file", reqs[0].Tools[0].Name)
		}
		assert.Contains(t, lastResult(reqs[1]), "search_workspace is not available in ask mode")
		assert.Contains(t, lastResult(reqs[2]), "Helo")
		assert.NoFileExists(t, e.dir+"/x.txt")
		assert.Equal(t, 0.1, *reqs[3].Temperature, "the summary uses the mode's temperature too")
		for _, ev := range e.rec.all() {
			if rs, ok := ev.(event.RunStarted); ok {
				assert.Equal(t, "ask", rs.Mode)
			}
		}
	})
}

func TestModeGateByDeclaredEffects(t *testing.T) {
	offline := ModeSpec{Name: "offline", Allow: func(s tools.Spec) bool { return !s.OpenWorld }}
	gate := offline.gate()
	require.NoError(t, gate(&ToolCall{Tool: "edit_file", Spec: tools.Spec{Name: "edit_file"}}))
	err := gate(&ToolCall{Tool: "read_webpage", Spec: tools.Spec{Name: "read_webpage", ReadOnly: true, OpenWorld: true}})
	require.ErrorIs(t, err, ErrModeTool)
	assert.Nil(t, builtinMode(ModeAgent).gate(), "agent mode allows all")
	review := builtinMode(ModeReview)
	assert.True(t, review.offers(tools.Spec{Name: "run_terminal_command"}))
	assert.False(t, review.offers(tools.Spec{Name: "edit_file"}))
	assert.True(t, errors.Is(review.gate()(&ToolCall{Tool: "edit_file"}), ErrReadOnlyMode))
	// In a read-only mode the call's declared effects decide: a read-only
	// tool whose call declares a write is refused, as is a command that
	// writes; a read-only git command passes review's gate.
	readFile := tools.Spec{Name: "read_file", ReadOnly: true}
	require.NoError(t, review.gate()(&ToolCall{Tool: "read_file", Spec: readFile, Effects: tools.Effects{Annotations: tools.Annotations{ReadOnly: true}}}))
	assert.ErrorIs(t, review.gate()(&ToolCall{Tool: "read_file", Spec: readFile, Effects: tools.Effects{Writes: []string{"x"}}}), ErrReadOnlyMode)
	term := tools.Spec{Name: "run_terminal_command"}
	require.NoError(t, review.gate()(&ToolCall{Tool: "run_terminal_command", Spec: term, Effects: tools.Effects{Command: "git log"}}))
	assert.ErrorIs(t, review.gate()(&ToolCall{Tool: "run_terminal_command", Spec: term, Effects: tools.Effects{Command: "git log > x", Writes: []string{"x"}}}), ErrReadOnlyMode)
	assert.ErrorIs(t, builtinMode(ModePlan).gate()(&ToolCall{Tool: "run_terminal_command", Spec: term, Effects: tools.Effects{Command: "git log"}}), ErrReadOnlyMode)
}

func TestModeConfigErrors(t *testing.T) {
	base := Config{Model: (&env{}).model}
	tests := []struct {
		name  string
		modes []ModeSpec
		mode  Mode
		want  string
	}{
		{"unnamed", []ModeSpec{{}}, "", "Modes[0] has no name"},
		{"twice", []ModeSpec{{Name: "ask"}, {Name: "ask"}}, "", `"ask" is defined twice`},
		{"unknown", []ModeSpec{{Name: "ask"}}, "coder", `unknown mode "coder" (want ask, agent, explore, plan, review)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := base
			cfg.Modes, cfg.Mode = tt.modes, tt.mode
			err := cfg.validate()
			require.ErrorIs(t, err, ErrConfig)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}
