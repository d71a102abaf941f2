package main

import (
	"context"
	"fmt"
	"sync"
)

// cancelRequested is the cause a cancel request gives to the prompts it
// ends, so the run's run_finished event says who stopped it.
type cancelRequested struct{ line int }

func (c cancelRequested) Error() string {
	return fmt.Sprintf("cancelled by the host (cancel request on line %d)", c.line)
}

// promptCanceller lets a {"type":"cancel"} request end every prompt read
// before it: the running one is cancelled (its model stream, its command's
// process group and its pending approvals end with it) and the queued ones
// never start. Which prompts a cancel reaches depends only on the order of
// input lines, never on how far the worker has got, so a host that sends a
// prompt and at once a cancel knows the prompt will not run.
//
// Invariant: every prompt pushed on the queue was counted by queued before
// the reader read the next line, and is counted off by start when the
// worker takes it; both happen under mu, as does reading cancelLine.
type promptCanceller struct {
	mu         sync.Mutex
	queued     int                     // prompts read and not yet started
	cancelLine int                     // the last cancel's input line; prompts read before it must not run
	running    context.CancelCauseFunc // the running prompt's, or nil
}

// queue counts a prompt the reader is about to push.
func (c *promptCanceller) queue() {
	c.mu.Lock()
	c.queued++
	c.mu.Unlock()
}

// start is called by the worker for the prompt read on line. It returns the
// context to run it with and a func to call when it ends, or ok false and
// the cancel's line when a cancel read after the prompt has already
// dropped it.
func (c *promptCanceller) start(ctx context.Context, line int) (run context.Context, done func(), cancelLine int, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.queued--
	if line < c.cancelLine {
		return nil, nil, c.cancelLine, false
	}
	run, cancel := context.WithCancelCause(ctx)
	c.running = cancel
	return run, func() {
		c.mu.Lock()
		c.running = nil
		c.mu.Unlock()
		cancel(nil)
	}, 0, true
}

// cancel ends the running prompt and drops the queued ones, all of them
// read before line. It reports false when there was nothing to cancel.
func (c *promptCanceller) cancel(line int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.running == nil && c.queued == 0 {
		return false
	}
	c.cancelLine = line
	if c.running != nil {
		c.running(cancelRequested{line: line})
	}
	return true
}
