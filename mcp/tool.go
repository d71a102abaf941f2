package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
)

// Decider is implemented by tools whose calls need a decision before they
// run. An agent's tool runner reads it to route a call through the same
// approval path as a shell command:
//
//	t, name, _ := reg.Lookup(call.Name)
//	if d, ok := t.(mcp.Decider); ok {
//		switch dec, reasons := d.Decision(); dec {
//		case safety.Deny:    // refuse, tell the model reasons
//		case safety.Confirm: // ask the human; on yes run with mcp.WithApproved(ctx)
//		}
//	}
//
// A Tool enforces its own decision as well (through its Confirmer, or by
// refusing when there is none), so a runner that ignores Decider is still
// safe; WithApproved keeps a runner that did ask from asking twice.
type Decider interface {
	Decision() (safety.Decision, []string)
}

// DecisionOf resolves name as the registry would and returns the tool's
// decision when it is a Decider. Tools that are not (built-ins, which the
// safety policy judges by their command or paths) report ok=false.
func DecisionOf(reg *tools.Registry, name string) (dec safety.Decision, reasons []string, ok bool) {
	t, _, err := reg.Lookup(name)
	if err != nil {
		return 0, nil, false
	}
	d, ok := t.(Decider)
	if !ok {
		return 0, nil, false
	}
	dec, reasons = d.Decision()
	return dec, reasons, true
}

// caller is the part of *sdk.ClientSession a Tool needs.
type caller interface {
	CallTool(ctx context.Context, params *sdk.CallToolParams) (*sdk.CallToolResult, error)
}

// Tool is one tool of a connected MCP server, adapted to tools.Tool. Its
// name is "<server>__<tool>" with characters models cannot send replaced;
// calls are forwarded under the server's own name.
type Tool struct {
	spec        tools.Spec
	server      string
	remote      string
	annotations *sdk.ToolAnnotations
	decision    safety.Decision
	reasons     []string
	// byAnnotation: Allow rests on the server's read-only hint alone, so
	// each call's arguments are checked for secrets (see Execute).
	byAnnotation bool
	args         argJudge // judges its arguments as paths (see argpaths.go)
	session      caller
	confirm      Confirmer
	logger       *slog.Logger
	maxOutput    int
	timeout      time.Duration
	logLevel     sdk.LoggingLevel
	progress     *progressRoutes
	wire         *wire
	// outputSchema is the server's schema of the tool's structured
	// result, kept for hosts (see OutputSchema).
	outputSchema any
	onMedia      func(context.Context, Media)
	// local runs the call in the client instead of sending it as
	// tools/call (the resource tools); nil for a server's own tools.
	local func(ctx context.Context, args json.RawMessage) (tools.Result, error)
}

var _ Decider = (*Tool)(nil)

// Describe returns the tool's spec under its qualified name.
func (t *Tool) Describe() tools.Spec { return t.spec }

// Server returns the name of the server the tool belongs to.
func (t *Tool) Server() string { return t.server }

// RemoteName returns the tool's name as the server spells it.
func (t *Tool) RemoteName() string { return t.remote }

// Annotations returns the server's hints about the tool, or nil. They are
// the server's claims, not facts.
func (t *Tool) Annotations() *sdk.ToolAnnotations { return t.annotations }

// OutputSchema returns the server's JSON Schema of the tool's structured
// result, or nil when it declared none. A result's structured content is
// in the text the model gets.
func (t *Tool) OutputSchema() any { return t.outputSchema }

// Decision says whether a call may run as is (Allow), needs a human's
// confirmation (Confirm) or never runs (Deny), with the reasons.
func (t *Tool) Decision() (safety.Decision, []string) {
	return t.decision, append([]string(nil), t.reasons...)
}

// Effects declares a call from the server's annotations and the tool's
// decision under the host's rules. The agent judges the call by them: a
// read-only tool the rules allow runs unasked, Deny is refused, anything
// else is confirm-level. The server's hints are claims, not facts, so they
// never loosen the decision; a call that runs on a read-only annotation
// and whose arguments lead to a secret is confirm-level (see argpaths.go).
func (t *Tool) Effects(_ context.Context, call tools.Call) (tools.Effects, error) {
	e := tools.Effects{Decision: t.decision, Reasons: append([]string(nil), t.reasons...)}
	if why, ok := t.secretArgument(call.Arguments); ok {
		e.Decision, e.Reasons = safety.Confirm, append([]string{why}, e.Reasons...)
	}
	if a := t.annotations; a != nil {
		e.ReadOnly = classify(a).readOnly && t.decision == safety.Allow
		e.Idempotent = a.IdempotentHint
		e.Destructive = a.DestructiveHint == nil || *a.DestructiveHint
		e.OpenWorld = a.OpenWorldHint == nil || *a.OpenWorldHint
	} else {
		e.Destructive, e.OpenWorld = true, true // the MCP defaults
	}
	return e, nil
}

// secretArgument says why a call allowed by the tool's read-only annotation
// alone needs a human after all: the server's read-only claim says nothing
// about whose files it reads, and naming a secret needs a human, as a
// local read would.
func (t *Tool) secretArgument(args json.RawMessage) (string, bool) {
	if !t.byAnnotation {
		return "", false
	}
	arg, m, ok := t.args.secret(args)
	if !ok {
		return "", false
	}
	return fmt.Sprintf("argument %q leads to a file that %s; a read-only annotation cannot approve reading it", arg, m.Reason()), true
}

// Execute forwards the call to the server after the tool's decision is
// enforced. A tool-level failure (the server's isError) comes back as a
// Result with IsError; a refused call or a broken connection as an error.
func (t *Tool) Execute(ctx context.Context, call tools.Call) (tools.Result, error) {
	args := call.Arguments
	if len(strings.TrimSpace(string(args))) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	call.Arguments = args
	req := ConfirmRequest{Tool: t.spec.Name, Server: t.server, Call: call, Decision: t.decision, Reasons: t.reasons}
	if why, ok := t.secretArgument(args); ok {
		req.Decision, req.Reasons = safety.Confirm, append([]string{why}, t.reasons...)
	}
	if err := gate(ctx, t.confirm, req); err != nil {
		logDecision(ctx, t.logger, "mcp tool call refused", req, err)
		return tools.Result{}, err
	}
	if req.Decision == safety.Confirm {
		logDecision(ctx, t.logger, "mcp tool call confirmed", req, nil)
	}
	if t.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, t.timeout,
			fmt.Errorf("no answer from MCP server %q within its call timeout of %s", t.server, t.timeout))
		defer cancel()
	}
	if t.local != nil {
		res, err := t.local(ctx, args)
		if err != nil && ctx.Err() != nil {
			return tools.Result{}, fmt.Errorf("%s: %w", t.spec.Name, context.Cause(ctx))
		}
		return res, err
	}
	params := &sdk.CallToolParams{Name: t.remote, Arguments: args}
	if t.logLevel != "" {
		params.Meta = sdk.Meta{sdk.MetaKeyLogLevel: t.logLevel}
	}
	var tok string
	var rt *route
	if t.progress != nil {
		var done func()
		tok, rt, done = t.progress.add(ctx, t.spec.Name)
		defer done()
		params.SetProgressToken(tok)
		if t.wire != nil {
			t.wire.track(tok)
		}
	}
	res, err := t.session.CallTool(ctx, params)
	if rt != nil {
		if err == nil && t.wire != nil {
			rt.wait(ctx, t.wire.arrivedFor(tok))
		}
		if t.wire != nil {
			t.wire.forget(tok)
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return tools.Result{}, fmt.Errorf("%s: %w", t.spec.Name, context.Cause(ctx))
		}
		return tools.Result{}, fmt.Errorf("MCP server %q failed to run %s: %w", t.server, t.remote, err)
	}
	deliverMedia(ctx, t.onMedia, res, t.server, t.spec.Name)
	return convertResult(res, t.server, t.maxOutput), nil
}

func logDecision(ctx context.Context, l *slog.Logger, msg string, req ConfirmRequest, err error) {
	if l == nil {
		return
	}
	attrs := []any{"tool", req.Tool, "decision", req.Decision.String(), "reasons", req.Reasons}
	if req.Server != "" {
		attrs = append(attrs, "server", req.Server)
	}
	if err != nil {
		attrs = append(attrs, "error", err.Error())
		l.WarnContext(ctx, msg, attrs...)
		return
	}
	l.InfoContext(ctx, msg, attrs...)
}

// decide applies rules and annotations to one tool (see Rules).
// Annotations are the server's own claims, so they classify a tool and
// never grant more than the host configured: only a read-only claim that
// is closed-world (openWorldHint false) lets calls run unasked; a read-only
// tool that reaches the open world (the hint true, or absent, which the
// spec reads as true) runs unasked only when the host trusts this server's
// open-world tools (AllowOpenWorld) or a rule names it; contradictory hints
// (read-only and destructive) count as the dangerous reading. A server
// started with the host's whole environment (inheritEnv) could answer a
// "read-only" call with an API key, so its hints count for nothing.
func decide(r Rules, server, remote string, ann *sdk.ToolAnnotations, inheritEnv bool) (safety.Decision, []string) {
	if p, ok := match(r.Deny, server, remote); ok {
		return safety.Deny, []string{fmt.Sprintf("deny rule %q matches MCP tool %s/%s", p, server, remote)}
	}
	if p, ok := match(r.Allow, server, remote); ok {
		return safety.Allow, []string{fmt.Sprintf("allow rule %q matches MCP tool %s/%s", p, server, remote)}
	}
	class := classify(ann)
	why := "is not annotated read-only"
	switch {
	case class.readOnly && r.IgnoreAnnotations:
		why = "is annotated read-only, but annotations from this server are ignored"
	case class.readOnly && inheritEnv:
		why = "is annotated read-only, but the server was given the host's whole environment (InheritEnv), secrets included"
	case class.readOnly && !class.openWorld:
		return safety.Allow, []string{fmt.Sprintf("MCP server %q annotates %s as read-only and closed-world", server, remote)}
	case class.readOnly && r.AllowOpenWorld:
		return safety.Allow, []string{fmt.Sprintf("MCP server %q annotates %s as read-only, and the host trusts this server's open-world tools", server, remote)}
	case class.readOnly:
		why = "is annotated read-only but open-world (it reaches outside this machine; openWorldHint is true or absent), and the host has not trusted this server's open-world tools (AllowOpenWorld)"
	case class.contradictory:
		why = "is annotated both read-only and destructive, which counts as destructive"
	}
	return safety.Confirm, []string{fmt.Sprintf("MCP tool %s/%s %s and no rule allows it", server, remote, why)}
}

// claims is what a tool's annotations say of it, read conservatively.
type claims struct {
	readOnly      bool // claims to change nothing, without contradicting itself
	openWorld     bool // reaches outside (the spec's default)
	contradictory bool // read-only and destructive at once
}

func classify(ann *sdk.ToolAnnotations) claims {
	if ann == nil {
		return claims{openWorld: true}
	}
	destructive := ann.DestructiveHint != nil && *ann.DestructiveHint
	return claims{
		readOnly:      ann.ReadOnlyHint && !destructive,
		openWorld:     ann.OpenWorldHint == nil || *ann.OpenWorldHint,
		contradictory: ann.ReadOnlyHint && destructive,
	}
}

// maxNameLen is the tool-name limit OpenAI-compatible servers enforce.
const maxNameLen = 64

// localNames maps a server's tool names to names models can send,
// "<server>__<tool>": every character outside [A-Za-z0-9_-] becomes '_'.
// A name that would then collide with another, or that is too long for the
// 64-byte limit, is cut and given a hash of the original, so distinct
// remote names always stay distinct.
func localNames(server string, remotes []string) map[string]string {
	room := maxNameLen - len(server) - len(tools.NamespaceSep)
	clean := make(map[string]string, len(remotes))
	count := map[string]int{}
	for _, r := range remotes {
		c := sanitize(r)
		clean[r] = c
		count[c]++
	}
	out := make(map[string]string, len(remotes))
	for _, r := range remotes {
		name := clean[r]
		if count[name] > 1 || len(name) > room {
			h := fnv.New32a()
			h.Write([]byte(r))
			suffix := fmt.Sprintf("_%08x", h.Sum32())
			name = name[:min(len(name), max(room-len(suffix), 1))] + suffix
		}
		out[r] = server + tools.NamespaceSep + name
	}
	return out
}

func sanitize(remote string) string {
	var b strings.Builder
	for _, r := range remote {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "tool"
	}
	return b.String()
}

// ErrBadSchema: a server's tool has an input schema Tether cannot use.
var ErrBadSchema = errors.New("mcp: unusable input schema")

// inputSchema returns the tool's schema as JSON, an empty object schema
// when the server gave none.
func inputSchema(t *sdk.Tool) (json.RawMessage, error) {
	if t.InputSchema == nil {
		return json.RawMessage(`{"type":"object"}`), nil
	}
	b, err := json.Marshal(t.InputSchema)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrBadSchema, t.Name, err)
	}
	var probe map[string]any
	if err := json.Unmarshal(b, &probe); err != nil || probe == nil {
		return nil, fmt.Errorf("%w: %s: the schema is not a JSON object", ErrBadSchema, t.Name)
	}
	return b, nil
}
