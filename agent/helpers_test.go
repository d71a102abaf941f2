package agent

import (
	"context"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/llm/llmtest"
	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
	"github.com/tetherdev/tether/tools/fstools"
	"github.com/tetherdev/tether/tools/search"
	"github.com/tetherdev/tether/tools/terminal"
)

// env is a workspace with the built-in tools and a scripted model.
type env struct {
	t     *testing.T
	dir   string
	ws    *safety.Workspace
	reg   *tools.Registry
	model *llmtest.ScriptedModel
	rec   *recorder
	clock *fakeClock
	shell *terminal.Shell
}

// newEnv creates a workspace holding files and a model playing script
// (JSON lines, see llmtest).
func newEnv(t *testing.T, script string, files map[string]string) *env {
	t.Helper()
	return newEnvAt(t, t.TempDir(), script, files)
}

// newEnvAt is newEnv on an existing directory, for a test that restarts
// on the same workspace.
func newEnvAt(t *testing.T, dir, script string, files map[string]string) *env {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := safety.OpenWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	sh, err := terminal.New(terminal.Config{Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	reg := &tools.Registry{}
	if err := reg.Register(fstools.NewRead(ws), search.NewList(ws), search.NewSearch(ws),
		fstools.NewWrite(ws), fstools.NewCreate(ws), fstools.NewEdit(ws), sh.Tool()); err != nil {
		t.Fatal(err)
	}
	s, err := llmtest.ParseScript(strings.NewReader(script))
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, dir: dir, ws: ws, reg: reg, model: llmtest.NewScripted(s), rec: &recorder{}, clock: newFakeClock(), shell: sh}
}

// inBothModes runs test twice: with the script as written (native tool
// calls) and with every call moved into the content as a <tool_call>
// block for a model without native tools.
func inBothModes(t *testing.T, script string, files map[string]string, test func(t *testing.T, e *env)) {
	t.Run("native", func(t *testing.T) {
		e := newEnv(t, script, files)
		test(t, e)
		for _, r := range e.model.Requests() {
			if len(r.Tools) == 0 && lastResult(r) != fallbackPrompt {
				t.Errorf("native request without tool specs")
			}
		}
	})
	t.Run("text", func(t *testing.T) {
		e := newEnv(t, textScript(t, script), files)
		test(t, e)
		for _, r := range e.model.Requests() {
			if len(r.Tools) > 0 || !strings.Contains(r.Messages[0].Content, "<tool_call>") {
				t.Errorf("text-mode request with tool specs or without the call format")
			}
		}
	})
}

// textScript rewrites a native script for text-mode tool calling.
func textScript(t *testing.T, script string) string {
	t.Helper()
	s, err := llmtest.ParseScript(strings.NewReader(script))
	if err != nil {
		t.Fatal(err)
	}
	s.Capabilities = &llm.Capabilities{Tools: false, Thinking: s.Capabilities != nil && s.Capabilities.Thinking}
	for i, turn := range s.Turns {
		var b strings.Builder
		b.WriteString(turn.Content)
		for _, c := range turn.ToolCalls {
			fmt.Fprintf(&b, "\n<tool_call>{\"name\": %q, \"arguments\": %s}</tool_call>", c.Name, c.Arguments)
		}
		s.Turns[i].Content, s.Turns[i].ToolCalls = b.String(), nil
	}
	var out strings.Builder
	if _, err := s.WriteTo(&out); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// lastResult is what the model was last told: the last role-tool or
// user message of a request.
func lastResult(req llm.Request) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if r := req.Messages[i].Role; r == llm.RoleTool || r == llm.RoleUser {
			return req.Messages[i].Content
		}
	}
	return ""
}

func (e *env) config() Config {
	return Config{Model: e.model, Tools: e.reg, Workspace: e.ws, Sink: e.rec, Clock: e.clock.Now, Logger: quietLogger(), CommandDir: e.shell.Cwd}
}

func (e *env) run(cfg Config, prompt string) (*Result, error) {
	e.t.Helper()
	x, err := New(cfg)
	if err != nil {
		e.t.Fatal(err)
	}
	return x.Run(context.Background(), Input{Prompt: prompt})
}

func (e *env) read(name string) string {
	e.t.Helper()
	b, err := os.ReadFile(filepath.Join(e.dir, filepath.FromSlash(name)))
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

func (e *env) exists(name string) bool {
	_, err := os.Stat(filepath.Join(e.dir, filepath.FromSlash(name)))
	return err == nil
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// recorder is a Sink that keeps every event.
type recorder struct {
	mu     sync.Mutex
	events []event.Event
	hook   func(event.Event)
}

func (r *recorder) Emit(_ context.Context, e event.Event) error {
	r.mu.Lock()
	r.events = append(r.events, e)
	hook := r.hook
	r.mu.Unlock()
	if hook != nil {
		hook(e)
	}
	return nil
}

func (r *recorder) all() []event.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]event.Event(nil), r.events...)
}

// types lists the event types in order, for compact assertions.
func (r *recorder) types() []string {
	var out []string
	for _, e := range r.all() {
		out = append(out, e.Type())
	}
	return out
}

// actions returns the final tool actions (not running or pending).
func (r *recorder) actions() []event.ToolAction {
	var out []event.ToolAction
	for _, e := range r.all() {
		if a, ok := e.(event.ToolAction); ok && a.Status != event.StatusRunning && a.Status != event.StatusPending {
			out = append(out, a)
		}
	}
	return out
}

// noticeKinds lists the kinds of the Notices recorded, in order; empty,
// not nil, when there are none.
func (r *recorder) noticeKinds() []event.NoticeKind {
	kinds := []event.NoticeKind{}
	for _, n := range eventsOf[event.Notice](r) {
		kinds = append(kinds, n.Kind)
	}
	return kinds
}

func (r *recorder) text() string {
	var b strings.Builder
	for _, e := range r.all() {
		if d, ok := e.(event.TextDelta); ok {
			b.WriteString(d.Text)
		}
	}
	return b.String()
}

func eventsOf[T event.Event](r *recorder) []T {
	var out []T
	for _, e := range r.all() {
		if v, ok := e.(T); ok {
			out = append(out, v)
		}
	}
	return out
}

// fakeClock advances by step on every reading, so throttling and
// thinking durations are deterministic.
type fakeClock struct {
	mu   sync.Mutex
	t    time.Time
	step time.Duration
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2026, 3, 22, 15, 4, 5, 0, time.UTC), step: 10 * time.Millisecond}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(c.step)
	return c.t
}

// approver answers with choice, and records what it was asked.
type approver struct {
	mu     sync.Mutex
	asked  []approval.Request
	answer func(approval.Request) approval.Response
}

func (a *approver) Approve(ctx context.Context, req approval.Request) (approval.Response, error) {
	a.mu.Lock()
	a.asked = append(a.asked, req)
	a.mu.Unlock()
	if a.answer == nil {
		<-ctx.Done()
		return approval.Response{}, context.Cause(ctx)
	}
	return a.answer(req), nil
}

func allowAll(approval.Request) approval.Response {
	return approval.Response{Choice: approval.AllowOnce}
}
func denyAll(approval.Request) approval.Response {
	return approval.Response{Choice: approval.Deny, Reason: "user said no"}
}

type iterChunks = iter.Seq2[llm.Chunk, error]

// chunks streams cs as a model response.
func chunks(cs ...llm.Chunk) iterChunks {
	return func(yield func(llm.Chunk, error) bool) {
		for _, c := range cs {
			if !yield(c, nil) {
				return
			}
		}
	}
}
