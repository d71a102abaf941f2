package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/safety"
)

// readGuard judges read-only calls that name a path. Reading stays free
// inside the workspace, but a path outside it is refused and a file that
// may hold secrets (.env, private keys) needs a person's approval, since
// its content would leave the machine in the model's context. Read-only
// modes cannot ask, so there such reads are refused.
type readGuard struct {
	assess func(ctx context.Context, a safety.Action) safety.Assessment
	// secretIn, when set, says what credential a path's content holds
	// (see secretInFile), so a key or token in a file with an innocent
	// name asks like .env does.
	secretIn  func(path string) string
	authorize func(ctx context.Context, req approval.Request) (approval.Approved, error)
	askable   bool
	logger    *slog.Logger
}

// judge runs while the batch is routed, before anything executes: it
// refuses a call outright, or returns the approval request it needs. It
// judges the paths the tool declares it reads, resolved against the
// call's directory.
func (g *readGuard) judge(ctx context.Context, c *ToolCall) (early *outcome, ask *approval.Request) {
	if len(c.Effects.Reads) == 0 {
		return nil, nil
	}
	ops := make([]safety.PathOp, len(c.Effects.Reads))
	for i, p := range c.Effects.Reads {
		ops[i] = safety.PathOp{Path: inDir(c.Effects.Dir, p), Op: safety.OpRead}
	}
	p := ops[0].Path
	as := g.assess(ctx, safety.Action{Tool: c.Tool, Paths: ops})
	if as.Decision == safety.Allow && g.secretIn != nil {
		for _, op := range ops {
			if what := g.secretIn(op.Path); what != "" {
				as.Decision, p = safety.Confirm, op.Path
				as.Reasons = append([]string{fmt.Sprintf("%s holds %s (by its content)", op.Path, what)}, as.Reasons...)
				break
			}
		}
	}
	switch {
	case as.Decision == safety.Allow:
		return nil, nil
	case as.Decision == safety.Deny:
		return ptr(outcome{Text: "Not read: " + as.Reason(), Status: event.StatusDenied, Detail: as.Reason(), Path: p}), nil
	case !g.askable:
		g.logger.Info("agent: read refused in a read-only mode", "tool", c.Tool, "path", p, "reason", as.Reason())
		return ptr(outcome{Text: fmt.Sprintf("Not read: %s. This mode cannot ask the user for approval; do without this file.", as.Reason()),
			Status: event.StatusDenied, Detail: as.Reason(), Path: p}), nil
	}
	return nil, &approval.Request{Kind: approval.KindOther, ToolName: c.Tool, CallID: c.ID,
		Summary: fmt.Sprintf("%s %s", c.Tool, p), Decision: as.Decision, Severity: safety.SeverityHigh, Reasons: as.Reasons}
}

// ask puts a judged request to the gate; nil means approved.
func (g *readGuard) ask(ctx context.Context, req approval.Request) *outcome {
	if _, err := g.authorize(ctx, req); err != nil {
		var d *approval.DeniedError
		if errors.As(err, &d) {
			return ptr(outcome{Text: d.ForModel(), Status: deniedStatus(ctx), Detail: d.Reason})
		}
		return ptr(failed(errorStatus(ctx, err), "Not read: "+err.Error()))
	}
	return nil
}

// secretInFile returns a readGuard.secretIn that reads, through the
// workspace, at most the first safety.SecretScanBytes of a regular file
// and reports the credential safety.SecretInContent finds there.
func secretInFile(ws *safety.Workspace) func(path string) string {
	return func(path string) string {
		f, err := ws.Open(path)
		if err != nil {
			return ""
		}
		defer f.Close()
		if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
			return ""
		}
		head := make([]byte, safety.SecretScanBytes)
		n, _ := io.ReadFull(f, head)
		return safety.SecretInContent(head[:n])
	}
}
