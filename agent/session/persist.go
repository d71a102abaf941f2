package session

import (
	"context"
	"errors"
	"fmt"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/agent/event"
)

// persistingSink is a session's sink: it stores every event before the
// host's sink sees it, and the conversation between iterations, so that a
// worker killed in the middle of a turn leaves behind both what its host
// showed and the context the next turn continues from.
type persistingSink struct {
	m    *Manager
	id   string
	host event.Sink // nil when the host has none
}

var _ agent.IterationSink = (*persistingSink)(nil)

// Emit persists ev first: what a UI shows is always in the log, also
// when the turn was cancelled.
func (p *persistingSink) Emit(ctx context.Context, ev event.Event) error {
	if _, err := p.m.store.AppendEvent(context.WithoutCancel(ctx), p.id, p.m.now(), ev); err != nil {
		return err
	}
	if p.host != nil {
		return p.host.Emit(ctx, ev)
	}
	return nil
}

// SaveIteration stores the conversation so far as the session's state,
// without counting a run: Run counts the turn when it ends. A turn
// whose lease was lost saves nothing, since another worker may own the
// session's state now; the turn is stopping anyway.
func (p *persistingSink) SaveIteration(ctx context.Context, st agent.IterationState) error {
	if cause := context.Cause(ctx); errors.Is(cause, errLeaseLost) {
		return nil
	}
	err := p.m.store.SaveState(context.WithoutCancel(ctx), p.id, State{Messages: st.History, Memory: st.Memory}, 0, p.m.now())
	if err != nil {
		return fmt.Errorf("session %q: saving the conversation after iteration %d: %w", p.id, st.Iteration, err)
	}
	return nil
}
