package agent

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/checkpoint"
	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/tools"
)

// Files a command writes (per the safety analysis) are in the checkpoint
// too, so undo reverts `sed -i` and redirects.
func TestCommandWritesAreUndoable(t *testing.T) {
	e := newEnv(t, `{"capabilities":{"tools":true}}
{"tool_calls":[{"name":"run_terminal_command","arguments":{"command":"sed -i 's/Helo/Hello/' main.go && echo done > out.txt"}}]}
{"content":"Fixed with sed. [TASK_COMPLETE]"}
`, map[string]string{"main.go": mainGo})
	cfg := e.config()
	cfg.Policy = approval.AutoApprove()
	x, err := New(cfg)
	require.NoError(t, err)
	res, err := x.Run(context.Background(), Input{Prompt: "Fix the typo in main.go"})
	require.NoError(t, err)
	assert.Contains(t, e.read("main.go"), "Hello")
	require.NotEmpty(t, res.CheckpointID, "the command's writes count as writes")
	assert.Len(t, res.FilesChanged, 2)
	cp, err := x.Checkpoints().Open(context.Background(), res.CheckpointID)
	require.NoError(t, err)
	_, err = cp.Undo(context.Background(), checkpoint.UndoOptions{})
	require.NoError(t, err)
	assert.Equal(t, mainGo, e.read("main.go"))
	assert.False(t, e.exists("out.txt"))
}

// The iterator adapter yields the same sequence the sink receives, and
// stopping early cancels the run.
func TestEventsIterator(t *testing.T) {
	script := `{"capabilities":{"tools":true}}
{"tool_calls":[{"name":"list_files","arguments":{}}]}
{"content":"There is one file. [TASK_COMPLETE]"}
`
	e := newEnv(t, script, map[string]string{"a.txt": "a"})
	x, err := New(e.config())
	require.NoError(t, err)
	var got []string
	for ev, err := range x.Events(context.Background(), Input{Prompt: "What is here?"}) {
		require.NoError(t, err)
		got = append(got, ev.Type())
	}
	assert.Equal(t, e.rec.types(), got)
	assert.Equal(t, "run_finished", got[len(got)-1])

	e2 := newEnv(t, script, map[string]string{"a.txt": "a"})
	x2, err := New(e2.config())
	require.NoError(t, err)
	n := 0
	for range x2.Events(context.Background(), Input{Prompt: "What is here?"}) {
		n++
		if n == 2 {
			break
		}
	}
	assert.Equal(t, 2, n)
	assert.GreaterOrEqual(t, e2.model.Remaining(), 1, "the run stopped early")
}

// A failing sink stops the run: nothing happens that the user cannot see.
func TestSinkFailureStopsRun(t *testing.T) {
	e := newEnv(t, `{"capabilities":{"tools":true}}
{"tool_calls":[{"name":"write_file","arguments":{"path":"a.txt","content":"x"}}]}
{"content":"Done. [TASK_COMPLETE]"}
`, nil)
	cfg := e.config()
	boom := errors.New("disk full")
	cfg.Sink = event.SinkFunc(func(_ context.Context, ev event.Event) error {
		if ev.Type() == "tool_call_started" {
			return boom
		}
		return nil
	})
	res, err := e.run(cfg, "Create a.txt")
	require.ErrorIs(t, err, ErrSink)
	require.ErrorIs(t, err, boom)
	assert.Equal(t, event.StopError, res.StopReason)
	assert.False(t, e.exists("a.txt"), "no action after the sink failed")
}

// A second turn continues from Result.History.
func TestContinueConversation(t *testing.T) {
	e := newEnv(t, `{"capabilities":{"tools":true}}
{"content":"Hi! What should I do?"}
{"content":"Sure, it is a.txt."}
`, nil)
	x, err := New(e.config())
	require.NoError(t, err)
	r1, err := x.Run(context.Background(), Input{Prompt: "Hello"})
	require.NoError(t, err)
	_, err = x.Run(context.Background(), Input{Prompt: "Which file?", History: r1.History})
	require.NoError(t, err)
	msgs := e.model.Requests()[1].Messages
	require.Len(t, msgs, 4)
	assert.Equal(t, []string{"Hello", "Hi! What should I do?", "Which file?"}, []string{msgs[1].Content, msgs[2].Content, msgs[3].Content})
}

// Consecutive read-only calls run concurrently, but their events and
// results stay in call order.
func TestReadOnlyCallsRunConcurrently(t *testing.T) {
	var inFlight, peak atomic.Int32
	slow := tools.Func{Spec: tools.Spec{Name: "slow_read", ReadOnly: true, Description: "Reads slowly."},
		Run: func(ctx context.Context, c tools.Call) (tools.Result, error) {
			n := inFlight.Add(1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			time.Sleep(50 * time.Millisecond)
			inFlight.Add(-1)
			return tools.Text("read " + string(c.Arguments)), nil
		}}
	e := newEnv(t, `{"capabilities":{"tools":true}}
{"tool_calls":[{"name":"slow_read","arguments":{"n":1}},{"name":"slow_read","arguments":{"n":2}},{"name":"slow_read","arguments":{"n":3}}]}
{"content":"Read all three."}
`, nil)
	require.NoError(t, e.reg.Register(slow))
	res, err := e.run(e.config(), "Read things")
	require.NoError(t, err)
	assert.GreaterOrEqual(t, peak.Load(), int32(2))
	var ids []string
	for _, ev := range e.rec.all() {
		if a, ok := ev.(event.ToolAction); ok {
			ids = append(ids, a.CallID+":"+string(a.Status))
		}
	}
	assert.Equal(t, []string{"call_1_0:running", "call_1_1:running", "call_1_2:running",
		"call_1_0:success", "call_1_1:success", "call_1_2:success"}, ids)
	assert.Contains(t, res.History[2].Content, `{"n":1}`)
	assert.Contains(t, res.History[4].Content, `{"n":3}`)
}

func TestReadOnlyGitProblem(t *testing.T) {
	ok := []string{"git status", "git log --oneline -5", "git diff HEAD~1 -- main.go", "git show HEAD", "git blame main.go",
		"git -C sub status", "git --no-pager log", "git branch -a", "git stash list", "git status && git diff"}
	bad := []string{"git push", "git commit -m x", "git checkout main", "git branch new-feature", "git -c core.pager=sh log",
		"git diff --output=x.patch", "git log > log.txt", "ls", "git status; rm -rf x", "git stash", "git config user.name evil",
		"git reset --hard", "git $(echo push)", "git tag v1"}
	for _, c := range ok {
		assert.Empty(t, readOnlyGitProblem(c), c)
	}
	for _, c := range bad {
		assert.NotEmpty(t, readOnlyGitProblem(c), c)
	}
}

func TestWantsWrites(t *testing.T) {
	for p, want := range map[string]bool{
		"Fix the typo in main.go": true, "Rename Foo to Bar": true, "add a test": true, "Create hello.txt": true,
		"modify the config": true, "What does this project do?": false, "Explain the address parser": false,
		"Why is the build failing?": false, "refactoring ideas?": true,
	} {
		assert.Equal(t, want, wantsWrites(p), p)
	}
}

func gitInit(t *testing.T, dir string) {
	t.Helper()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
	}
}

func TestGitBranch(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	script := `{"capabilities":{"tools":true}}
{"content":"Nothing to do."}
`
	t.Run("clean", func(t *testing.T) {
		e := newEnv(t, script, map[string]string{"main.go": mainGo})
		gitInit(t, e.dir)
		cfg := e.config()
		cfg.GitBranch = &GitBranch{}
		res, err := e.run(cfg, "Tidy up the code, please!")
		require.NoError(t, err)
		assert.Equal(t, "tether/20260322-150405-tidy-up-the-code-please", res.Branch)
		b := eventsOf[event.BranchCreated](e.rec)
		require.Len(t, b, 1)
		assert.Equal(t, "main", b[0].Base)
		out, err := exec.Command("git", "-C", e.dir, "branch", "--show-current").Output()
		require.NoError(t, err)
		assert.Equal(t, res.Branch, strings.TrimSpace(string(out)))
	})
	t.Run("dirty", func(t *testing.T) {
		e := newEnv(t, script, map[string]string{"main.go": mainGo})
		gitInit(t, e.dir)
		e.ws.WriteFile("main.go", []byte("changed\n"), 0o644)
		cfg := e.config()
		cfg.GitBranch = &GitBranch{}
		res, err := e.run(cfg, "Tidy up")
		require.ErrorIs(t, err, ErrDirtyTree)
		assert.Equal(t, event.StopError, res.StopReason)
		assert.Equal(t, []string{"run_started", "run_finished"}, e.rec.types())
		assert.Equal(t, 2, e.model.Remaining()+1, "the model was never called")
		cfg.GitBranch.AllowDirty = true
		_, err = e.run(cfg, "Tidy up")
		require.NoError(t, err)
	})
	t.Run("not a repository", func(t *testing.T) {
		e := newEnv(t, script, nil)
		cfg := e.config()
		cfg.GitBranch = &GitBranch{}
		_, err := e.run(cfg, "Tidy up")
		require.ErrorIs(t, err, ErrNotGitRepo)
	})
}

func TestConfigErrors(t *testing.T) {
	_, err := New(Config{})
	assert.ErrorIs(t, err, ErrConfig)
	_, err = New(Config{Model: llm.ModelFunc(nil), Mode: "yolo"})
	assert.ErrorIs(t, err, ErrConfig)
	_, err = New(Config{Model: llm.ModelFunc(nil), ToolCalling: "xml"})
	assert.ErrorIs(t, err, ErrConfig)
	x, err := New(Config{Model: llm.ModelFunc(nil)})
	require.NoError(t, err)
	_, err = x.Run(context.Background(), Input{Prompt: "  "})
	assert.ErrorIs(t, err, ErrEmptyPrompt)
	_, err = x.Run(context.Background(), Input{Prompt: "hi", Mode: "yolo"})
	assert.ErrorIs(t, err, ErrConfig)
}

// A command that makes a directory: undo removes it again, as it is empty.
func TestMkdirThenUndo(t *testing.T) {
	e := newEnv(t, `{"capabilities":{"tools":true}}
{"tool_calls":[{"name":"run_terminal_command","arguments":{"command":"mkdir build && echo x > notes.txt"}}]}
{"content":"Made it. [TASK_COMPLETE]"}
`, nil)
	cfg := e.config()
	cfg.Policy = approval.AutoApprove()
	x, err := New(cfg)
	require.NoError(t, err)
	res, err := x.Run(context.Background(), Input{Prompt: "Create the build directory and notes"})
	require.NoError(t, err)
	require.NotEmpty(t, res.CheckpointID)
	_, err = x.Undo(context.Background(), res.CheckpointID, checkpoint.UndoOptions{})
	require.NoError(t, err)
	assert.False(t, e.exists("notes.txt"))
	assert.False(t, e.exists("build"), "an empty directory the run created is removed")
}

// The shell keeps `cd` between commands; the files a later command names
// are judged and snapshotted where it really runs.
func TestCommandPathsFollowTheShellsDirectory(t *testing.T) {
	e := newEnv(t, `{"capabilities":{"tools":true}}
{"tool_calls":[{"name":"run_terminal_command","arguments":{"command":"mkdir -p sub && cd sub"}}]}
{"tool_calls":[{"name":"run_terminal_command","arguments":{"command":"echo x > out.txt"}}]}
{"content":"Wrote sub/out.txt. [TASK_COMPLETE]"}
`, nil)
	cfg := e.config()
	cfg.Policy = approval.AutoApprove()
	x, err := New(cfg)
	require.NoError(t, err)
	res, err := x.Run(context.Background(), Input{Prompt: "Create sub/out.txt"})
	require.NoError(t, err)
	assert.Equal(t, "x\n", e.read("sub/out.txt"))
	require.Len(t, res.FilesChanged, 1)
	assert.Equal(t, "sub/out.txt", res.FilesChanged[0].Path)
	_, err = x.Undo(context.Background(), res.CheckpointID, checkpoint.UndoOptions{})
	require.NoError(t, err)
	assert.False(t, e.exists("sub/out.txt"))
}
