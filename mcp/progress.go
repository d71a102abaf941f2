package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tetherdev/tether/tools"
)

// Progress travels both ways. A Tether server turns tools.Report calls of
// a running tool into MCP progress notifications when the client asked
// for them (a progress token), with the tools.Progress itself in
// _meta["tether/meta"]. A Tether client gives every call a token and hands
// the notifications to the calling context's tools.Reporter, so a UI sees
// a remote command's output as it runs, exactly as for a local one.

// progressRoutes maps the client's progress tokens to the calls that
// issued them.
type progressRoutes struct {
	next   atomic.Int64
	mu     sync.Mutex
	routes map[string]func(tools.Progress)
}

func (p *progressRoutes) add(ctx context.Context, tool string) (string, func()) {
	tok := fmt.Sprintf("tether-%d", p.next.Add(1))
	p.mu.Lock()
	if p.routes == nil {
		p.routes = map[string]func(tools.Progress){}
	}
	p.routes[tok] = func(pr tools.Progress) {
		pr.Tool = tool
		tools.Report(ctx, pr)
	}
	p.mu.Unlock()
	return tok, func() {
		p.mu.Lock()
		delete(p.routes, tok)
		p.mu.Unlock()
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
	route := p.routes[tok]
	p.mu.Unlock()
	if route == nil {
		return // a late notification for a finished call
	}
	var pr tools.Progress
	if m, ok := req.Params.Meta[metaKey]; ok {
		if b, err := json.Marshal(m); err == nil {
			_ = json.Unmarshal(b, &pr)
		}
	}
	if pr == (tools.Progress{}) {
		pr.Output = req.Params.Message
	}
	route(pr)
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
		_ = req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{
			ProgressToken: tok, Progress: float64(n.Add(1)), Message: msg, Meta: sdk.Meta{metaKey: meta}})
	}
}
