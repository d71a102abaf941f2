package agent_test

import (
	"context"
	"fmt"
	"iter"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/llm/llmtest"
	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
	"github.com/tetherdev/tether/tools/builtin"
)

// The load harness: many sessions in one process, each with its own
// workspace, the built-in tools and a scripted model, as a service that
// hosts agents runs them.

// The load scripts read a file, write one, then list the directory (with
// the terminal, which starts a shell and ls, or with read_file on the
// note) and finish: four model calls, three tool calls.
const (
	loadHead = `{"capabilities":{"tools":true}}
{"content":"Let me look.","tool_calls":[{"name":"read_file","arguments":{"path":"main.go"}}]}
{"tool_calls":[{"name":"write_file","arguments":{"path":"notes.txt","content":"checked main.go\n"}}]}
`
	loadTail = `
{"content":"Done: main.go read, notes.txt written. [TASK_COMPLETE]"}`
	scriptTerminal = loadHead + `{"tool_calls":[{"name":"run_terminal_command","arguments":{"command":"ls"}}]}` + loadTail
	scriptFiles    = loadHead + `{"tool_calls":[{"name":"read_file","arguments":{"path":"notes.txt"}}]}` + loadTail
)

const loadIterations = 4

// loadSession is one idle session: a workspace and an executor.
type loadSession struct {
	ws    *safety.Workspace
	exec  *agent.Executor
	gate  *gatedModel
	iters []time.Duration // time between consecutive model calls
	fails []string        // tool actions that did not succeed
}

// gatedModel plays the script, holding its first call until open is
// closed (so that every session can be caught mid-run), and timestamps
// each call so that the loop's own time per iteration can be measured
// (the scripted model itself takes microseconds).
type gatedModel struct {
	*llmtest.ScriptedModel
	open  <-chan struct{}
	calls []time.Time
}

func (g *gatedModel) Chat(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
	if len(g.calls) == 0 {
		select {
		case <-g.open:
		case <-ctx.Done():
		}
	}
	g.calls = append(g.calls, time.Now())
	return g.ScriptedModel.Chat(ctx, req)
}

func newLoadSession(tb testing.TB, root, script string, open <-chan struct{}) *loadSession {
	tb.Helper()
	if err := os.MkdirAll(root, 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		tb.Fatal(err)
	}
	ws, err := safety.OpenWorkspace(root)
	if err != nil {
		tb.Fatal(err)
	}
	reg := &tools.Registry{}
	if _, err := builtin.Register(reg, ws, builtin.Options{}); err != nil {
		tb.Fatal(err)
	}
	s, err := llmtest.ParseScript(strings.NewReader(script))
	if err != nil {
		tb.Fatal(err)
	}
	ls := &loadSession{ws: ws, gate: &gatedModel{ScriptedModel: llmtest.NewScripted(s), open: open}}
	ls.exec, err = agent.New(agent.Config{Model: ls.gate, Tools: reg, Workspace: ws, Logger: slog.New(slog.DiscardHandler),
		CommandRules: safety.CommandRules{Allow: []string{"ls"}}, // a host's allow-list: the command runs unasked
		Sink: event.SinkFunc(func(_ context.Context, ev event.Event) error {
			if a, ok := ev.(event.ToolAction); ok && a.Status != event.StatusRunning && a.Status != event.StatusSuccess {
				ls.fails = append(ls.fails, a.Tool+": "+string(a.Status)+" "+a.Detail)
			}
			return nil
		})})
	if err != nil {
		tb.Fatal(err)
	}
	return ls
}

// heap returns the live heap after a full collection.
func heap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// loadResult is what one round of N sessions measured.
type loadResult struct {
	idlePerSession, activePerSession float64 // bytes of live heap
	p50, p99                         time.Duration
	runs                             int
}

// runLoad creates n sessions (idle), starts a run in each and holds them
// at their first model call (active), then lets them all finish.
func runLoad(tb testing.TB, n int, script string) loadResult {
	tb.Helper()
	dir := tb.TempDir()
	before := heap()
	open := make(chan struct{})
	sessions := make([]*loadSession, n)
	for i := range sessions {
		sessions[i] = newLoadSession(tb, filepath.Join(dir, fmt.Sprint("ws", i)), script, open)
	}
	idle := heap()

	var started, wg sync.WaitGroup
	errs := make(chan error, n)
	started.Add(n)
	for _, s := range sessions {
		wg.Go(func() {
			started.Done()
			res, err := s.exec.Run(context.Background(), agent.Input{Prompt: "Check main.go and leave a note."})
			if err != nil {
				errs <- err
				return
			}
			if res.StopReason != event.StopCompleted || len(s.fails) > 0 {
				errs <- fmt.Errorf("run stopped %s after %d iterations; failed actions: %v", res.StopReason, res.Iterations, s.fails)
			}
		})
	}
	started.Wait()
	time.Sleep(50 * time.Millisecond) // every run reaches its gated first model call
	active := heap()
	close(open)
	wg.Wait()
	close(errs)
	for err := range errs {
		tb.Fatal(err)
	}
	var iters []time.Duration
	for _, s := range sessions {
		if len(s.gate.calls) != loadIterations {
			tb.Fatalf("a session made %d model calls, want %d", len(s.gate.calls), loadIterations)
		}
		for i := 1; i < len(s.gate.calls); i++ {
			iters = append(iters, s.gate.calls[i].Sub(s.gate.calls[i-1]))
		}
		s.ws.Close()
	}
	slices.Sort(iters)
	pct := func(p float64) time.Duration { return iters[int(p*float64(len(iters)-1))] }
	return loadResult{
		idlePerSession:   float64(idle-min(idle, before)) / float64(n),
		activePerSession: float64(active-min(active, before)) / float64(n),
		p50:              pct(0.50), p99: pct(0.99), runs: n,
	}
}

// openFDs counts this process's open file descriptors.
func openFDs(tb testing.TB) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		tb.Skipf("no /proc/self/fd on this system: %v", err)
	}
	return len(ents)
}

// TestManySessionsLeaveNothingBehind runs 50 concurrent sessions to the
// end and checks that no goroutine and no file descriptor outlives them.
func TestManySessionsLeaveNothingBehind(t *testing.T) {
	if testing.Short() {
		t.Skip("50 concurrent sessions")
	}
	fds := openFDs(t)
	runLoad(t, 50, scriptTerminal)
	goleak.VerifyNone(t)
	// The terminal's shells are gone by now; give the runtime's poller a
	// moment to close what the last commands left.
	deadline := time.Now().Add(2 * time.Second)
	for openFDs(t) > fds && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := openFDs(t); got > fds {
		t.Errorf("%d file descriptors open after the sessions ended, %d before", got, fds)
	}
}

// BenchmarkManySessions reports, for N concurrent sessions in one
// process: live heap per idle session (executor, workspace, tools) and
// per session caught mid-run, and the loop's own time per iteration
// (model call to model call, the model answering instantly) at p50 and
// p99 across all sessions. One op is one round of N full runs. "files"
// uses only the file tools; "terminal" also starts a shell per session,
// whose process start-up dominates its iterations.
func BenchmarkManySessions(b *testing.B) {
	for _, tc := range []struct{ name, script string }{{"files", scriptFiles}, {"terminal", scriptTerminal}} {
		for _, n := range []int{1, 50, 200} {
			b.Run(fmt.Sprintf("%s/sessions=%d", tc.name, n), func(b *testing.B) {
				var last loadResult
				for b.Loop() {
					last = runLoad(b, n, tc.script)
				}
				b.ReportMetric(last.idlePerSession/1024, "idle-KiB/session")
				b.ReportMetric(last.activePerSession/1024, "active-KiB/session")
				b.ReportMetric(float64(last.p50.Microseconds()), "p50-µs/iter")
				b.ReportMetric(float64(last.p99.Microseconds()), "p99-µs/iter")
			})
		}
	}
}
