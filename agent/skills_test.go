package agent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/agent/projectctx"
	"github.com/tetherdev/tether/tools"
)

// TestSkillsInRun: the model keeps a plan with todos (called by its bare
// name) and runs the tests with build, which goes through the terminal
// handler and its approval like any command.
func TestSkillsInRun(t *testing.T) {
	script := `{"tool_calls":[{"name":"todos","arguments":{"todos":[{"text":"Run the tests","status":"in_progress"},{"text":"Report","status":"pending"}]}}]}
{"tool_calls":[{"name":"skill__build","arguments":{"action":"test"}}]}
{"tool_calls":[{"name":"todos","arguments":{"items":[{"content":"Run the tests","status":"completed"},{"content":"Report","state":"done"}]}}]}
{"content":"The tests pass. [TASK_COMPLETE]"}`
	e := newEnv(t, script, nil)
	cfg := e.config()
	ap := &approver{answer: allowAll}
	cfg.Approver = ap
	cfg.Skills = []Skill{TodosSkill(), BuildSkill(projectctx.BuildCommands{Test: "echo tests-ok"})}
	res, err := e.run(cfg, "Run the tests and tell me if they pass")
	require.NoError(t, err)
	require.Equal(t, event.StopCompleted, res.StopReason)

	todos := eventsOf[event.TodosUpdated](e.rec)
	require.Len(t, todos, 2)
	require.Equal(t, []event.TodoItem{{Text: "Run the tests", Status: event.TodoInProgress}, {Text: "Report", Status: event.TodoPending}}, todos[0].Items)
	require.Equal(t, []event.TodoItem{{Text: "Run the tests", Status: event.TodoDone}, {Text: "Report", Status: event.TodoDone}}, todos[1].Items)
	require.Equal(t, "call_1_0", todos[0].CallID)

	acts := e.rec.actions()
	require.Equal(t, "skill__todos", acts[0].Tool)
	require.Equal(t, event.StatusSuccess, acts[0].Status)
	build := acts[1]
	require.Equal(t, "skill__build", build.Tool)
	require.Equal(t, event.StatusSuccess, build.Status, build.Output)
	require.True(t, strings.HasPrefix(build.Output, "$ echo tests-ok\n"), build.Output)
	require.Contains(t, build.Output, "tests-ok\n")
	require.Len(t, ap.asked, 1, "the build command was judged and asked like any command")
	require.Equal(t, "echo tests-ok", ap.asked[0].Command)
	require.Equal(t, build.CallID, ap.asked[0].CallID, "its approval card belongs to the skill's action")

	// The plan and the command are in the memory the model sees.
	sys := e.model.Requests()[2].Messages[0].Content
	require.Contains(t, sys, "SESSION MEMORY")
	require.Contains(t, sys, "[~] Run the tests")
	require.Contains(t, sys, "echo tests-ok → success")
	require.Equal(t, []event.TodoItem{{Text: "Run the tests", Status: event.TodoDone}, {Text: "Report", Status: event.TodoDone}}, res.Memory.Plan)
	require.Equal(t, "echo tests-ok", res.Memory.Commands[0].Command)

	// Events decode to their own types.
	b, err := event.Marshal(todos[1])
	require.NoError(t, err)
	back, err := event.Unmarshal(b)
	require.NoError(t, err)
	require.Equal(t, todos[1], back)
}

// TestBuildSkillDenied: with no one to ask, the build command is denied
// and the action says so; nothing ran.
func TestBuildSkillDenied(t *testing.T) {
	e := newEnv(t, `{"tool_calls":[{"name":"skill__build","arguments":{}}]}
{"content":"I could not build. [TASK_COMPLETE]"}`, map[string]string{"go.mod": "module x\n"})
	cfg := e.config()
	cfg.Skills = []Skill{BuildSkill(projectctx.BuildCommands{})}
	_, err := e.run(cfg, "build it")
	require.NoError(t, err)
	a := e.rec.actions()[0]
	require.Equal(t, event.StatusDenied, a.Status)
	require.True(t, strings.HasPrefix(a.Output, "$ go build ./...\n"), a.Output)
}

func TestParseTodos(t *testing.T) {
	for _, tc := range []struct {
		args string
		want []event.TodoItem
		err  string
	}{
		{`{"todos":["a",{"title":"b","done":true},{"task":"c","status":"In-Progress"}]}`, []event.TodoItem{{Text: "a", Status: event.TodoPending}, {Text: "b", Status: event.TodoDone}, {Text: "c", Status: event.TodoInProgress}}, ""},
		{`{"todos":[]}`, []event.TodoItem{}, ""},
		{`[]`, nil, "JSON object"},
		{`{"list":[]}`, nil, `missing "todos"`},
		{`{"todos":[{"status":"done"}]}`, nil, `no "text"`},
		{`{"todos":[{"text":"x","status":"maybe"}]}`, nil, `"maybe"`},
		{`{"todos":"x"}`, nil, "array"},
		{`{"todos":[` + strings.Repeat(`"x",`, 30) + `"x"]}`, nil, "30 or fewer"},
	} {
		got, err := parseTodos(json.RawMessage(tc.args))
		if tc.err != "" {
			require.ErrorContains(t, err, tc.err, tc.args)
			continue
		}
		require.NoError(t, err, tc.args)
		require.Equal(t, tc.want, got, tc.args)
	}
}

// TestSkillRegistration: skills live in their own namespace of a copy
// of the host's registry; executing one outside a run says why it fails.
func TestSkillRegistration(t *testing.T) {
	reg := &tools.Registry{}
	x, err := New(Config{Model: scripted(t, ""), Tools: reg, Skills: []Skill{TodosSkill()}})
	require.NoError(t, err)
	require.Empty(t, reg.Names(), "the host's registry is not modified")
	require.Equal(t, []string{"skill__todos"}, x.cfg.Tools.Names())
	res := x.cfg.Tools.Execute(context.Background(), tools.Call{Name: "todos", Arguments: json.RawMessage(`{"todos":[]}`)})
	require.True(t, res.IsError)
	require.Contains(t, res.Text, ErrSkillOutsideRun.Error())

	_, err = New(Config{Model: scripted(t, ""), Skills: []Skill{TodosSkill(), TodosSkill()}})
	require.ErrorIs(t, err, ErrConfig)
	_, err = New(Config{Model: scripted(t, ""), Skills: []Skill{nil}})
	require.ErrorIs(t, err, ErrConfig)
}

// A host skill gets the run's environment.
func TestHostSkill(t *testing.T) {
	e := newEnv(t, `{"tool_calls":[{"name":"greet","arguments":{"who":"Ada"}}]}
{"content":"Greeted. [TASK_COMPLETE]"}`, nil)
	cfg := e.config()
	var gotEnv SkillEnv
	cfg.Skills = []Skill{SkillFunc{Spec: tools.Spec{Name: "greet", Description: "Greet someone.", ReadOnly: true},
		Run: func(_ context.Context, env SkillEnv, args json.RawMessage) SkillResult {
			gotEnv = env
			env.Emit(event.Notice{Kind: "greeting", Text: string(args)})
			return SkillResult{Text: "hello Ada", Status: event.StatusError, Detail: ""}
		}}}
	_, err := e.run(cfg, "greet Ada")
	require.NoError(t, err)
	require.Equal(t, "call_1_0", gotEnv.CallID)
	require.NotNil(t, gotEnv.RunCommand)
	n := eventsOf[event.Notice](e.rec)
	require.Equal(t, `{"who":"Ada"}`, n[0].Text)
	a := e.rec.actions()[0]
	require.Equal(t, event.StatusError, a.Status)
	require.Equal(t, "hello Ada", a.Detail)
}

// TestHostSkillThatChangesThings: a host skill that is not read-only is
// confirm-level: denied with no one to ask, run once approved.
func TestHostSkillThatChangesThings(t *testing.T) {
	for _, tc := range []struct {
		approver *approver
		want     event.ActionStatus
		ran      bool
	}{{nil, event.StatusDenied, false}, {&approver{answer: allowAll}, event.StatusSuccess, true}} {
		e := newEnv(t, `{"tool_calls":[{"name":"deploy","arguments":{"env":"staging"}}]}
{"content":"Done. [TASK_COMPLETE]"}`, nil)
		cfg := e.config()
		if tc.approver != nil {
			cfg.Approver = tc.approver
		}
		ran := false
		cfg.Skills = []Skill{SkillFunc{Spec: tools.Spec{Name: "deploy", Description: "Deploy."},
			Run: func(context.Context, SkillEnv, json.RawMessage) SkillResult {
				ran = true
				return SkillResult{Text: "deployed"}
			}}}
		_, err := e.run(cfg, "deploy to staging")
		require.NoError(t, err)
		require.Equal(t, tc.want, e.rec.actions()[0].Status)
		require.Equal(t, tc.ran, ran)
		if tc.approver != nil {
			require.Equal(t, "skill__deploy", tc.approver.asked[0].ToolName)
		}
	}
}
