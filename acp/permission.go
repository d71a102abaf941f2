package acp

import (
	"context"
	"errors"
	"fmt"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/safety"
)

// The permission options a card offers, by id.
const (
	optAllowOnce    = "allow_once"
	optAllowAlways  = "allow_always"
	optRejectOnce   = "reject_once"
	optRejectAlways = "reject_always"
)

// permissionOptions are the answers a request allows: "allow always" is
// never offered for a critical action, which must be seen each time.
// saved, when not "", is the rule "allow always" saves and where.
func permissionOptions(req approval.Request, saved string) []sdk.PermissionOption {
	opts := []sdk.PermissionOption{{OptionId: optAllowOnce, Name: "Allow", Kind: sdk.PermissionOptionKindAllowOnce}}
	if req.Severity < safety.SeverityCritical {
		name := "Always allow " + req.Rule().String()
		if saved != "" {
			name = "Always allow " + saved
		}
		opts = append(opts, sdk.PermissionOption{OptionId: optAllowAlways, Name: name, Kind: sdk.PermissionOptionKindAllowAlways})
	}
	return append(opts,
		sdk.PermissionOption{OptionId: optRejectOnce, Name: "Reject", Kind: sdk.PermissionOptionKindRejectOnce},
		sdk.PermissionOption{OptionId: optRejectAlways, Name: "Always reject " + req.Rule().String(), Kind: sdk.PermissionOptionKindRejectAlways})
}

// approve is the session's approval.Approver: a confirm-level action
// becomes a session/request_permission showing exactly what will happen
// (the diff of the bytes that will be written, the command that will
// run). The prompt's cancellation withdraws the request.
func (l *live) approve(ctx context.Context, req approval.Request) (approval.Response, error) {
	rule := req.Rule()
	l.mu.Lock()
	rejected := l.rejected[rule.String()]
	l.mu.Unlock()
	if rejected {
		return approval.Response{Choice: approval.Deny, Reason: "acp: rejected always in this session by the user"}, nil
	}
	title := req.Subject()
	if req.Kind == approval.KindCommand {
		title = "Run " + req.Command
	}
	pending := sdk.ToolCallStatusPending
	tcu := sdk.ToolCallUpdate{ToolCallId: sdk.ToolCallId(req.CallID), Title: &title, Status: &pending, Content: l.permissionContent(req)}
	if tcu.ToolCallId == "" {
		tcu.ToolCallId = sdk.ToolCallId(req.ID)
	}
	l.tr.mu.Lock()
	if c := l.tr.calls[req.CallID]; c != nil {
		k := c.kind
		tcu.Kind = &k
		if c.title != "" && req.Kind != approval.KindCommand {
			t := c.title
			tcu.Title = &t
		}
		tcu.Locations = c.locations
	}
	l.tr.mu.Unlock()
	var (
		saved string
		save  func() error
	)
	if req.Kind == approval.KindCommand && req.Severity < safety.SeverityCritical && l.setup.SaveRule != nil {
		if r, where, f, ok := l.setup.SaveRule(req.Command); ok {
			saved, save = fmt.Sprintf("%q (saved to %s)", r, where), f
		}
	}
	var resp sdk.RequestPermissionResponse
	err := l.s.conn.call(ctx, "session/request_permission", sdk.RequestPermissionRequest{
		SessionId: sdk.SessionId(l.id), ToolCall: tcu, Options: permissionOptions(req, saved),
	}, &resp)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return approval.Response{Choice: approval.Deny, Reason: "acp: no answer from the editor within the approval timeout"}, nil
		}
		if ctx.Err() != nil {
			return approval.Response{Choice: approval.Deny, Reason: "acp: the prompt was cancelled"}, nil
		}
		var re *RPCError
		if errors.As(err, &re) {
			return approval.Response{Choice: approval.Deny, Reason: "acp: the editor could not ask: " + re.Message}, nil
		}
		return approval.Response{}, err
	}
	switch {
	case resp.Outcome.Cancelled != nil:
		return approval.Response{Choice: approval.Deny, Reason: "acp: the prompt was cancelled"}, nil
	case resp.Outcome.Selected == nil:
		return approval.Response{Choice: approval.Deny, Reason: "acp: the editor's answer had no outcome"}, nil
	}
	switch id := string(resp.Outcome.Selected.OptionId); id {
	case optAllowOnce:
		return approval.Response{Choice: approval.AllowOnce, Reason: "allowed once by the user in the editor"}, nil
	case optAllowAlways:
		if req.Severity >= safety.SeverityCritical {
			return approval.Response{Choice: approval.Deny, Reason: "acp: allow_always was not offered for a critical action"}, nil
		}
		if save != nil {
			if err := save(); err != nil {
				l.s.logger.Warn("acp: saving the rule", "session", l.id, "rule", saved, "err", err)
				return approval.Response{Choice: approval.AllowSession, Rule: rule, Reason: "allowed for the session by the user in the editor (saving the rule failed: " + err.Error() + ")"}, nil
			}
			return approval.Response{Choice: approval.AllowSession, Rule: rule, Reason: "allowed always by the user in the editor; saved " + saved}, nil
		}
		return approval.Response{Choice: approval.AllowSession, Rule: rule, Reason: "allowed for the session by the user in the editor"}, nil
	case optRejectAlways:
		l.mu.Lock()
		l.rejected[rule.String()] = true
		l.mu.Unlock()
		return approval.Response{Choice: approval.Deny, Reason: "rejected for the session by the user in the editor"}, nil
	case optRejectOnce:
		return approval.Response{Choice: approval.Deny, Reason: "rejected by the user in the editor"}, nil
	default:
		return approval.Response{Choice: approval.Deny, Reason: fmt.Sprintf("acp: the editor chose %q, which was not offered", id)}, nil
	}
}

// permissionContent is what the card shows: the exact diffs the tool
// declared, else the approval's own diff or command.
func (l *live) permissionContent(req approval.Request) []sdk.ToolCallContent {
	l.tr.mu.Lock()
	c := l.tr.calls[req.CallID]
	var diffs []sdk.ToolCallContent
	if c != nil {
		diffs = c.diffs
	}
	l.tr.mu.Unlock()
	if req.Kind == approval.KindFileEdit && len(diffs) > 0 {
		return diffs
	}
	text := req.Summary
	switch {
	case req.Kind == approval.KindCommand:
		text = fence(req.Command)
	case req.Diff != "":
		text = "```diff\n" + req.Diff + "\n```"
	}
	for _, r := range req.Reasons {
		text += "\n- " + r
	}
	if text == "" {
		return nil
	}
	return []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(text))}
}
