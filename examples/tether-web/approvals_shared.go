package main

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/safety"
)

// publishWait bounds how long an answer to another process's card waits
// for that process to publish the request. The card is in the session's
// stored events a moment before its turn registers the request, so a
// quick click on another process's page can arrive first.
const publishWait = 30 * time.Second

// resolveShared answers a request another process published; the board
// arbitrates, so the first answer from any process wins. seen says this
// process's pages show the card (from the session's stored events): its
// request is then known to exist, and an answer that arrives before the
// request is published waits for it, as an early answer to a local card
// waits for the Manager.
func (a *approvals) resolveShared(ctx context.Context, id string, resp approval.Response, seen bool) error {
	if resp.Choice == approval.AllowSession && !seen {
		// No card here says how severe it is; the published request does.
		pending, err := a.board.Pending(ctx)
		if err != nil {
			return err
		}
		if i := slices.IndexFunc(pending, func(r approval.Request) bool { return r.ID == id }); i >= 0 && pending[i].Severity >= safety.SeverityCritical {
			return errCriticalOnce
		}
	}
	err := a.board.Resolve(ctx, id, resp)
	if !seen || !errors.Is(err, approval.ErrUnknownRequest) {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, publishWait)
	defer cancel()
	for pending, werr := range a.board.Watch(ctx) {
		if werr != nil {
			continue // Watch retries at the next change or poll
		}
		if slices.ContainsFunc(pending, func(r approval.Request) bool { return r.ID == id }) {
			return a.board.Resolve(ctx, id, resp)
		}
		if !a.isShown(id) {
			break // resolved meanwhile: cancelled, timed out, answered
		}
	}
	return err
}

// isShown reports whether a card is on screen and not yet resolved.
func (a *approvals) isShown(id string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.shown[id] != nil
}
