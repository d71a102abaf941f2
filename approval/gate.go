package approval

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"

	"github.com/tetherdev/tether/safety"
)

// Gate turns requests into approved actions. It applies, in order:
//
//  1. the safety layer's decision carried by the request: Deny always denies,
//     Allow runs (unless the request is critical, which is then asked);
//  2. session grants, for confirm-level requests below critical;
//  3. the Policy (interactive, auto-approve, headless or your own);
//  4. the Approver, when the policy says Confirm.
//
// Every outcome is logged through Logger with who decided and why.
//
// The zero Gate is interactive, keeps its own session grants, logs nothing
// and, having no Approver, denies whatever it would have to ask
// about. A Gate is safe for concurrent use; do not change its fields after the
// first call.
type Gate struct {
	Policy   Policy       // nil means Interactive()
	Approver Approver     // nil means confirm-level requests are denied
	Grants   *Grants      // nil means a private set created on first use
	Logger   *slog.Logger // nil means no logging

	once   sync.Once
	grants *Grants
}

// Approved is proof that a request passed the Gate. It carries the Gate's own
// copy of the request, so the command or path an executor takes from it are
// exactly the bytes that were judged and shown, whatever happens afterwards to
// the caller's Request or to the copy handed to the Approver. Run
// Approved.Command(), not the string you asked about.
type Approved struct {
	req    Request
	by     Authority
	reason string
	ok     bool
}

// Authority says who decided a request.
type Authority string

const (
	BySafety       Authority = "safety"        // the safety decision allowed or denied it outright
	BySessionGrant Authority = "session grant" // an "allow for this session" answer covered it
	ByPolicy       Authority = "policy"        // the Gate's Policy (auto-approve, headless…)
	ByUser         Authority = "user"          // a person answered through the Approver
	ByGate         Authority = "gate"          // the Gate itself: an invalid request or answer, no approver
	ByApprover     Authority = "approver"      // the Approver failed or answered nonsense
	ByTimeout      Authority = "timeout"       // nobody answered in time
	ByCancellation Authority = "cancellation"  // the context ended first
)

// Request returns a copy of the request that was approved.
func (a Approved) Request() Request { return a.req.clone() }

// Command is the exact command line to run (KindCommand).
func (a Approved) Command() string { return a.req.Command }

// Path is the exact path to write (KindFileEdit).
func (a Approved) Path() string { return a.req.Path }

// Token is the staged-change token to apply, if any.
func (a Approved) Token() string { return a.req.Token }

// By says who approved: BySafety, BySessionGrant, ByPolicy or ByUser.
func (a Approved) By() Authority { return a.by }

// Reason says why, as logged.
func (a Approved) Reason() string { return a.reason }

// Valid reports whether a came from a successful Authorize; the zero Approved
// is not valid and an executor must refuse it.
func (a Approved) Valid() bool { return a.ok }

func (g *Gate) sessionGrants() *Grants {
	g.once.Do(func() {
		g.grants = g.Grants
		if g.grants == nil {
			g.grants = new(Grants)
		}
	})
	return g.grants
}

// SessionGrants returns the grants the Gate consults and adds to.
func (g *Gate) SessionGrants() *Grants { return g.sessionGrants() }

func (g *Gate) logger() *slog.Logger {
	if g.Logger != nil {
		return g.Logger
	}
	return discardLogger
}

// discardLogger stands in for a nil Logger: the package is silent unless
// its user hands it a logger.
var discardLogger = slog.New(slog.DiscardHandler)

// Authorize decides req. It returns an Approved holding the exact bytes to
// act on, or an error matching ErrDenied (a *DeniedError whose ForModel text
// can go back to the model). Invalid requests are denied with an error that
// also matches ErrInvalidRequest.
func (g *Gate) Authorize(ctx context.Context, req Request) (Approved, error) {
	req = req.clone()
	if req.ID == "" {
		req.ID = NewID()
	}
	if req.Decision == 0 {
		// Nobody judged this action: ask rather than let it through.
		req.Decision = safety.Confirm
	}
	if err := req.validate(); err != nil {
		return g.deny(ctx, req, ByGate, err.Error(), "", err)
	}

	switch req.Decision {
	case safety.Deny:
		return g.deny(ctx, req, BySafety, reasonsOr(req.Reasons, "the safety policy forbids it"), "", nil)
	case safety.Allow:
		if req.Severity < safety.SeverityCritical {
			return g.allow(ctx, req, BySafety, reasonsOr(req.Reasons, "the safety policy allows it"))
		}
		// A critical action is always asked, whatever marked it Allow.
	}

	critical := req.Severity >= safety.SeverityCritical
	if !critical {
		if rule, ok := g.sessionGrants().Match(req); ok {
			return g.allow(ctx, req, BySessionGrant, "matches session rule "+rule.String())
		}
	}

	policy := g.Policy
	if policy == nil {
		policy = Interactive()
	}
	v := policy.Decide(ctx, req.clone())
	switch v.Decision {
	case safety.Deny:
		return g.deny(ctx, req, ByPolicy, orDefault(v.Reason, "the policy denies it"), "", nil)
	case safety.Allow:
		if !critical {
			return g.allow(ctx, req, ByPolicy, orDefault(v.Reason, "the policy allows it"))
		}
	case safety.Confirm:
	default:
		return g.deny(ctx, req, ByPolicy, "the policy returned an unknown decision "+v.Decision.String(), "", ErrInvalidResponse)
	}

	if g.Approver == nil {
		return g.deny(ctx, req, ByGate, "confirmation needed but no approver is configured", "", nil)
	}
	resp, err := g.Approver.Approve(ctx, req.clone())
	if err != nil {
		by := ByApprover
		switch {
		case errors.Is(err, ErrTimeout):
			by = ByTimeout
		case ctx.Err() != nil:
			by = ByCancellation
		}
		return g.deny(ctx, req, by, orDefault(resp.Reason, err.Error()), "", err)
	}
	switch resp.Choice {
	case Deny:
		return g.deny(ctx, req, ByUser, orDefault(resp.Reason, "the user declined"), resp.Message, nil)
	case AllowOnce:
		return g.allow(ctx, req, ByUser, orDefault(resp.Reason, "the user allowed it once"))
	case AllowSession:
		rule := req.Rule()
		if resp.Rule != (Rule{}) && resp.Rule != rule {
			return g.deny(ctx, req, ByGate, "the answer grants "+resp.Rule.String()+" but the user was shown "+rule.String(), "", ErrRuleMismatch)
		}
		if critical {
			g.logger().LogAttrs(ctx, slog.LevelWarn, "approval: session grant refused for a critical action; allowing once",
				slog.String("id", req.ID), slog.String("rule", rule.String()))
			return g.allow(ctx, req, ByUser, orDefault(resp.Reason, "the user allowed it (once: critical actions are never granted for the session)"))
		}
		if err := g.sessionGrants().Add(rule); err != nil {
			return g.deny(ctx, req, ByGate, err.Error(), "", err)
		}
		g.logger().LogAttrs(ctx, slog.LevelInfo, "approval: session grant added",
			slog.String("id", req.ID), slog.String("rule", rule.String()))
		return g.allow(ctx, req, ByUser, orDefault(resp.Reason, "the user allowed it for the session"))
	default:
		return g.deny(ctx, req, ByApprover, "the approver returned an unknown choice "+resp.Choice.String(), "", ErrInvalidResponse)
	}
}

func (g *Gate) allow(ctx context.Context, req Request, by Authority, reason string) (Approved, error) {
	g.log(ctx, slog.LevelInfo, "approval: allowed", req, by, reason)
	return Approved{req: req, by: by, reason: reason, ok: true}, nil
}

func (g *Gate) deny(ctx context.Context, req Request, by Authority, reason, message string, cause error) (Approved, error) {
	var extra []slog.Attr
	if message != "" {
		extra = append(extra, slog.String("message", Escape(message)))
	}
	if cause != nil {
		extra = append(extra, slog.String("error", cause.Error()))
	}
	g.log(ctx, slog.LevelWarn, "approval: denied", req, by, reason, extra...)
	return Approved{}, &DeniedError{Request: req, By: by, Reason: reason, Message: message, Cause: cause}
}

func (g *Gate) log(ctx context.Context, level slog.Level, msg string, req Request, by Authority, reason string, extra ...slog.Attr) {
	attrs := []slog.Attr{
		slog.String("id", req.ID),
		slog.String("kind", req.Kind.String()),
		slog.String("tool", Escape(req.ToolName)),
		slog.String("subject", Escape(req.Subject())),
		slog.String("severity", req.Severity.String()),
		slog.String("safety", req.Decision.String()),
		slog.String("by", string(by)),
		slog.String("reason", reason),
	}
	g.logger().LogAttrs(ctx, level, msg, append(attrs, extra...)...)
}

func reasonsOr(reasons []string, def string) string {
	if len(reasons) == 0 {
		return def
	}
	return strings.Join(reasons, "; ")
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
