package approval

import (
	"context"
	"fmt"
	"strings"

	"github.com/tetherdev/tether/safety"
)

// Policy decides what happens to a request the safety layer wants confirmed
// (Request.Decision == safety.Confirm) and no session grant covers: Allow runs
// it without asking, Confirm asks the Gate's Approver, Deny refuses it.
//
// A Gate never lets a policy wave through a critical request: Allow on a
// SeverityCritical request is treated as Confirm.
type Policy interface {
	Decide(ctx context.Context, req Request) Verdict
}

// Verdict is a policy's decision and the reason that goes to the audit log.
type Verdict struct {
	Decision safety.Decision
	Reason   string
}

// PolicyFunc adapts a function to the Policy interface.
type PolicyFunc func(ctx context.Context, req Request) Verdict

// Decide calls f(ctx, req).
func (f PolicyFunc) Decide(ctx context.Context, req Request) Verdict { return f(ctx, req) }

// Interactive asks a person about every confirm-level request.
func Interactive() Policy {
	return PolicyFunc(func(context.Context, Request) Verdict {
		return Verdict{Decision: safety.Confirm, Reason: "interactive: asking the user"}
	})
}

// AutoApprove is an editor's "auto-approve" switch: confirm-level
// requests run without asking unless they are critical, which are still asked.
func AutoApprove() Policy {
	return PolicyFunc(func(_ context.Context, req Request) Verdict {
		if req.Severity >= safety.SeverityCritical {
			return Verdict{Decision: safety.Confirm, Reason: "auto-approve: critical actions are always asked"}
		}
		return Verdict{Decision: safety.Allow, Reason: fmt.Sprintf("auto-approve: %s severity is below critical", req.Severity)}
	})
}

// TokenValidator checks that a staged-change token is live and bound to path.
// *Stager implements it.
type TokenValidator interface {
	ValidateToken(token, path string) error
}

// Headless is the behaviour of a gateway serving remote clients, for runs with
// no person to ask: confirm-level requests are denied, except applying a staged
// change whose token tokens validates for the request's path (the explicit,
// reviewable approval step of two-phase mutation). With a nil tokens every
// confirm-level request is denied.
func Headless(tokens TokenValidator) Policy {
	return PolicyFunc(func(_ context.Context, req Request) Verdict {
		if req.Kind != KindFileEdit || req.Token == "" {
			// The safety reasons say what would have needed a person, so
			// the model learns why and can choose another way.
			why := "headless: no one to confirm; confirm-level actions are denied"
			if len(req.Reasons) > 0 {
				why += " (needs confirming: " + strings.Join(req.Reasons, "; ") + ")"
			}
			return Verdict{Decision: safety.Deny, Reason: why}
		}
		if tokens == nil {
			return Verdict{Decision: safety.Deny, Reason: "headless: no token validator configured; cannot apply staged changes"}
		}
		if err := tokens.ValidateToken(req.Token, req.Path); err != nil {
			return Verdict{Decision: safety.Deny, Reason: "headless: staged change rejected: " + err.Error()}
		}
		return Verdict{Decision: safety.Allow, Reason: "headless: applying a valid staged change token"}
	})
}

// ByKind routes each request to the policy for its kind, and the rest to def
// (nil means Interactive). It expresses two separate switches a host may
// offer, auto-approve commands and auto-approve sensitive edits:
//
//	approval.ByKind(approval.Interactive(), map[approval.Kind]approval.Policy{
//		approval.KindCommand: approval.AutoApprove(), // commands on, edits off
//	})
//
// The map is copied; later changes to it have no effect.
func ByKind(def Policy, byKind map[Kind]Policy) Policy {
	if def == nil {
		def = Interactive()
	}
	routes := make(map[Kind]Policy, len(byKind))
	for k, p := range byKind {
		if p != nil {
			routes[k] = p
		}
	}
	return PolicyFunc(func(ctx context.Context, req Request) Verdict {
		if p, ok := routes[req.Kind]; ok {
			return p.Decide(ctx, req)
		}
		return def.Decide(ctx, req)
	})
}
