package agent

import (
	"context"
	"fmt"
	"slices"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/llm"
)

// IterationSink is a Sink that also keeps a run's conversation as the run
// goes, so that a process killed in the middle of a turn loses none of
// the iterations it completed. Before every model call but the first,
// the executor passes it the conversation and memory so far; a later
// Input built from them continues the turn where it stopped. The session
// package's stores implement it; a host persisting Result.History only at
// the end of a turn needs nothing more than Sink.
//
// The state handed over is a snapshot: the implementation may keep it,
// but must not modify the messages. An error stops the run at the next
// safe point, as an Emit error does.
type IterationSink interface {
	event.Sink
	SaveIteration(ctx context.Context, st IterationState) error
}

// IterationState is a run's conversation between two iterations.
type IterationState struct {
	// Iteration counts the iterations completed so far in the run (≥ 1).
	Iteration int
	// History is the conversation so far, without system messages, like
	// Result.History: the earlier turns, this turn's prompt, and every
	// model answer and tool result since.
	History []llm.Message
	// Memory is the session memory so far, like Result.Memory.
	Memory *Memory
}

// saveIteration hands the conversation so far to the Config's sink when
// it is an IterationSink; a failure is recorded like a sink failure, so
// the loop stops rather than go on with actions whose context could not
// be kept.
func (r *run) saveIteration(ctx context.Context) {
	s, ok := r.cfg.Sink.(IterationSink)
	if !ok || r.iter == 0 {
		return
	}
	st := IterationState{Iteration: r.iter, History: slices.Clone(r.history), Memory: r.memory.snapshot()}
	if err := s.SaveIteration(ctx, st); err != nil {
		r.emitter.mu.Lock()
		defer r.emitter.mu.Unlock()
		if r.emitter.err == nil {
			r.emitter.err = fmt.Errorf("%w: saving the conversation after iteration %d: %w", ErrSink, r.iter, err)
		}
	}
}
