package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
)

// needsOpenWorldApproval reports a call that only reads but reaches
// outside the machine (a web page, a remote service) with no verdict of
// its tool's own allowing it. Such a call is confirm-level: what it
// fetches lands in the model's context, and where it goes can leak what
// the model knows. Only the host's configuration, declared by the tool as
// its Allow decision (a domain on the allow list), lets one run unasked.
// Calls that may change things are confirm-level anyway (the opaque-tool
// handler), and a Deny is refused before anyone is asked.
func needsOpenWorldApproval(e tools.Effects) bool {
	return e.OpenWorld && e.ReadOnly && e.Decision != safety.Allow && e.Decision != safety.Deny
}

// openWorldGate asks a person about open-world reads, showing the URL
// the call declares as the request's subject, so that "allow for this
// session" covers that address and nothing else. The run's gate decides
// as for any confirm-level action: headless denies, a policy the host
// chose may approve. Read-only modes cannot ask, so there such calls are
// refused.
type openWorldGate struct {
	authorize func(ctx context.Context, req approval.Request) (approval.Approved, error)
	askable   bool
	logger    *slog.Logger
}

// approve returns the approval, or the outcome of a refused call.
func (g *openWorldGate) approve(ctx context.Context, c *ToolCall) (approval.Approved, *outcome) {
	e := c.Effects
	subject := e.URL
	if subject == "" {
		subject = c.Tool + " " + excerpt(string(c.Args), 500)
	}
	reasons := append(slices.Clone(e.Reasons), fmt.Sprintf("%s reaches outside this machine, and what it reads goes to the model", c.Tool))
	if g == nil || !g.askable {
		if g != nil {
			g.logger.Info("agent: open-world call refused in a mode that cannot ask", "tool", c.Tool, "subject", subject)
		}
		return approval.Approved{}, ptr(outcome{Status: event.StatusDenied, Detail: "needs approval",
			Text: fmt.Sprintf("Not run: %s reaches %s outside this machine, which needs the user's approval, and this mode cannot ask for it. Do without it, or ask the user to allow the domain.", c.Tool, subject)})
	}
	approved, err := g.authorize(ctx, approval.Request{Kind: approval.KindOther, ToolName: c.Tool, CallID: c.ID,
		Summary: subject, Decision: safety.Confirm, Severity: safety.SeverityMedium, Reasons: reasons})
	if err != nil {
		var d *approval.DeniedError
		if errors.As(err, &d) {
			return approval.Approved{}, ptr(outcome{Text: d.ForModel(), Status: deniedStatus(ctx), Detail: d.Reason})
		}
		return approval.Approved{}, ptr(failed(errorStatus(ctx, err), fmt.Sprintf("Not run: %v", err)))
	}
	return approved, nil
}
