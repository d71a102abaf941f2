package mcp

import (
	"context"
	"errors"
	"fmt"

	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
)

// ErrDenied is wrapped by every refusal this package makes: a deny rule, a
// confirm-level call with no approver, or an approver's "no". Test with
// errors.Is; errors.As with *DeniedError gives the details.
var ErrDenied = errors.New("mcp: call denied")

// ErrNoApprover: a call needed a human's confirmation and nobody was there
// to ask (no Confirm function configured). It is wrapped together with
// ErrDenied.
var ErrNoApprover = errors.New("no approver configured for calls that need confirmation")

// ConfirmRequest describes one call that needs a human's yes before it runs.
type ConfirmRequest struct {
	// Tool is the name the agent knows the tool by ("github__create_issue"
	// on the client side, "write_file" on the server side).
	Tool string
	// Server names the MCP server (client side) or is empty (server side).
	Server string
	// Call is the call exactly as it will run; its Arguments are the bytes
	// that will be sent.
	Call tools.Call
	// Decision is Confirm; Reasons say why it needs one, deciding reason
	// first.
	Decision safety.Decision
	Reasons  []string
	// Assessment is the safety policy's full verdict when one was made
	// (server side, for commands and file tools); nil otherwise.
	Assessment *safety.Assessment
}

// Confirmer asks a human (or a policy standing in for one) whether a call
// may run. A nil error allows it; any error denies it, and its text is
// shown to the model. It blocks until it has an answer or ctx is done.
//
// An approval.Approver adapts in a few lines:
//
//	mcp.ConfirmFunc(func(ctx context.Context, r mcp.ConfirmRequest) error {
//		resp, err := approver.Approve(ctx, approval.Request{Kind: approval.KindOther,
//			ToolName: r.Tool, Summary: string(r.Call.Arguments), Decision: r.Decision, Reasons: r.Reasons})
//		if err == nil && !resp.Allowed() {
//			err = errors.New(resp.Message)
//		}
//		return err
//	})
type Confirmer interface {
	Confirm(ctx context.Context, req ConfirmRequest) error
}

// ConfirmFunc adapts a function to Confirmer.
type ConfirmFunc func(ctx context.Context, req ConfirmRequest) error

// Confirm calls f(ctx, req).
func (f ConfirmFunc) Confirm(ctx context.Context, req ConfirmRequest) error { return f(ctx, req) }

// DeniedError records why a call did not run.
type DeniedError struct {
	Tool    string
	By      string // "rule", "policy", "no approver", "approver"
	Reasons []string
	Cause   error // the approver's error, ErrNoApprover, or nil
}

func (e *DeniedError) Error() string {
	msg := fmt.Sprintf("%s was not run: denied by %s", e.Tool, e.By)
	for i, r := range e.Reasons {
		if i == 0 {
			msg += ": " + r
		} else {
			msg += "; " + r
		}
	}
	if e.Cause != nil {
		msg += " (" + e.Cause.Error() + ")"
	}
	return msg
}

// Unwrap lets errors.Is match ErrDenied and the cause.
func (e *DeniedError) Unwrap() []error {
	if e.Cause != nil {
		return []error{ErrDenied, e.Cause}
	}
	return []error{ErrDenied}
}

type approvedKey struct{}

// WithApproved marks ctx as carrying a call the host has already approved
// through its own approval path (an agent's tool runner that read the
// tool's Decision and asked the user). A Tool executed with such a context
// does not ask its Confirmer again; deny rules still apply.
func WithApproved(ctx context.Context) context.Context {
	return context.WithValue(ctx, approvedKey{}, true)
}

// approved reports whether WithApproved marked ctx.
func approved(ctx context.Context) bool {
	if _, ok := tools.Approved(ctx); ok {
		return true // an agent's gate approved this call
	}
	v, _ := ctx.Value(approvedKey{}).(bool)
	return v
}

// gate enforces a decision: Allow runs, Deny refuses, Confirm asks c (or
// refuses when c is nil). It returns nil when the call may run.
func gate(ctx context.Context, c Confirmer, req ConfirmRequest) error {
	switch req.Decision {
	case safety.Allow:
		return nil
	case safety.Deny:
		return &DeniedError{Tool: req.Tool, By: "rule", Reasons: req.Reasons}
	}
	if approved(ctx) {
		return nil
	}
	if c == nil {
		return &DeniedError{Tool: req.Tool, By: "no approver", Reasons: req.Reasons, Cause: ErrNoApprover}
	}
	if err := c.Confirm(ctx, req); err != nil {
		return &DeniedError{Tool: req.Tool, By: "approver", Reasons: req.Reasons, Cause: err}
	}
	return nil
}
