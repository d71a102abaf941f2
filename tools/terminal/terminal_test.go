package terminal

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/tetherdev/tether/tools"
)

func newShell(t *testing.T, cfg Config) *Shell {
	t.Helper()
	if cfg.Root == "" {
		cfg.Root = t.TempDir()
	}
	s, err := New(cfg)
	require.NoError(t, err)
	return s
}

func run(t *testing.T, s *Shell, cmd string) Result {
	t.Helper()
	r, err := s.Run(context.Background(), Command{Command: cmd})
	require.NoError(t, err)
	return r
}

func TestRunBasics(t *testing.T) {
	defer goleak.VerifyNone(t)
	s := newShell(t, Config{})
	r := run(t, s, "echo hello; echo oops >&2; exit 3")
	assert.Equal(t, "hello\noops", r.Output)
	assert.Equal(t, 3, r.ExitCode)
	assert.Equal(t, s.Root(), r.Dir)

	r = run(t, s, "cat") // stdin is closed, so cat ends at once
	assert.Equal(t, 0, r.ExitCode)
	assert.Equal(t, "", r.Output)

	r = run(t, s, "printf '\\033[31mred\\033[0m\\n'; printf '\\033]633;A\\007ok\\n'")
	assert.Equal(t, "red\nok", r.Output)

	r = run(t, s, "this-command-does-not-exist")
	assert.Equal(t, 127, r.ExitCode)
	assert.Contains(t, r.Output, "not found")

	r = run(t, s, "if then fi") // syntax error
	assert.NotEqual(t, 0, r.ExitCode)

	_, err := s.Run(context.Background(), Command{Command: "  "})
	assert.ErrorIs(t, err, ErrEmptyCommand)
}

func TestStatePersists(t *testing.T) {
	s := newShell(t, Config{})
	require.NoError(t, os.MkdirAll(filepath.Join(s.Root(), "sub", "deeper"), 0o755))
	r := run(t, s, "cd sub && export NODE_ENV=hi GREETING=hi")
	// NODE_ENV is known to be harmless; GREETING is not known at all, so
	// it is not carried, and the result says why.
	require.Len(t, r.Dropped, 1)
	assert.Equal(t, "GREETING", r.Dropped[0].Name)
	r = run(t, s, "pwd; echo $NODE_ENV $GREETING")
	assert.Equal(t, filepath.Join(s.Root(), "sub")+"\nhi", r.Output)

	run(t, s, "cd deeper; exit 4") // state is kept even when the command fails
	assert.Equal(t, filepath.Join(s.Root(), "sub", "deeper"), s.Cwd())

	// An explicit cwd runs there, relative to the root.
	r, err := s.Run(context.Background(), Command{Command: "pwd", Dir: "sub"})
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(s.Root(), "sub"), r.Output)

	// cd out of the workspace is not adopted, and the result says so.
	r = run(t, s, "cd /")
	assert.Equal(t, s.Root(), s.Cwd())
	assert.Contains(t, r.DirReset, "outside the workspace")
	run(t, s, "unset NODE_ENV")
	assert.Equal(t, "", run(t, s, "echo -n $NODE_ENV").Output)
}

func TestCwdConfined(t *testing.T) {
	s := newShell(t, Config{})
	outside := t.TempDir()
	require.NoError(t, os.Symlink(outside, filepath.Join(s.Root(), "escape")))
	for _, dir := range []string{"/", "..", "escape", outside, "missing"} {
		_, err := s.Run(context.Background(), Command{Command: "pwd", Dir: dir})
		assert.Error(t, err, dir)
	}
}

func TestTimeoutKillsGroup(t *testing.T) {
	s := newShell(t, Config{})
	pidFile := filepath.Join(s.Root(), "child.pid")
	start := time.Now()
	r, err := s.Run(context.Background(), Command{
		Command: "echo started; (trap '' TERM; sleep 300) & echo $! > child.pid; sleep 300",
		Timeout: 2 * time.Second,
	})
	require.NoError(t, err)
	assert.True(t, r.TimedOut)
	assert.Equal(t, "started", r.Output)
	assert.Less(t, time.Since(start), 10*time.Second)
	assertDead(t, pidFile)
}

func TestCancelKillsGroup(t *testing.T) {
	s := newShell(t, Config{})
	ctx, cancel := context.WithCancel(context.Background())
	pidFile := filepath.Join(s.Root(), "child.pid")
	// Cancel only once the child exists: a fixed delay races a slow
	// machine, and a cancel before the fork would prove nothing.
	go func() {
		defer cancel()
		for ctx.Err() == nil {
			if b, _ := os.ReadFile(pidFile); len(bytes.TrimSpace(b)) > 0 {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	r, err := s.Run(ctx, Command{Command: "sleep 300 & echo $! > child.pid.tmp; mv child.pid.tmp child.pid; wait"})
	require.NoError(t, err)
	assert.True(t, r.Canceled)
	assertDead(t, pidFile)
}

func TestLeftoverChildrenKilled(t *testing.T) {
	s := newShell(t, Config{})
	r := run(t, s, "sleep 300 & echo $! > child.pid; echo done")
	assert.Equal(t, 0, r.ExitCode)
	assert.True(t, r.Leftover)
	assert.Equal(t, "done", r.Output)
	assertDead(t, filepath.Join(s.Root(), "child.pid"))
}

func TestEndlessPrinter(t *testing.T) {
	s := newShell(t, Config{})
	r, err := s.Run(context.Background(), Command{Command: "yes tether", Timeout: 500 * time.Millisecond})
	require.NoError(t, err)
	assert.True(t, r.TimedOut)
	assert.Greater(t, r.Lines, 10000)
	lines := strings.Split(r.Output, "\n")
	assert.Len(t, lines, 101)
	assert.Regexp(t, `^\[\d+ lines truncated\]$`, lines[15])
	assert.Equal(t, r.Lines-100, r.Omitted)
}

func assertDead(t *testing.T, pidFile string) {
	t.Helper()
	b, err := os.ReadFile(pidFile)
	require.NoError(t, err)
	pid := strings.TrimSpace(string(b))
	require.Eventually(t, func() bool {
		_, err := os.Stat("/proc/" + pid)
		if err != nil {
			return true
		}
		st, _ := os.ReadFile("/proc/" + pid + "/stat")
		return strings.Contains(string(st), ") Z ") // zombie awaiting its reaper
	}, 5*time.Second, 50*time.Millisecond, "process %s survived", pid)
}

func TestTool(t *testing.T) {
	s := newShell(t, Config{})
	var r tools.Registry
	require.NoError(t, r.Register(s.Tool()))
	ctx := context.Background()

	res := r.Execute(ctx, tools.Call{Name: "bash", Arguments: json.RawMessage(`{"cmd":"echo hi; mkdir d; cd d"}`)})
	assert.False(t, res.IsError, res.Text)
	assert.Equal(t, "hi\n[exit code: 0]\n[cwd: d]", res.Text)
	require.NotNil(t, res.Meta.ExitCode)
	assert.Equal(t, 0, *res.Meta.ExitCode)

	res = r.Execute(ctx, tools.Call{Name: "run_terminal_command", Arguments: json.RawMessage(`{"command":"sleep 5","timeout":"1"}`)})
	assert.True(t, res.IsError)
	assert.True(t, res.Meta.TimedOut)
	assert.Contains(t, res.Text, "[timed out after 1s")

	res = r.Execute(ctx, tools.Call{Name: "execute_terminal", Arguments: json.RawMessage(`{}`)})
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text, `missing required "command"`)

	res = r.Execute(ctx, tools.Call{Name: "shell", Arguments: json.RawMessage(`{"command":"false"}`)})
	assert.True(t, res.IsError)
	assert.Equal(t, 1, *res.Meta.ExitCode)

	res = r.Execute(ctx, tools.Call{Name: "shell", Arguments: json.RawMessage(`{"command":"pwd","cwd":"/etc"}`)})
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text, "outside the workspace")
}

func TestSandboxSeam(t *testing.T) {
	var seen []string
	s := newShell(t, Config{Sandbox: func(cmd *exec.Cmd) error {
		seen = cmd.Args
		return nil
	}})
	run(t, s, "true")
	require.NotEmpty(t, seen)
	assert.Equal(t, "-c", seen[1])

	deny := newShell(t, Config{Sandbox: func(*exec.Cmd) error { return errors.New("landlock unavailable") }})
	_, err := deny.Run(context.Background(), Command{Command: "true"})
	assert.ErrorContains(t, err, "landlock unavailable")
}

func TestLiveOutput(t *testing.T) {
	s := newShell(t, Config{})
	var mu sync.Mutex
	var reports []tools.Progress
	ctx := tools.WithReporter(context.Background(), func(p tools.Progress) {
		mu.Lock()
		reports = append(reports, p)
		mu.Unlock()
	})
	r, err := s.Run(ctx, Command{Command: "echo first; sleep 0.3; seq 2 1000"})
	require.NoError(t, err)
	assert.Equal(t, 1000, r.Lines)
	mu.Lock()
	defer mu.Unlock()
	require.GreaterOrEqual(t, len(reports), 2, "output arrives while the command runs")
	assert.Equal(t, "first", reports[0].Output)
	seen := 0
	for _, p := range reports {
		assert.Equal(t, Name, p.Tool)
		if p.Output != "" {
			seen += strings.Count(p.Output, "\n") + 1
		}
		seen += p.Dropped
	}
	assert.Equal(t, 1000, seen, "every line is either reported or counted as dropped")
}
