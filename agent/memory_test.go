package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/tools"
)

// res is a result of a prepared call; the effects are what the built-in
// tools declare for these arguments.
func res(name, args string, o outcome) callResult {
	tc := &ToolCall{Tool: name, Args: json.RawMessage(args)}
	var a struct{ Path, Command string }
	_ = json.Unmarshal(tc.Args, &a)
	switch name {
	case "read_file":
		tc.Effects = tools.Reading(a.Path)
	case "edit_file":
		tc.Effects = tools.Effects{Writes: []string{a.Path}}
	case "run_terminal_command":
		tc.Effects = tools.Effects{Command: a.Command}
	}
	return callResult{call: call{Name: name, Args: json.RawMessage(args)}, canonical: name, tc: tc, out: o}
}

func TestMemoryObserve(t *testing.T) {
	k := &memoryKeeper{mem: &Memory{}}
	k.observe([]callResult{
		res("read_file", `{"path":"a.go"}`, outcome{Status: event.StatusSuccess, Path: "a.go"}),
		res("read_file", `{"path":"b.go"}`, outcome{Status: event.StatusSuccess}),
		res("read_file", `{"path":"a.go"}`, outcome{Status: event.StatusSuccess, Path: "a.go"}), // moves to the end
		res("edit_file", `{"path":"a.go"}`, outcome{Status: event.StatusSuccess, Path: "a.go", Wrote: true}),
		res("edit_file", `{"path":"c.go"}`, outcome{Status: event.StatusError, Text: "Error: old_text not found in c.go\nclosest match…"}),
		res("run_terminal_command", `{"command":"go test ./..."}`, outcome{Status: event.StatusError, Detail: "exit code 1", Text: "FAIL"}),
		res("run_terminal_command", `{"command":"rm -rf /"}`, outcome{Status: event.StatusDenied, Detail: "critical", Text: "Not run: denied"}),
	})
	m := k.snapshot()
	require.Equal(t, []string{"b.go", "a.go"}, m.FilesRead)
	require.Equal(t, []string{"a.go"}, m.FilesWritten)
	require.Equal(t, []CommandNote{{"go test ./...", event.StatusError, "exit code 1"}, {"rm -rf /", event.StatusDenied, "critical"}}, m.Commands)
	require.Equal(t, []string{"edit_file c.go: Error: old_text not found in c.go", "run_terminal_command: FAIL", "run_terminal_command: Not run: denied"}, m.Errors)
	require.Equal(t, `Files read: b.go, a.go
Files written: a.go
Commands run:
  - go test ./... → error (exit code 1)
  - rm -rf / → denied (critical)
Errors seen:
  - edit_file c.go: Error: old_text not found in c.go
  - run_terminal_command: FAIL
  - run_terminal_command: Not run: denied`, m.Render())

	// The snapshot is a copy.
	m.FilesRead[0] = "changed"
	require.Equal(t, "b.go", k.snapshot().FilesRead[0])
}

func TestMemoryBounded(t *testing.T) {
	k := &memoryKeeper{mem: &Memory{}}
	for i := range 100 {
		k.observe([]callResult{
			res("read_file", fmt.Sprintf(`{"path":"f%d.go"}`, i), outcome{Status: event.StatusSuccess}),
			res("run_terminal_command", fmt.Sprintf(`{"command":"echo %d"}`, i), outcome{Status: event.StatusError, Text: "boom"}),
		})
	}
	m := k.snapshot()
	require.Len(t, m.FilesRead, memoryMaxFiles)
	require.Equal(t, "f99.go", m.FilesRead[memoryMaxFiles-1], "the most recent are kept")
	require.Len(t, m.Commands, memoryMaxCommands)
	require.Len(t, m.Errors, memoryMaxErrors)
	require.Less(t, len(m.Render()), 4000)
}

// TestMemoryAcrossTurns: Result.Memory fed back as Input.Memory reaches
// the next turn's system prompt.
func TestMemoryAcrossTurns(t *testing.T) {
	e := newEnv(t, `{"tool_calls":[{"name":"read_file","arguments":{"path":"a.txt"}}]}
{"content":"Read it. [TASK_COMPLETE]"}
{"content":"Yes. [TASK_COMPLETE]"}`, map[string]string{"a.txt": "a\n"})
	x, err := New(e.config())
	require.NoError(t, err)
	r1, err := x.Run(context.Background(), Input{Prompt: "read a.txt"})
	require.NoError(t, err)
	require.Equal(t, []string{"a.txt"}, r1.Memory.FilesRead)
	_, err = x.Run(context.Background(), Input{Prompt: "did you read it?", History: r1.History, Memory: r1.Memory})
	require.NoError(t, err)
	reqs := e.model.Requests()
	require.NotContains(t, reqs[0].Messages[0].Content, "SESSION MEMORY")
	require.Contains(t, reqs[1].Messages[0].Content, "SESSION MEMORY")
	require.Contains(t, reqs[2].Messages[0].Content, "Files read: a.txt")
}
