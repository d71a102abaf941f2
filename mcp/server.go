package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
)

// ServeOptions configure NewServer. The zero value serves every tool of
// the registry with read-only tools allowed and everything else refused
// for lack of an approver.
type ServeOptions struct {
	// Name and Version identify the server to clients; defaults "tether"
	// and "v0".
	Name, Version string
	// Instructions are sent to clients at initialisation.
	Instructions string

	// Policy judges every call of a built-in command or file tool (see
	// ActionOf) before it runs. Nil: read-only tools are allowed and every
	// other tool needs confirmation.
	Policy *safety.Policy
	// Confirm is asked about confirm-level calls; nil denies them (the
	// client on the other end is another agent, not a human).
	Confirm Confirmer
	// Action maps a call to the action the Policy judges; nil uses
	// ActionOf. Return ok=false for a call it cannot describe: such a
	// call is allowed only for a read-only tool and otherwise needs
	// confirmation.
	Action func(spec tools.Spec, call tools.Call) (a safety.Action, ok bool)
	// Cwd returns where a command without an explicit cwd runs (the
	// terminal Shell's Cwd), so the Policy judges the right directory;
	// nil means the workspace root.
	Cwd func() string
	// Logger receives every decision that was not a plain allow.
	Logger *slog.Logger
}

// NewServer exposes the tools of reg over MCP, each call passing Tether's
// safety checks first: the Policy's verdict on the call's command or paths
// (after the registry normalised its arguments, so what is checked is what
// runs), then Confirm for confirm-level calls. Refusals reach the client
// as tool errors (isError) with the reasons, so a model can adjust.
//
// The server lists the tools reg holds when NewServer is called.
func NewServer(reg *tools.Registry, opts ServeOptions) (*sdk.Server, error) {
	if reg == nil {
		return nil, errors.New("mcp: NewServer: nil registry")
	}
	name, version := opts.Name, opts.Version
	if name == "" {
		name = "tether"
	}
	if version == "" {
		version = "v0"
	}
	srv := sdk.NewServer(&sdk.Implementation{Name: name, Version: version},
		&sdk.ServerOptions{Instructions: opts.Instructions, Logger: opts.Logger})
	// guarded holds each tool behind its check. Running calls through a
	// Registry normalises their arguments (aliases, case, double-encoding)
	// before the check, so what is checked is exactly what the tool gets.
	guarded := &tools.Registry{Timeout: reg.Timeout, Logger: reg.Logger}
	for _, t := range reg.Tools() {
		spec := t.Describe()
		params := spec.Parameters
		if len(params) == 0 {
			params = json.RawMessage(`{"type":"object"}`)
		}
		st := &sdk.Tool{
			Name:         spec.Name,
			Title:        titleOf(spec.Name),
			Description:  spec.Description,
			InputSchema:  params,
			Annotations:  annotationsOf(spec),
			OutputSchema: metaSchema(),
		}
		g := &guard{tool: t, spec: spec, opts: &opts}
		if err := guarded.Register(tools.Func{Spec: spec, Run: g.run}); err != nil {
			return nil, fmt.Errorf("mcp: serving %s: %w", spec.Name, err)
		}
		srv.AddTool(st, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			args := json.RawMessage("{}")
			if req.Params != nil && len(req.Params.Arguments) > 0 {
				args = req.Params.Arguments
			}
			if r := serverReporter(ctx, req); r != nil {
				ctx = tools.WithReporter(ctx, r)
			}
			return toMCPResult(guarded.Execute(ctx, tools.Call{Name: spec.Name, Arguments: args})), nil
		})
	}
	return srv, nil
}

// ServeStdio serves srv on this process's stdin and stdout until the
// client disconnects or ctx is done. A line that is not a JSON-RPC
// message is answered with a JSON-RPC error and the session goes on.
func ServeStdio(ctx context.Context, srv *sdk.Server) error {
	return srv.Run(ctx, stdioServerTransport(os.Stdin, os.Stdout))
}

// Handler serves srv over streamable HTTP at any path, and over the
// legacy HTTP+SSE transport of protocol version 2024-11-05 at paths
// ending in "/sse" (the event stream, and the session endpoint it names
// for the client's POSTs), as the spec asks of servers that keep older
// clients working; mount it on any mux. It does no authentication: listen
// on loopback, or put it behind a handler that checks credentials, since
// whoever reaches it can use the tools.
func Handler(srv *sdk.Server) http.Handler {
	get := func(*http.Request) *sdk.Server { return srv }
	streamable := sdk.NewStreamableHTTPHandler(get, nil)
	sse := sdk.NewSSEHandler(get, nil)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/sse") {
			sse.ServeHTTP(w, r)
			return
		}
		streamable.ServeHTTP(w, r)
	})
}

// guard runs one registry tool behind the safety checks.
type guard struct {
	tool tools.Tool
	spec tools.Spec
	opts *ServeOptions
}

func (g *guard) run(ctx context.Context, call tools.Call) (tools.Result, error) {
	if err := g.check(ctx, call); err != nil {
		return tools.Result{}, err
	}
	return g.tool.Execute(ctx, call)
}

// check decides one call and enforces the decision.
func (g *guard) check(ctx context.Context, call tools.Call) error {
	req := ConfirmRequest{Tool: g.spec.Name, Call: call}
	actionOf := g.opts.Action
	if actionOf == nil {
		actionOf = ActionOf
	}
	a, ok := actionOf(g.spec, call)
	switch {
	case ok && g.opts.Policy != nil:
		if a.Command != "" && a.Dir == "" && g.opts.Cwd != nil {
			a.Dir = g.opts.Cwd()
		}
		as := g.opts.Policy.Assess(ctx, a)
		req.Decision, req.Reasons, req.Assessment = as.Decision, as.Reasons, &as
		if as.Decision == safety.Deny {
			err := &DeniedError{Tool: g.spec.Name, By: "policy", Reasons: as.Reasons}
			logDecision(ctx, g.opts.Logger, "mcp server refused call", req, err)
			return err
		}
	case g.spec.ReadOnly:
		req.Decision = safety.Allow
	default:
		req.Decision = safety.Confirm
		why := "it may change files or run programs"
		if g.opts.Policy != nil {
			why = "Tether cannot tell what it will touch"
		}
		req.Reasons = []string{fmt.Sprintf("%s is not read-only and %s", g.spec.Name, why)}
	}
	err := gate(ctx, g.opts.Confirm, req)
	switch {
	case err != nil:
		logDecision(ctx, g.opts.Logger, "mcp server refused call", req, err)
	case req.Decision == safety.Confirm:
		logDecision(ctx, g.opts.Logger, "mcp server call confirmed", req, nil)
	}
	return err
}

// toMCPResult turns a registry result into an MCP one; the structured
// Meta travels in _meta for Tether clients and UIs.
// toMCPResult sends the text to the client's model and tools.Meta twice:
// as structured content (matching the declared output schema, for any
// client) and in _meta (for a Tether client, which rebuilds Result.Meta).
// Images go as image content after the text.
func toMCPResult(res tools.Result) *sdk.CallToolResult {
	out := &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: res.Text}}, IsError: res.IsError}
	for _, img := range res.Images {
		out.Content = append(out.Content, &sdk.ImageContent{MIMEType: img.MIMEType, Data: img.Data})
	}
	m := map[string]any{}
	if b, err := json.Marshal(res.Meta); err == nil {
		_ = json.Unmarshal(b, &m)
	}
	out.StructuredContent = m
	if len(m) > 0 {
		out.Meta = sdk.Meta{metaKey: m}
	}
	return out
}
