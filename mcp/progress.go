package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tetherdev/tether/tools"
)

// Progress travels both ways. A Tether server turns tools.Report calls of
// a running tool into MCP progress notifications when the client asked
// for them (a progress token), with the tools.Progress itself in
// _meta["tether/meta"]. A Tether client gives every call a token and hands
// the notifications to the calling context's tools.Reporter, so a UI sees
// a remote command's output as it runs, exactly as for a local one.

// progressKey is where a Tether server puts the number of progress
// notifications it sent for a call. The SDK hands notifications to their
// handler on a queue that a call's response can overtake, so the client
// waits (briefly) until it has delivered that many before the call
// returns: no report is lost, and none arrives after the result.
const progressKey = "tether/progress"

// progressWait bounds that wait.
const progressWait = 2 * time.Second

// progressRoutes maps the client's progress tokens to the calls that
// issued them.
type progressRoutes struct {
	next   atomic.Int64
	mu     sync.Mutex
	routes map[string]*route
}

type route struct {
	report    func(tools.Progress)
	mu        sync.Mutex
	delivered int
	changed   chan struct{} // closed and replaced on each delivery
}

func (p *progressRoutes) add(ctx context.Context, tool string) (string, *route, func()) {
	tok := fmt.Sprintf("tether-%d", p.next.Add(1))
	r := &route{changed: make(chan struct{}), report: func(pr tools.Progress) {
		pr.Tool = tool
		tools.Report(ctx, pr)
	}}
	p.mu.Lock()
	if p.routes == nil {
		p.routes = map[string]*route{}
	}
	p.routes[tok] = r
	p.mu.Unlock()
	return tok, r, func() {
		p.mu.Lock()
		delete(p.routes, tok)
		p.mu.Unlock()
	}
}

// wait blocks until n notifications were delivered, ctx is done or
// progressWait passed.
func (r *route) wait(ctx context.Context, n int) {
	timeout := time.NewTimer(progressWait)
	defer timeout.Stop()
	for {
		r.mu.Lock()
		done, ch := r.delivered >= n, r.changed
		r.mu.Unlock()
		if done {
			return
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return
		case <-timeout.C:
			return
		}
	}
}

// deliver is the client's ProgressNotificationHandler.
func (p *progressRoutes) deliver(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
	if req == nil || req.Params == nil {
		return
	}
	tok, ok := req.Params.ProgressToken.(string)
	if !ok {
		return
	}
	p.mu.Lock()
	r := p.routes[tok]
	p.mu.Unlock()
	if r == nil {
		return // a notification for a call that already returned
	}
	var pr tools.Progress
	if m, ok := req.Params.Meta[metaKey]; ok {
		if b, err := json.Marshal(m); err == nil {
			_ = json.Unmarshal(b, &pr)
		}
	}
	if reflect.ValueOf(pr).IsZero() { // Progress holds a slice: not comparable with ==
		pr.Output = req.Params.Message
	}
	r.report(pr)
	r.mu.Lock()
	r.delivered++
	close(r.changed)
	r.changed = make(chan struct{})
	r.mu.Unlock()
}

// sentCount reads the server's count of progress notifications from a
// result's _meta; 0 when absent.
func sentCount(res *sdk.CallToolResult) int {
	if res == nil {
		return 0
	}
	switch n := res.Meta[progressKey].(type) {
	case float64:
		return int(n)
	case int:
		return n
	}
	return 0
}

// serverReporter returns a Reporter that forwards a tool's progress to the
// client as notifications, or nil when the client gave no token.
// The counter counts the notifications sent.
func serverReporter(ctx context.Context, req *sdk.CallToolRequest) (tools.Reporter, *atomic.Int64) {
	if req == nil || req.Params == nil || req.Session == nil {
		return nil, nil
	}
	tok := req.Params.GetProgressToken()
	if tok == nil {
		return nil, nil
	}
	var n atomic.Int64
	return func(p tools.Progress) {
		msg := strings.TrimSpace(p.Output)
		if msg == "" && p.Path != "" {
			msg = fmt.Sprintf("%s lines %d-%d", p.Path, p.StartLine, p.EndLine)
		}
		var meta map[string]any
		if b, err := json.Marshal(p); err == nil {
			_ = json.Unmarshal(b, &meta)
		}
		seq := n.Add(1)
		if err := req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{
			ProgressToken: tok, Progress: float64(seq), Message: msg, Meta: sdk.Meta{metaKey: meta}}); err != nil {
			n.Add(-1) // not sent: the client must not wait for it
		}
	}, &n
}
