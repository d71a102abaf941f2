package main

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/safety"
)

// approvals connects approval cards to the agent. The executor shows a
// card (ApprovalRequested) just before it registers the request with the
// Manager, so a quick click can arrive first; such an early answer is
// kept and applied the moment the request is registered.
type approvals struct {
	manager *approval.Manager
	logger  *slog.Logger

	// mu guards shown: the ids of cards on screen and not yet resolved,
	// each with the severity it showed and an answer that came before
	// the Manager registered the request.
	mu    sync.Mutex
	shown map[string]*card
}

type card struct {
	severity string
	early    *approval.Response
}

func newApprovals(timeout time.Duration, logger *slog.Logger) *approvals {
	a := &approvals{logger: logger, shown: map[string]*card{}}
	a.manager = &approval.Manager{Timeout: timeout, Notify: a.notify}
	return a
}

// announce notes a card as it is sent to the page.
func (a *approvals) announce(r event.ApprovalRequested) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.shown[r.ID] = &card{severity: r.Display.Severity}
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
	// Choice is allow_once, allow_session or deny.
	Choice  string `json:"choice"`
	Message string `json:"message,omitempty"` // told to the model with a deny
}

var errBadAnswer = errors.New("bad approval answer")

// resolve applies the page's answer to a card.
func (a *approvals) resolve(ans answer) error {
	if ans.ID == "" {
		return fmt.Errorf(`%w: "id" is required: the id of the approval card`, errBadAnswer)
	}
	var resp approval.Response
	switch ans.Choice {
	case "allow_once":
		resp = approval.Response{Choice: approval.AllowOnce, Reason: "allowed once on the web page"}
	case "allow_session":
		resp = approval.Response{Choice: approval.AllowSession, Reason: "allowed for the session on the web page"}
	case "deny":
		resp = approval.Response{Choice: approval.Deny, Reason: "refused on the web page", Message: ans.Message}
	default:
		return fmt.Errorf("%w: choice %q: want allow_once, allow_session or deny", errBadAnswer, ans.Choice)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	c := a.shown[ans.ID]
	if resp.Choice == approval.AllowSession && c != nil && c.severity == safety.SeverityCritical.String() {
		// The card offers no such button; a hand-made request gets told why.
		return fmt.Errorf("%w: a critical action can only be allowed once", errBadAnswer)
	}
	err := a.manager.Resolve(ans.ID, resp)
	if errors.Is(err, approval.ErrUnknownRequest) && c != nil {
		if c.early != nil {
			return fmt.Errorf("%w: %s was already answered", approval.ErrStale, ans.ID)
		}
		c.early = &resp // applied by notify on registration
		err = nil
	}
	if err == nil {
		a.logger.Info("web: approval answered", "id", ans.ID, "choice", ans.Choice)
	}
	return err
}
