package agent

import (
	"context"
	"errors"
	"iter"
	"slices"
	"sync"
	"testing"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
)

// TestUpdateTakesEffectNextRun: settings the host changes with Update
// (who approves, the tool set, the iteration limit) apply from the next
// run, on the same Executor; the fields that hold the Executor's state
// cannot change.
func TestUpdateTakesEffectNextRun(t *testing.T) {
	touch := `{"tool_calls":[{"name":"run_terminal_command","arguments":{"command":"touch made.txt"}}]}
{"content":"ok [TASK_COMPLETE]"}
`
	e := newEnv(t, touch+touch+touch+`{"tool_calls":[{"name":"read_file","arguments":{"path":"a.txt"}}]}
{"tool_calls":[{"name":"read_file","arguments":{"path":"a.txt"}}]}
{"content":"unreached"}
`, map[string]string{"a.txt": "a\n"})
	cfg := e.config()
	cfg.Policy = approval.Headless(nil)
	x, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	lastStatus := func() event.ActionStatus {
		acts := e.rec.actions()
		if len(acts) == 0 {
			t.Fatal("no tool action")
		}
		return acts[len(acts)-1].Status
	}
	run := func() *Result {
		t.Helper()
		res, err := x.Run(context.Background(), Input{Prompt: "make the file"})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}

	run()
	if s := lastStatus(); s != event.StatusDenied || e.exists("made.txt") {
		t.Fatalf("headless policy: status %s, file made %v; want denied, no file", s, e.exists("made.txt"))
	}

	if err := x.Update(func(c *Config) { c.Policy = approval.AutoApprove() }); err != nil {
		t.Fatal(err)
	}
	run()
	if s := lastStatus(); s != event.StatusSuccess || !e.exists("made.txt") {
		t.Fatalf("after Update to auto-approve: status %s, file made %v; want success", s, e.exists("made.txt"))
	}

	// The tool set: without the terminal, the same call is unknown.
	if err := x.Update(func(c *Config) {
		c.Tools = c.Tools.Filter(func(s tools.Spec) bool { return s.Name != "run_terminal_command" })
	}); err != nil {
		t.Fatal(err)
	}
	run()
	if s := lastStatus(); s == event.StatusSuccess {
		t.Errorf("after removing the terminal tool: the command still ran (%s)", s)
	}
	if slices.Contains(eventsOf[event.RunStarted](e.rec)[2].Tools, "run_terminal_command") {
		t.Errorf("the third run still offered the terminal tool")
	}

	// The iteration limit.
	if err := x.Update(func(c *Config) { c.MaxIterations = 1 }); err != nil {
		t.Fatal(err)
	}
	if res := run(); res.Iterations != 1 || res.StopReason != event.StopMaxIterations {
		t.Errorf("after MaxIterations=1: %d iterations, stop %s", res.Iterations, res.StopReason)
	}

	// The Executor's own state is fixed.
	other, err := safety.OpenWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := x.Update(func(c *Config) { c.Workspace = other }); !errors.Is(err, ErrConfig) {
		t.Errorf("Update of Workspace: err = %v, want ErrConfig", err)
	}
	if err := x.Update(func(c *Config) { c.ToolCalling = "smoke signals" }); !errors.Is(err, ErrConfig) {
		t.Errorf("Update to an invalid Config: err = %v, want ErrConfig", err)
	}
	if x.config().MaxIterations != 1 {
		t.Errorf("a refused Update changed the settings")
	}
}

// TestUpdateKeepsEnvelopeStager: envelope mode's own Stager survives an
// Update, so a token staged before it still applies after.
func TestUpdateKeepsEnvelopeStager(t *testing.T) {
	e := newEnv(t, `{"content":"hi"}`, nil)
	cfg := e.config()
	cfg.ToolCalling = ToolCallingEnvelope
	x, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	before := x.config().Staging
	if before == nil {
		t.Fatal("envelope mode made no Stager")
	}
	p, err := before.PreviewWrite(context.Background(), "n.txt", []byte("n\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := x.Update(func(c *Config) { c.MaxIterations = 3 }); err != nil {
		t.Fatal(err)
	}
	if x.config().Staging != before {
		t.Fatal("Update replaced envelope mode's Stager")
	}
	if _, err := x.ApplyChange(context.Background(), p.Token); err != nil || e.read("n.txt") != "n\n" {
		t.Errorf("token staged before the Update: %v", err)
	}
}

// TestUpdateDuringRun: a run keeps the settings it started with while the
// host updates them (run with -race).
func TestUpdateDuringRun(t *testing.T) {
	e := newEnv(t, "", map[string]string{"a.txt": "a\n"})
	started, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	model := llm.ModelFunc(func(context.Context, llm.Request) iter.Seq2[llm.Chunk, error] {
		return func(yield func(llm.Chunk, error) bool) {
			once.Do(func() { close(started); <-release })
			yield(llm.Chunk{ToolCalls: []llm.ToolCall{{Name: "read_file", Arguments: []byte(`{"path":"a.txt"}`)}}, Done: true}, nil)
		}
	})
	cfg := e.config()
	cfg.Model, cfg.MaxIterations, cfg.ToolCalling = model, 2, ToolCallingNative
	x, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan *Result)
	go func() {
		res, _ := x.Run(context.Background(), Input{Prompt: "read a.txt"})
		done <- res
	}()
	<-started
	if err := x.Update(func(c *Config) { c.MaxIterations = 5 }); err != nil {
		t.Fatal(err)
	}
	close(release)
	if res := <-done; res == nil || res.Iterations != 2 {
		t.Fatalf("the running turn took the new limit: %+v", res)
	}
	res, err := x.Run(context.Background(), Input{Prompt: "read a.txt again"})
	if err != nil || res.Iterations != 5 {
		t.Fatalf("the next turn: %d iterations (%v), want the updated 5", res.Iterations, err)
	}
}
