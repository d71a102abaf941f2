package agent

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tetherdev/tether/agent/event"
)

// TestProjectContextInRun shows the files in the prompt and lists them
// in an event after run_started.
func TestProjectContextInRun(t *testing.T) {
	e := newEnv(t, `{"content":"Done. [TASK_COMPLETE]"}`, map[string]string{"AGENTS.md": "Use tabs.\n", "go.mod": "module example.com/shop\n\ngo 1.26\n"})
	_, err := e.run(e.config(), "hello")
	require.NoError(t, err)
	sys := e.model.Requests()[0].Messages[0].Content
	require.Contains(t, sys, "PROJECT CONTEXT")
	require.Contains(t, sys, "## AGENTS.md\nUse tabs.")
	evs := e.rec.all()
	require.Equal(t, "run_started", evs[0].Type())
	pcl, ok := evs[1].(event.ProjectContextLoaded)
	require.True(t, ok, "%T", evs[1])
	require.Equal(t, "AGENTS.md", pcl.Files[0].Path)
	require.Equal(t, "go.mod", pcl.Files[1].Path)

	// The event survives its JSON form.
	b, err := event.Marshal(pcl)
	require.NoError(t, err)
	back, err := event.Unmarshal(b)
	require.NoError(t, err)
	require.Equal(t, pcl, back)
}

func TestExecutorProjectContext(t *testing.T) {
	e := newEnv(t, "", map[string]string{"CLAUDE.md": "Be brief.\n"})
	x, err := New(e.config())
	require.NoError(t, err)
	pc, err := x.ProjectContext()
	require.NoError(t, err)
	require.Equal(t, []event.ProjectFile{{Path: "CLAUDE.md", Kind: "instructions", Bytes: 10}}, pc.Files)
}
