package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
	"github.com/tetherdev/tether/tools/terminal"
)

// SkillNamespace is the registry namespace of skills: a skill "todos"
// is offered as "skill__todos" and answers to "todos" too (the bare
// name, as envelope {"type": "skill", "name": "todos"} actions use it,
// resolves while no tool has it).
const SkillNamespace = "skill"

// ErrSkillOutsideRun: a skill was executed through a Registry directly;
// skills run inside an agent run, which gives them its event stream,
// memory and terminal handler.
var ErrSkillOutsideRun = errors.New("agent: skills run only inside an agent run")

// Skill is a capability invoked like a tool but run by the agent with
// access to the run: it can emit events, update the plan and
// run commands through the terminal handler (safety analysis, approval,
// checkpoint of the files it writes). Describe's Name is the bare name.
type Skill interface {
	Describe() tools.Spec
	Invoke(ctx context.Context, env SkillEnv, args json.RawMessage) SkillResult
}

// SkillFunc adapts a function to [Skill].
type SkillFunc struct {
	Spec tools.Spec
	Run  func(ctx context.Context, env SkillEnv, args json.RawMessage) SkillResult
}

// Describe returns f.Spec.
func (f SkillFunc) Describe() tools.Spec { return f.Spec }

// Invoke calls f.Run.
func (f SkillFunc) Invoke(ctx context.Context, env SkillEnv, args json.RawMessage) SkillResult {
	return f.Run(ctx, env, args)
}

// SkillEnv is what a skill may use of the run that invokes it.
type SkillEnv struct {
	// CallID is the call's id: the tool action the skill's events belong to.
	CallID string
	Mode   Mode
	// Workspace is the run's workspace; nil when none is configured.
	Workspace *safety.Workspace
	// Emit sends an event into the run's ordered stream.
	Emit func(event.Event)
	// SetPlan replaces the plan in the session memory.
	SetPlan func([]event.TodoItem)
	// RunCommand runs a shell command through the run's terminal handler,
	// exactly as the command tool would: the command rules, the
	// approval policy and the checkpoint apply.
	RunCommand func(ctx context.Context, command string) SkillResult
}

// SkillResult is what a skill returns: Text goes to the model.
type SkillResult struct {
	Text string
	// Status is the action's status; empty means success.
	Status event.ActionStatus
	// Detail is one line for a UI.
	Detail string
}

// skillTool registers a skill's spec in the registry; executing it
// there (outside a run) fails with ErrSkillOutsideRun.
type skillTool struct{ s Skill }

func (t skillTool) Describe() tools.Spec { return t.s.Describe() }

func (t skillTool) Execute(context.Context, tools.Call) (tools.Result, error) {
	return tools.Result{}, fmt.Errorf("%w: call %s through an agent.Executor", ErrSkillOutsideRun, t.s.Describe().Name)
}

// declaringSkillTool is the registry entry of a skill that declares its
// calls' effects (tools.Declarer), so that its calls are judged by them
// as a tool's would be.
type declaringSkillTool struct{ skillTool }

func (t declaringSkillTool) Effects(ctx context.Context, call tools.Call) (tools.Effects, error) {
	return t.s.(tools.Declarer).Effects(ctx, call)
}

// registeredSkill is what the registry holds for s.
func registeredSkill(s Skill) tools.Tool {
	if _, ok := s.(tools.Declarer); ok {
		return declaringSkillTool{skillTool{s}}
	}
	return skillTool{s}
}

// selfJudging skills submit each action they take to the run's safety
// checks themselves (the build skill runs its command through the
// terminal handler), so the skill call is not asked about as a whole.
type selfJudging interface{ judgesItself() }

type buildSkill struct{ SkillFunc }

func (buildSkill) judgesItself() {}

// skillHandler runs one skill inside a run. A skill that is not
// read-only and does not judge itself is confirm-level, like any tool
// whose effects the agent cannot analyse: authorize is then set.
type skillHandler struct {
	skill     Skill
	env       SkillEnv
	authorize authorizeFunc
}

func (h skillHandler) handle(ctx context.Context, c *ToolCall) outcome {
	canonical := c.Tool
	if h.authorize != nil {
		req := approval.Request{Kind: approval.KindOther, ToolName: canonical, CallID: c.ID,
			Summary: "run the " + canonical + " skill", Decision: safety.Confirm, Severity: safety.SeverityMedium,
			Reasons: []string{canonical + " is not marked read-only and its effects cannot be analysed", "arguments: " + excerpt(string(c.Args), 500)}}
		if _, err := h.authorize(ctx, req); err != nil {
			var d *approval.DeniedError
			if errors.As(err, &d) {
				return outcome{Text: d.ForModel(), Status: event.StatusDenied, Detail: d.Reason}
			}
			return failed(errorStatus(ctx, err), fmt.Sprintf("Not run: %v", err))
		}
	}
	env := h.env
	env.CallID = c.ID
	if env.RunCommand != nil {
		run := env.RunCommand
		env.RunCommand = func(ctx context.Context, cmd string) SkillResult {
			return run(withCallID(ctx, c.ID), cmd)
		}
	}
	res := h.skill.Invoke(ctx, env, c.Args)
	if res.Status == "" {
		res.Status = event.StatusSuccess
	}
	if res.Detail == "" && res.Status != event.StatusSuccess {
		res.Detail = firstLine(res.Text)
	}
	return outcome{Text: res.Text, Status: res.Status, Detail: res.Detail}
}

type callIDKey struct{}

func withCallID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, callIDKey{}, id)
}

// commandRunner runs a skill's command through the terminal handler,
// under the calling action's id so that its approval card belongs to it.
// The command is prepared like a model's call of the terminal tool, so
// it is judged in the directory the shell is in.
func commandRunner(prepare func(context.Context, call) (*ToolCall, error), th callHandler) func(ctx context.Context, cmd string) SkillResult {
	return func(ctx context.Context, cmd string) SkillResult {
		id, _ := ctx.Value(callIDKey{}).(string)
		args, _ := json.Marshal(map[string]string{"command": cmd})
		tc, err := prepare(ctx, call{ID: id, Name: terminal.Name, Args: args, Kind: "tool"})
		if err == nil && tc.Effects.Command == "" {
			err = fmt.Errorf("%s does not declare the command it runs", tc.Tool)
		}
		if err != nil {
			return SkillResult{Text: "Error: " + err.Error(), Status: event.StatusError, Detail: firstLine(err.Error())}
		}
		o := th.handle(ctx, tc)
		return SkillResult{Text: o.Text, Status: o.Status, Detail: o.Detail}
	}
}
