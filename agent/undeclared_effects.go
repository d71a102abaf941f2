package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
)

// otherHandler owns calls of tools that may change things but declare
// neither a command nor file writes: a tool that declares nothing (opaque)
// or one that declares only its own verdict (an MCP server's tool, judged
// by the host's allow/deny rules and the server's annotations). An opaque
// call is confirm-level: asked interactively, run under auto-approve,
// denied headless. "Allow for this session" covers the tool, whatever its
// arguments. A declared verdict is used instead: Allow runs unasked,
// Confirm is asked (Deny never reaches here). The gate still decides, so
// critical and headless rules apply as for any action, and once it
// approves, the tool is told so (tools.WithApproved) rather than asking
// again or refusing for lack of its own confirmer.
type otherHandler struct {
	authorize func(ctx context.Context, req approval.Request) (approval.Approved, error)
	execute   func(ctx context.Context, c tools.Call) tools.Result
}

func (h *otherHandler) handle(ctx context.Context, c *ToolCall) outcome {
	e := c.Effects
	decision, reasons := e.Decision, slices.Clone(e.Reasons)
	if decision == 0 {
		decision = safety.Confirm
		reasons = []string{c.Tool + " does not declare what it does, so its effects cannot be judged"}
		if e.Declared {
			reasons = []string{c.Tool + " may change things outside what the agent can check"}
		}
	}
	req := approval.Request{Kind: approval.KindOther, ToolName: c.Tool, CallID: c.ID,
		Summary:  "run the " + c.Tool + " tool",
		Decision: decision, Severity: safety.SeverityMedium,
		Reasons: append(reasons, "arguments: "+excerpt(string(c.Args), 500)),
	}
	approved, err := h.authorize(ctx, req)
	if err != nil {
		var d *approval.DeniedError
		if errors.As(err, &d) {
			return outcome{Text: d.ForModel(), Status: deniedStatus(ctx), Detail: d.Reason}
		}
		return failed(errorStatus(ctx, err), fmt.Sprintf("Not run: %v", err))
	}
	if e.Declared {
		ctx = tools.WithApproved(ctx, e)
	}
	o := fromToolResult(h.execute(ctx, tools.Call{ID: c.ID, Name: c.Tool, Arguments: c.Args}))
	o.AutoApproved = approved.By() != approval.ByUser
	return o
}
