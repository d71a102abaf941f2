package agent

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/approval"
)

// approvalBridge sits between the Gate and the host's Approver. It is
// where the approval sequence a UI shows is produced, in order: the action
// turns pending, the approval card is requested, the answer (or the
// timeout) resolves it. The Gate only calls it when a person must
// decide, so auto-approved and denied actions show no card.
type approvalBridge struct {
	inner   approval.Approver
	timeout time.Duration // <0: none
	emit    func(event.Event)
	pending func(callID string)
}

func (b *approvalBridge) Approve(ctx context.Context, req approval.Request) (approval.Response, error) {
	show := func(req approval.Request) {
		if b.pending != nil {
			b.pending(req.CallID)
		}
		b.emit(event.ApprovalRequested{ID: req.ID, CallID: req.CallID, Display: req.Display()})
	}
	if _, async := b.inner.(approval.Announcer); async {
		// The card is shown once the request can be answered by its id,
		// never before: a quick UI's answer is never refused as unknown.
		ctx = approval.WithAnnounce(ctx, show)
	} else {
		show(req) // answered by the Approve call itself
	}

	actx, cancel := ctx, context.CancelFunc(func() {})
	if b.timeout >= 0 {
		actx, cancel = context.WithTimeout(ctx, b.timeout)
	}
	resp, err := b.inner.Approve(actx, req)
	timedOut := ctx.Err() == nil && errors.Is(actx.Err(), context.DeadlineExceeded)
	cancel()
	switch {
	case timedOut && (err != nil || !resp.Allowed()):
		resp = approval.Response{Choice: approval.Deny, Reason: fmt.Sprintf("no answer within %s", b.timeout)}
		err = fmt.Errorf("%w (%s)", approval.ErrTimeout, b.timeout)
	case err != nil:
		resp = approval.Response{Choice: approval.Deny, Reason: err.Error()}
	}
	b.emit(event.ApprovalResolved{ID: req.ID, CallID: req.CallID, Choice: resp.Choice, Reason: resp.Reason})
	return resp, err
}

// newGate builds the run's gate: the configured policy and grants, with
// the bridge in front of the host's approver.
func newGate(cfg *Config, grants *approval.Grants, emit func(event.Event), pending func(string)) *approval.Gate {
	g := &approval.Gate{Policy: cfg.Policy, Grants: grants, Logger: cfg.Logger}
	if cfg.Approver != nil {
		t := cfg.ApprovalTimeout
		if t == 0 {
			t = approval.DefaultTimeout
		}
		g.Approver = &approvalBridge{inner: cfg.Approver, timeout: t, emit: emit, pending: pending}
	}
	return g
}
