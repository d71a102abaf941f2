package agent

import (
	"context"
	"errors"
	"fmt"

	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
)

// otherHandler owns calls of tools that may change things but are neither
// commands nor file edits (a deploy tool, an MCP server's actions). The
// agent cannot judge what they do, so they are confirm-level: asked
// interactively, run under auto-approve, denied headless. "Allow for this
// session" covers the tool, whatever its arguments.
type otherHandler struct {
	authorize func(ctx context.Context, req approval.Request) (approval.Approved, error)
	execute   func(ctx context.Context, c tools.Call) tools.Result
}

func (h *otherHandler) handle(ctx context.Context, c call, canonical string) outcome {
	req := approval.Request{Kind: approval.KindOther, ToolName: canonical, CallID: c.ID,
		Summary:  "run the " + canonical + " tool",
		Decision: safety.Confirm, Severity: safety.SeverityMedium,
		Reasons: []string{
			canonical + " is not marked read-only and its effects cannot be analysed",
			"arguments: " + excerpt(string(c.Args), 500),
		}}
	approved, err := h.authorize(ctx, req)
	if err != nil {
		var d *approval.DeniedError
		if errors.As(err, &d) {
			return outcome{Text: d.ForModel(), Status: deniedStatus(ctx), Detail: d.Reason}
		}
		return failed(errorStatus(ctx, err), fmt.Sprintf("Not run: %v", err))
	}
	o := fromToolResult(h.execute(ctx, tools.Call{ID: c.ID, Name: canonical, Arguments: c.Args}))
	o.AutoApproved = approved.By() != "user"
	return o
}
