package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/approval/pgapproval"
	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/settings"
)

// approvals connects approval cards to the agent. The executor shows a
// card (ApprovalRequested) just before it registers the request with the
// Manager, so a quick click can arrive first; such an early answer is
// kept and applied the moment the request is registered.
//
// With a PostgreSQL -db, the Manager's requests are also published on a
// pgapproval board, so that a card of a turn running in another web
// process on the same database is answered there, through the database.
type approvals struct {
	manager  *approval.Manager
	approver approval.Approver // the agent's: the Manager, or the board's wrapper of it
	board    *pgapproval.Board // nil without a shared database
	logger   *slog.Logger
	save     func(rule string) error // keeps an "always allow" rule; nil offers none

	// mu guards shown: the ids of cards on screen and not yet resolved,
	// each with the severity it showed and an answer that came before
	// the Manager registered the request.
	mu    sync.Mutex
	shown map[string]*card
}

type card struct {
	severity string
	// command is the exact command of a command card, "" for other
	// cards and for commands shown escaped: what "always" would save.
	command string
	// remote: the card's turn runs in another process on the database,
	// which alone can register it; it is answered through the board.
	remote bool
	early  *approval.Response
}

// newApprovals makes the Manager; board, when not nil, shares its
// requests with the other processes on the database; save, when not nil,
// keeps an "always allow" rule.
func newApprovals(timeout time.Duration, board *pgapproval.Board, logger *slog.Logger, save func(rule string) error) *approvals {
	a := &approvals{logger: logger, board: board, shown: map[string]*card{}}
	a.manager = &approval.Manager{Timeout: timeout, Notify: a.notify}
	a.save = save
	a.approver = a.manager
	if board != nil {
		a.approver = board.Approver(a.manager) // after Notify is set: it wraps it
	}
	return a
}

// announce notes a card as it is sent to the page; remote says its turn
// runs in another process.
func (a *approvals) announce(r event.ApprovalRequested, remote bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	c := &card{severity: r.Display.Severity, remote: remote}
	if r.Display.Kind == approval.KindCommand.String() && !r.Display.Escaped {
		c.command = r.Display.Subject
	}
	a.shown[r.ID] = c
}

// forget drops a card once the agent reports it resolved.
func (a *approvals) forget(id string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.shown, id)
}

// notify is the Manager's hook: it applies an early answer on
// registration and forgets a card once it is resolved.
func (a *approvals) notify(e approval.Event) {
	a.mu.Lock()
	defer a.mu.Unlock()
	id := e.Request.ID
	if e.Type == approval.EventResolved {
		delete(a.shown, id)
		return
	}
	if c := a.shown[id]; c != nil && c.early != nil {
		_ = a.manager.Resolve(id, *c.early) // first answer wins; nothing else can have answered yet
	}
}

// answer is what the page posts for a card.
type answer struct {
	ID string `json:"id"`
	// Choice is allow_once, allow_session, allow_always (allow_session,
	// and the command saved as an allow rule to .tether/settings.json) or
	// deny.
	Choice  string `json:"choice"`
	Message string `json:"message,omitempty"` // told to the model with a deny
}

var errBadAnswer = errors.New("bad approval answer")

// resolve applies the page's answer to a card: one of this process's
// turns, or, through the board, another process's.
func (a *approvals) resolve(ctx context.Context, ans answer) error {
	if ans.ID == "" {
		return fmt.Errorf(`%w: "id" is required: the id of the approval card`, errBadAnswer)
	}
	var resp approval.Response
	switch ans.Choice {
	case "allow_once":
		resp = approval.Response{Choice: approval.AllowOnce, Reason: "allowed once on the web page"}
	case "allow_session":
		resp = approval.Response{Choice: approval.AllowSession, Reason: "allowed for the session on the web page"}
	case "allow_always":
		rule, err := a.alwaysRule(ans.ID)
		if err != nil {
			return err
		}
		if err := a.save(rule); err != nil {
			return fmt.Errorf("saving the rule %q: %w", rule, err)
		}
		resp = approval.Response{Choice: approval.AllowSession, Reason: "always allowed on the web page: rule saved to " + settings.ProjectFile}
	case "deny":
		resp = approval.Response{Choice: approval.Deny, Reason: "refused on the web page", Message: ans.Message}
	default:
		return fmt.Errorf("%w: choice %q: want allow_once, allow_session, allow_always or deny", errBadAnswer, ans.Choice)
	}
	local, remote, err := a.resolveLocal(ans.ID, resp)
	switch {
	case local:
	case a.board != nil:
		err = a.resolveShared(ctx, ans.ID, resp, remote)
	case remote:
		// A card replayed from a turn that no longer runs (the server
		// restarted while it waited): nobody is left to receive an answer.
		err = fmt.Errorf("%w: %s: the turn that asked is no longer running", approval.ErrStale, ans.ID)
	}
	if err == nil {
		a.logger.Info("web: approval answered", "id", ans.ID, "choice", ans.Choice, "here", local)
	}
	return err
}

// alwaysRule is the rule "always" saves for card id: its exact command,
// when one rule can hold it (see settings.SaveableRule).
func (a *approvals) alwaysRule(id string) (string, error) {
	a.mu.Lock()
	c := a.shown[id]
	a.mu.Unlock()
	if c == nil {
		return "", fmt.Errorf("%w: %s", approval.ErrUnknownRequest, id)
	}
	if a.save == nil || c.command == "" {
		return "", fmt.Errorf("%w: only a command can be always allowed", errBadAnswer)
	}
	rule, ok := settings.SaveableRule(c.command)
	if !ok {
		return "", fmt.Errorf("%w: %q cannot be saved as one rule (a critical command, a list, a pipeline or a substitution); allow it once or for the session", errBadAnswer, c.command)
	}
	return rule, nil
}

// errCriticalOnce refuses a session grant of a critical action: the card
// offers no such button; a hand-made request gets told why.
var errCriticalOnce = fmt.Errorf("%w: a critical action can only be allowed once", errBadAnswer)

// resolveLocal answers a card of this process's turns. local is false
// when the card is not this process's to answer: remote when the page
// showed it from another process's turn, else when nothing here knows it.
func (a *approvals) resolveLocal(id string, resp approval.Response) (local, remote bool, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	c := a.shown[id]
	if resp.Choice == approval.AllowSession && c != nil && c.severity == safety.SeverityCritical.String() {
		return true, false, errCriticalOnce
	}
	if c != nil && c.remote {
		return false, true, nil
	}
	err = a.manager.Resolve(id, resp)
	if errors.Is(err, approval.ErrUnknownRequest) && c != nil {
		if c.early != nil {
			return true, false, fmt.Errorf("%w: %s was already answered", approval.ErrStale, id)
		}
		c.early = &resp // applied by notify on registration
		return true, false, nil
	}
	return !errors.Is(err, approval.ErrUnknownRequest), false, err
}
