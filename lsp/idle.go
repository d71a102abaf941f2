package lsp

import (
	"context"
	"time"
)

// Servers report loading a project with work-done progress ($/progress
// begin … end); the client tracks the tokens in flight so callers can wait
// for a server to be ready before trusting its answers.

func (c *Client) progress(token, kind string) {
	c.progMu.Lock()
	defer c.progMu.Unlock()
	switch kind {
	case "begin":
		c.active[token] = true
	case "end":
		delete(c.active, token)
	}
	c.lastProg = time.Now()
	close(c.progSig)
	c.progSig = make(chan struct{})
}

// WaitIdle waits until the server has no work-done progress running and
// none has been reported for quiet (servers report loading a project this
// way; an answer given before it ends can be partial), or until ctx is
// done. It returns ctx's error in that case.
func (c *Client) WaitIdle(ctx context.Context, quiet time.Duration) error {
	for {
		c.progMu.Lock()
		busy, since, sig := len(c.active) > 0, time.Since(c.lastProg), c.progSig
		c.progMu.Unlock()
		if !busy && since >= quiet {
			return nil
		}
		wait := quiet - since
		if busy || wait <= 0 {
			wait = quiet
		}
		t := time.NewTimer(wait)
		select {
		case <-sig:
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return context.Cause(ctx)
		case <-c.conn.done:
			t.Stop()
			return c.conn.closedErr()
		}
		t.Stop()
	}
}
