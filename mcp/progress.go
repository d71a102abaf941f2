package mcp

import (
	"context"
	"encoding/json"
	"fmt"
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
// the notifications, of any server, to the calling context's
// tools.Reporter with their progress, total and message, so a UI sees a
// remote command's output as it runs, exactly as for a local one.
//
// Invariant: every notification the server sent before its result is
// reported before Execute returns, and none after. The wire counts the
// notifications in the order the server sent them; the SDK hands them to
// deliver on a queue the result can overtake, so Execute waits until
// deliver has caught up with the wire's count.

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

// progressWait bounds the wait for notifications the wire counted: they
// are already read, so only a Reporter that blocks (or an SDK that drops
// a malformed notification) could make it end this way.
const progressWait = 5 * time.Second

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
		return // not a token of ours: the wire did not count it for a call
	}
	r.report(progressOf(req.Params))
	r.mu.Lock()
	r.delivered++
	close(r.changed)
	r.changed = make(chan struct{})
	r.mu.Unlock()
}

// progressOf turns a notification into a report: a Tether server's
// structured report when present, and always the notification's own
// progress, total and message.
func progressOf(n *sdk.ProgressNotificationParams) tools.Progress {
	var pr tools.Progress
	if m, ok := n.Meta[metaKey]; ok {
		if b, err := json.Marshal(m); err == nil {
			_ = json.Unmarshal(b, &pr) // a foreign _meta is not ours to validate
		}
	}
	pr.Done, pr.Total, pr.Message = n.Progress, n.Total, n.Message
	return pr
}

// serverReporter returns a Reporter that forwards a tool's progress to the
// client as notifications, or nil when the client gave no token.
func serverReporter(ctx context.Context, req *sdk.CallToolRequest) tools.Reporter {
	if req == nil || req.Params == nil || req.Session == nil {
		return nil
	}
	tok := req.Params.GetProgressToken()
	if tok == nil {
		return nil
	}
	var seq atomic.Int64
	return func(p tools.Progress) {
		msg := strings.TrimSpace(p.Output)
		if msg == "" && p.Path != "" {
			msg = fmt.Sprintf("%s lines %d-%d", p.Path, p.StartLine, p.EndLine)
		}
		var meta map[string]any
		if b, err := json.Marshal(p); err == nil {
			_ = json.Unmarshal(b, &meta)
		}
		// A failed send is the client's loss only: the tool goes on.
		_ = req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{
			ProgressToken: tok, Progress: float64(seq.Add(1)), Message: msg, Meta: sdk.Meta{metaKey: meta}})
	}
}
