package mcp

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// A server that takes its directories from the client's roots (the
// reference filesystem server started with no directory, as editors start
// it) asks for them with roots/list after initialization and applies the
// answer asynchronously. A first call sent at once can reach it before
// then and be refused ("access denied"). Nothing in the protocol says when
// the server has applied the roots, and most servers never ask, so the
// client does not hold every first call back. Instead:
//
//   - the first tool call of a session whose server answered it with an
//     error, while the client offers roots, waits (at most rootsAskWait)
//     for the server to have asked for them;
//   - if it has asked, the call is sent again, up to len(rootsRetryDelays)
//     more times, after each delay, until the server answers without an
//     error. A refused call did nothing, which is what makes the retry
//     safe; a call that fails for another reason fails the same way again.
//
// Only the session's first call is ever retried, so the cost is bounded
// and paid once: a few seconds at most, and only on a first call that
// failed anyway.

// rootsAskWait bounds the wait for a server's first roots/list.
const rootsAskWait = 2 * time.Second

// rootsRetryDelays are the waits before each resend of a refused first call.
var rootsRetryDelays = []time.Duration{100 * time.Millisecond, 300 * time.Millisecond, 600 * time.Millisecond, time.Second, 2 * time.Second}

// rootsState records whether the server has asked for the roots and
// whether the session's first call has been made.
type rootsState struct {
	once      sync.Once
	asked     chan struct{} // closed when the server first asks for roots
	firstDone atomic.Bool
}

func newRootsState() *rootsState { return &rootsState{asked: make(chan struct{})} }

func (s *rootsState) markAsked() { s.once.Do(func() { close(s.asked) }) }

// firstCallCaller is the session as tools see it: it retries a first call
// refused before the server applied the roots (see above).
type firstCallCaller struct {
	next  caller
	state *rootsState
	roots func() int // how many roots the client offers now
}

func (f firstCallCaller) CallTool(ctx context.Context, params *sdk.CallToolParams) (*sdk.CallToolResult, error) {
	first := f.state.firstDone.CompareAndSwap(false, true)
	res, err := f.next.CallTool(ctx, params)
	if !first || f.roots() == 0 || !refused(ctx, res, err) {
		return res, err
	}
	wait := time.NewTimer(rootsAskWait)
	defer wait.Stop()
	select {
	case <-f.state.asked:
	case <-wait.C:
		return res, err // the server does not read roots: its answer stands
	case <-ctx.Done():
		return res, err
	}
	for _, d := range rootsRetryDelays {
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return res, err
		}
		res, err = f.next.CallTool(ctx, params)
		if !refused(ctx, res, err) {
			break
		}
	}
	return res, err
}

// refused reports whether the server answered with an error (a tool error
// or a JSON-RPC error), as opposed to the caller giving up.
func refused(ctx context.Context, res *sdk.CallToolResult, err error) bool {
	if err != nil {
		return ctx.Err() == nil
	}
	return res != nil && res.IsError
}
