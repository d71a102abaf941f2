package agent

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/tools"
)

// ToolCall is one call on its way through the tool runner, prepared once:
// the registry resolved the tool's name and normalised the arguments
// (aliases, types; a parameter named twice is refused before this point),
// and the tool declared what the call will do. Judging, approval,
// snapshots, titles, events and execution all see this value and nothing
// else, so what is judged is what runs.
type ToolCall struct {
	ID   string
	Tool string // the canonical tool name
	// Args are the normalised arguments: exactly what the tool executes.
	Args json.RawMessage
	// Sent are the arguments as the model sent them, for its history.
	Sent json.RawMessage
	Spec tools.Spec
	// Effects are what the tool declared for this call. Middleware sees
	// them as declared when the batch was routed; the agent's handler has
	// the tool declare them again just before the call runs (an earlier
	// call of the batch may have changed the file), and judges, shows
	// and runs that. Effects.Declared is false for an opaque tool.
	Effects tools.Effects
	// Title is how the tool titles this call (tools.Titler), for the
	// events a UI shows; tools.DefaultTitle for a tool that gives none.
	Title tools.Title
}

// ToolOutcome is what one call did: the text the model gets and what a
// UI shows about it.
type ToolOutcome struct {
	Text         string
	Status       event.ActionStatus
	Detail       string
	Path         string
	StartLine    int
	Chunks       []tools.LineRange
	Added        int
	Removed      int
	Wrote        bool // a file was written (not skipped)
	AutoApproved bool
	CheckpointID string
	// Images are the pictures the tool returned; they go to the model
	// with Text (which describes each for a model that cannot see them).
	Images []llm.Image
	// Metadata is the result's structured content (tools.Result.Metadata);
	// it goes to the model after Text as one JSON object.
	Metadata map[string]any
}

// ToolHandler runs one prepared call to its outcome. The agent's own
// handler judges the call's declared effects, asks for approval,
// snapshots what the call will change and runs it; a host wraps it with
// ToolMiddleware to add auditing, rate limits or guards of its own.
type ToolHandler interface {
	HandleTool(ctx context.Context, c *ToolCall) ToolOutcome
}

// ToolHandlerFunc adapts a function to ToolHandler.
type ToolHandlerFunc func(ctx context.Context, c *ToolCall) ToolOutcome

// HandleTool calls f.
func (f ToolHandlerFunc) HandleTool(ctx context.Context, c *ToolCall) ToolOutcome { return f(ctx, c) }

// ToolMiddleware wraps a ToolHandler, as net/http middleware wraps an
// http.Handler. It may refuse a call (return an outcome without calling
// next), observe it, or change its outcome. It runs before the agent's
// own judging, so whatever it passes on is judged before it runs.
type ToolMiddleware func(next ToolHandler) ToolHandler

// chainTools wraps h with mw, the first outermost.
func chainTools(h ToolHandler, mw []ToolMiddleware) ToolHandler {
	for i := len(mw) - 1; i >= 0; i-- {
		if mw[i] != nil {
			h = mw[i](h)
		}
	}
	return h
}

// prepareCall prepares a model's call once: the registry resolves the
// name and normalises the arguments (a parameter named twice is an
// error), then the tool declares the call's effects. An error from the
// declaration is not returned here: the call is declared again just
// before it runs, and an earlier call of the batch may make it valid
// (create a file, then edit it).
func prepareCall(ctx context.Context, reg *tools.Registry, c call) (*ToolCall, error) {
	p, perr := reg.Prepare(tools.Call{ID: c.ID, Name: c.Name, Arguments: c.Args})
	var ue *tools.UnknownToolError
	if errors.As(perr, &ue) {
		return nil, perr
	}
	t, _, err := reg.Lookup(p.Name)
	if err != nil {
		return nil, err
	}
	tc := &ToolCall{ID: c.ID, Tool: p.Name, Args: p.Arguments, Sent: c.Args, Spec: t.Describe()}
	if perr != nil {
		tc.Effects = specEffects(tc.Spec)
		tc.Title = reg.Title(tools.Call{ID: c.ID, Name: p.Name, Arguments: p.Arguments}, tc.Effects)
		return tc, perr
	}
	if err := declareEffects(ctx, reg, tc); err != nil {
		tc.Effects = specEffects(tc.Spec)
		tc.Title = reg.Title(tools.Call{ID: c.ID, Name: p.Name, Arguments: p.Arguments}, tc.Effects)
	}
	return tc, nil
}

// specEffects are what a tool's Spec says of every call, for a call whose
// own declaration failed: it stays open-world if the tool is.
func specEffects(s tools.Spec) tools.Effects {
	return tools.Effects{Annotations: tools.Annotations{ReadOnly: s.ReadOnly, OpenWorld: s.OpenWorld}}
}

// declareEffects has tc's tool declare its effects now.
func declareEffects(ctx context.Context, reg *tools.Registry, tc *ToolCall) error {
	c := tools.Call{ID: tc.ID, Name: tc.Tool, Arguments: tc.Args}
	eff, err := reg.Effects(ctx, c)
	if err != nil {
		return err
	}
	tc.Effects = eff
	tc.Title = reg.Title(c, eff)
	return nil
}

// outcome is the runner's name for ToolOutcome.
type outcome = ToolOutcome
