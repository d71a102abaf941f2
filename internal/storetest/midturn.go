package storetest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/agent/session"
	"github.com/tetherdev/tether/checkpoint"
)

// midTurnState checks that a session's conversation is in the store
// while its turn is still running: the completed iterations are saved
// before the next model call, so a worker that dies in that call leaves
// them behind. The turn is not counted until it ends.
func midTurnState(t *testing.T, store session.Store) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a := NewAgent(t, t.TempDir(), checkpoint.NewMemoryStore(), `{"capabilities":{"tools":true}}
{"content":"Reading it.","tool_calls":[{"name":"read_file","arguments":{"path":"a.txt"}}]}`)
	require.NoError(t, a.Workspace.WriteFile("a.txt", []byte("original\n"), 0o644))
	var id string
	var during session.State
	var duringInfo session.Info
	var readErr error
	a.Config.Model = hangAfter(a.Model, 1, func() {
		during, readErr = store.State(ctx, id)
		if readErr == nil {
			duringInfo, readErr = store.Info(ctx, id)
		}
		cancel() // the "kill": the turn ends here
	})
	mgr, err := session.NewManager(store, a.Config)
	require.NoError(t, err)
	s, err := mgr.Create(ctx, "Mid-turn")
	require.NoError(t, err)
	id = s.ID()
	_, err = s.Run(ctx, agent.Input{Prompt: "read a.txt"})
	require.ErrorIs(t, err, context.Canceled)

	require.NoError(t, readErr)
	require.Equal(t, 0, duringInfo.Runs, "a turn is counted when it ends")
	require.Len(t, during.Messages, 3, "prompt, the call, its result: %+v", during.Messages)
	require.Equal(t, "read a.txt", during.Messages[0].Content)
	require.Equal(t, "read_file", during.Messages[1].ToolCalls[0].Name)
	require.Contains(t, during.Messages[2].Content, "original")
	require.Equal(t, []string{"a.txt"}, during.Memory.FilesRead)
}
