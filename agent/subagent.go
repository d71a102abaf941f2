package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/tools"
)

// SubagentToolName is the tool that delegates a sub-task to a child
// agent; envelope {"type": "subagent", "task": …} actions arrive as
// calls to it.
const SubagentToolName = "subagent"

// DefaultSubagentRounds is a subagent's round limit when neither the
// call nor SubagentConfig sets one: enough for a focused sub-task,
// small enough that a wandering child stops soon.
const DefaultSubagentRounds = 6

// SubagentPolicy is what a subagent may do.
type SubagentPolicy string

const (
	// SubagentReadOnly runs the child in explore mode: read-only tools
	// only, enforced in code. It is the default.
	SubagentReadOnly SubagentPolicy = "read_only"
	// SubagentInherit runs the child in the parent run's mode, with the
	// parent's command rules, approval policy, approver and "allow for
	// this session" grants; its edits go into checkpoints of the same
	// session, undoable like the parent's.
	SubagentInherit SubagentPolicy = "inherit"
)

// SubagentConfig enables the subagent tool.
type SubagentConfig struct {
	// MaxRounds caps the child's iterations; a call may ask for fewer.
	// Zero means DefaultSubagentRounds.
	MaxRounds int
	// Policy is SubagentReadOnly (the zero value) or SubagentInherit.
	Policy SubagentPolicy
}

func (c *SubagentConfig) validate() error {
	if c == nil {
		return nil
	}
	switch c.Policy {
	case "", SubagentReadOnly, SubagentInherit:
	default:
		return fmt.Errorf("%w: unknown subagent policy %q (want read_only or inherit)", ErrConfig, c.Policy)
	}
	if c.MaxRounds < 0 {
		return fmt.Errorf("%w: negative SubagentConfig.MaxRounds", ErrConfig)
	}
	return nil
}

func subagentSpec(c *SubagentConfig) tools.Spec {
	rounds := orDefault(c.MaxRounds, DefaultSubagentRounds)
	what := "It can only read (search, list, read files)."
	if c.Policy == SubagentInherit {
		what = "It has your tools and permissions."
	}
	return tools.Spec{
		Name: SubagentToolName,
		Description: "Delegate a self-contained sub-task to a helper agent and get its final answer back. " + what +
			" It does not see this conversation: describe the task completely.",
		ReadOnly:   c.Policy != SubagentInherit,
		ArgAliases: map[string][]string{"task": {"prompt"}, "max_rounds": {"rounds"}},
		Parameters: json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{"task":{"type":"string","description":"The complete task for the helper."},`+
			`"max_rounds":{"type":"integer","minimum":1,"maximum":%d,"description":"Round limit for the helper (default and maximum %d)."}},"required":["task"]}`, rounds, rounds)),
	}
}

// subagentHandler runs a child executor for one call. The child's
// events reach the parent's sink as SubagentEvents under the call's id,
// in order, while they happen; its final message is the call's result.
type subagentHandler struct {
	e          *Executor
	parent     Config          // the parent run's settings
	userTools  *tools.Registry // the host's tools, without skills and this tool
	parentMode Mode
	emit       func(event.Event)
}

func (h subagentHandler) handle(ctx context.Context, c *ToolCall) outcome {
	sc := h.parent.Subagents
	var a struct {
		Task      string `json:"task"`
		Prompt    string `json:"prompt"`
		MaxRounds int    `json:"max_rounds"`
		Rounds    int    `json:"rounds"`
	}
	if err := json.Unmarshal(c.Args, &a); err != nil {
		return failed(event.StatusError, `Error: the arguments must be {"task": "…", "max_rounds": N}`)
	}
	task := strings.TrimSpace(a.Task)
	if task == "" {
		task = strings.TrimSpace(a.Prompt)
	}
	if task == "" {
		return failed(event.StatusError, `Error: missing "task": describe the sub-task completely; the helper does not see this conversation.`)
	}
	limit := orDefault(sc.MaxRounds, DefaultSubagentRounds)
	rounds := limit
	if n := max(a.MaxRounds, a.Rounds); n > 0 {
		rounds = min(n, limit)
	}

	child := h.parent // a copy
	child.Tools = h.userTools
	child.Subagents = nil // one level: a helper does not delegate again
	child.GitBranch = nil
	child.MaxIterations = rounds
	child.Grants = h.e.grants
	child.Checkpoints = h.e.checkpoints
	child.Session = h.e.session
	child.Mode = ModeExplore
	if sc.Policy == SubagentInherit {
		child.Mode = h.parentMode
	}
	depth := h.e.depth + 1
	child.Sink = event.SinkFunc(func(_ context.Context, ev event.Event) error {
		h.emit(event.SubagentEvent{ParentCallID: c.ID, Depth: depth, Event: ev})
		return nil
	})
	x, err := New(child)
	if err != nil {
		return failed(event.StatusError, "Error: the helper could not start: "+err.Error())
	}
	x.depth = depth
	x.capsMu.Lock()
	x.caps = h.e.cachedCaps()
	x.capsMu.Unlock()
	res, err := x.Run(ctx, Input{Prompt: task})
	if res == nil {
		return failed(errorStatus(ctx, err), "Error: the helper failed: "+err.Error())
	}
	text := strings.TrimSpace(res.FinalMessage)
	o := outcome{Text: text, Status: event.StatusSuccess, Detail: fmt.Sprintf("%d rounds, %s", res.Iterations, res.StopReason)}
	switch res.StopReason {
	case event.StopMaxIterations:
		o.Text += fmt.Sprintf("\n\n(The helper used all %d of its rounds; its answer may be incomplete.)", rounds)
	case event.StopCanceled:
		o.Status = event.StatusSkipped
	case event.StopError, event.StopRepeatedFailure:
		o.Status = event.StatusError
		if err != nil {
			o.Text += "\n\nThe helper stopped with an error: " + err.Error()
		}
	}
	if len(res.FilesChanged) > 0 {
		var files []string
		for _, f := range res.FilesChanged {
			files = append(files, fmt.Sprintf("%s (+%d −%d)", f.Path, f.Added, f.Removed))
		}
		o.Text += "\n\nThe helper changed: " + strings.Join(files, ", ") + " (checkpoint " + res.CheckpointID + ")."
		o.CheckpointID = res.CheckpointID
	}
	if o.Text == "" {
		o.Text = "The helper finished without an answer."
	}
	return o
}

// cachedCaps returns the capabilities already read, so a child does not
// ask the backend again; nil when none were read.
func (e *Executor) cachedCaps() *llm.Capabilities {
	e.capsMu.Lock()
	defer e.capsMu.Unlock()
	return e.caps
}
