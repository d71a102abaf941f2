package agent

import (
	"context"
	"errors"
	"fmt"

	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/mcp"
	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
)

// otherHandler owns calls of tools that may change things but are neither
// commands nor file edits (a deploy tool, an MCP server's actions). The
// agent cannot judge what they do, so they are confirm-level: asked
// interactively, run under auto-approve, denied headless. "Allow for this
// session" covers the tool, whatever its arguments.
//
// A tool that carries its own decision (an MCP server's tool, judged by the
// host's allow/deny rules and the server's annotations) is judged by that
// instead: Deny is refused unasked, Allow runs unasked, Confirm is asked.
// The gate still decides, so critical and headless rules apply as for any
// action, and once it approves the tool is told so (mcp.WithApproved) rather
// than asking again or refusing for lack of its own confirmer.
type otherHandler struct {
	authorize func(ctx context.Context, req approval.Request) (approval.Approved, error)
	execute   func(ctx context.Context, c tools.Call) tools.Result
	// decide reports a tool's own decision; ok is false for tools without
	// one. Nil means no tool has one.
	decide func(name string) (d safety.Decision, reasons []string, ok bool)
}

func (h *otherHandler) handle(ctx context.Context, c call, canonical string) outcome {
	decision := safety.Confirm
	reasons := []string{canonical + " is not marked read-only and its effects cannot be analysed"}
	if h.decide != nil {
		if d, rs, ok := h.decide(canonical); ok {
			decision, reasons = d, rs
		}
	}
	req := approval.Request{Kind: approval.KindOther, ToolName: canonical, CallID: c.ID,
		Summary:  "run the " + canonical + " tool",
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
	o := fromToolResult(h.execute(mcp.WithApproved(ctx), tools.Call{ID: c.ID, Name: canonical, Arguments: c.Args}))
	o.AutoApproved = approved.By() != "user"
	return o
}
