package agent

import (
	"bytes"
	"context"
	"log/slog"
	"testing"

	"github.com/tetherdev/tether/checkpoint"
)

// captureDefaultLog points slog.Default() at a buffer for the test. Tests
// using it must not run in parallel: the default logger is process-wide.
func captureDefaultLog(t *testing.T) *bytes.Buffer {
	t.Helper()
	var buf bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	t.Cleanup(func() { slog.SetDefault(old) })
	return &buf
}

// A host that sets no Logger gets a silent library: a run with a refused
// edit, a denied command, a change and its undo (all of them logged when a
// Logger is set) writes nothing to slog.Default().
func TestDefaultExecutorWritesNothingToDefaultLogger(t *testing.T) {
	buf := captureDefaultLog(t)
	script := `{"tool_calls":[{"name":"write_file","arguments":{"path":"../escape.txt","content":"x"}}]}
{"tool_calls":[{"name":"run_terminal_command","arguments":{"command":"rm -rf /tmp/nothing-here"}}]}
{"tool_calls":[{"name":"write_file","arguments":{"path":"a.txt","content":"new\n"}}]}
{"content":"done [TASK_COMPLETE]"}
`
	e := newEnv(t, script, map[string]string{"a.txt": "old\n"})
	cfg := e.config()
	cfg.Logger = nil
	x, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := x.Run(context.Background(), Input{Prompt: "change a.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if res.CheckpointID == "" {
		t.Fatalf("the run changed nothing (stop %s); the test would not exercise undo", res.StopReason)
	}
	if _, err := x.Undo(context.Background(), res.CheckpointID, checkpoint.UndoOptions{}); err != nil {
		t.Fatal(err)
	}
	if buf.Len() != 0 {
		t.Errorf("a default Executor wrote to slog.Default():\n%s", buf)
	}

	// The same run with a Logger does log: the test above can fail.
	var logged bytes.Buffer
	e2 := newEnv(t, script, map[string]string{"a.txt": "old\n"})
	cfg2 := e2.config()
	cfg2.Logger = slog.New(slog.NewTextHandler(&logged, nil))
	if _, err := e2.run(cfg2, "change a.txt"); err != nil {
		t.Fatal(err)
	}
	if logged.Len() == 0 {
		t.Error("a configured Logger received nothing; the silence above proves nothing")
	}
}
