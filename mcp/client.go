package mcp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tetherdev/tether/internal/tailbuf"
	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
)

// ErrNeedsTasks: a server's tool can only be called as an MCP task, which
// Tether does not support yet; such tools are left out (see Skipped).
var ErrNeedsTasks = errors.New("mcp: tool requires MCP tasks, which Tether does not support yet")

// Client is a connection to one MCP server. It is safe for concurrent use.
type Client struct {
	cfg     ServerConfig
	client  *sdk.Client
	session *sdk.ClientSession
	stderr  *tailbuf.Buffer
	wire    *wire
	oauth   auth.OAuthHandler
	refused *refusal // what the origin guard refused during Connect
	// logLevel is the least severe server log level the Logger records;
	// empty when no logs are wanted. Set once, before any tool exists.
	logLevel sdk.LoggingLevel

	progress *progressRoutes
	refresh  sync.WaitGroup // list-change refreshes in flight
	// registering serializes Register, so a refresh after a list change
	// and a host's own call cannot interleave their unregister/register.
	registering sync.Mutex

	mu      sync.Mutex
	skipped []error
	roots   []*sdk.Root     // currently offered, as the server is told them
	rootsAt *rootsState     // whether the server asked for them; see firstCallCaller
	reg     *tools.Registry // where Register put the tools; refreshed on list changes
	closed  bool
}

// Connect starts or dials the server, performs the MCP handshake and
// returns a ready Client. Close it when done: for a command server that
// stops the process.
func Connect(ctx context.Context, cfg ServerConfig) (*Client, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	c := &Client{cfg: cfg, progress: &progressRoutes{}, wire: newWire(), rootsAt: newRootsState(), refused: &refusal{}}
	c.client = sdk.NewClient(&sdk.Implementation{Name: "tether", Version: "v0"}, c.options())
	c.client.AddReceivingMiddleware(c.answerRoots)
	if err := c.SetRoots(cfg.Roots...); err != nil {
		return nil, err
	}
	attempts, err := c.attempts(ctx, c.wire)
	if err != nil {
		return nil, err
	}
	cerr := &connectError{server: cfg.Name}
	for _, a := range attempts {
		c.refused.take() // one attempt's refusal is not the next one's cause
		s, err := c.client.Connect(ctx, a.t, nil)
		if err == nil {
			c.session = s
			break
		}
		if r := c.refused.take(); r != nil {
			err = r // the cause; what the SDK saw next is its consequence
		}
		cerr.tried, cerr.errs = append(cerr.tried, a.name), append(cerr.errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	if c.session == nil {
		cerr.stderr = c.stderrNote()
		return nil, cerr
	}
	c.startServerLog(ctx)
	if cfg.Logger != nil {
		cfg.Logger.InfoContext(ctx, "mcp server connected", "server", cfg.Name)
	}
	return c, nil
}

// options are the SDK client's handlers: progress, list changes,
// subscriptions, logging, sampling and elicitation.
func (c *Client) options() *sdk.ClientOptions {
	changed := func() { c.listChanged() }
	opts := &sdk.ClientOptions{
		Logger:                      c.cfg.Logger,
		ProgressNotificationHandler: c.progress.deliver,
		ToolListChangedHandler:      func(context.Context, *sdk.ToolListChangedRequest) { changed() },
		PromptListChangedHandler:    func(context.Context, *sdk.PromptListChangedRequest) { changed() },
		ResourceListChangedHandler:  func(context.Context, *sdk.ResourceListChangedRequest) { changed() },
		ResourceUpdatedHandler:      c.resourceUpdated,
		LoggingMessageHandler:       c.serverLog,
		// Elicitation is always offered, so that servers do not hide the
		// tools that need it; without a way to ask, the answer is decline.
		ElicitationHandler: c.elicit,
		Capabilities: &sdk.ClientCapabilities{
			RootsV2:     &sdk.RootCapabilities{ListChanged: true},
			Elicitation: &sdk.ElicitationCapabilities{Form: &sdk.FormElicitationCapabilities{}, URL: &sdk.URLElicitationCapabilities{}},
		},
	}
	if c.cfg.SamplingModel != nil {
		opts.CreateMessageHandler = c.sample
	}
	return opts
}

// Name returns the server's name (its tools' namespace).
func (c *Client) Name() string { return c.cfg.Name }

// Session returns the underlying SDK session, for anything beyond what
// Client offers.
func (c *Client) Session() *sdk.ClientSession { return c.session }

// Tools lists the server's tools, adapted to tools.Tool with their
// decisions made. A tool whose schema is unusable, or that requires MCP
// tasks, is left out; Skipped says which and why.
func (c *Client) Tools(ctx context.Context) ([]*Tool, error) {
	var remote []*sdk.Tool
	var skipped []error
	seen := map[string]bool{}
	for t, err := range c.session.Tools(ctx, nil) {
		if err != nil {
			return nil, c.fail("list tools", err)
		}
		if seen[t.Name] {
			// Calls go by name, so the server can only run one of them:
			// the first listed is offered.
			skipped = append(skipped, fmt.Errorf("mcp: server lists tool %q more than once; the first is offered", t.Name))
			continue
		}
		seen[t.Name] = true
		remote = append(remote, t)
	}
	names := make([]string, len(remote))
	for i, t := range remote {
		names[i] = t.Name
	}
	local := localNames(c.cfg.Name, names)
	var out []*Tool
	for _, rt := range remote {
		t, err := c.adapt(rt, local[rt.Name])
		if err == nil && c.wire.needsTask(rt.Name) {
			err = fmt.Errorf("%w: %s", ErrNeedsTasks, rt.Name)
		}
		if err != nil {
			skipped = append(skipped, err)
			continue
		}
		out = append(out, t)
	}
	if c.cfg.Logger != nil {
		for _, err := range skipped {
			c.cfg.Logger.WarnContext(ctx, "mcp tool skipped", "server", c.cfg.Name, "error", err.Error())
		}
	}
	c.mu.Lock()
	c.skipped = skipped
	c.mu.Unlock()
	return out, nil
}

// Skipped returns why tools were left out by the last Tools call.
func (c *Client) Skipped() []error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.skipped)
}

func (c *Client) adapt(rt *sdk.Tool, name string) (*Tool, error) {
	params, err := inputSchema(rt)
	if err != nil {
		return nil, err
	}
	desc := strings.TrimSpace(rt.Description)
	if desc == "" {
		desc = rt.Title
	}
	if desc == "" && rt.Annotations != nil {
		desc = rt.Annotations.Title
	}
	if desc == "" {
		desc = "Tool " + rt.Name
	}
	t := c.newTool(name, rt.Name, desc, params, rt.Annotations)
	t.outputSchema = rt.OutputSchema
	// Ask the registry itself whether it accepts the schema, so one odd
	// tool cannot make a whole server fail to register.
	var probe tools.Registry
	if err := probe.Register(t); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrBadSchema, rt.Name, err)
	}
	return t, nil
}

// newTool makes a Tool of this server with its decision taken.
func (c *Client) newTool(name, remote, desc string, params []byte, ann *sdk.ToolAnnotations) *Tool {
	dec, reasons := decide(c.cfg.Rules, c.cfg.Name, remote, ann, c.cfg.InheritEnv)
	_, allowRule := match(c.cfg.Rules.Allow, c.cfg.Name, remote)
	return &Tool{
		byAnnotation: dec == safety.Allow && !allowRule,
		args:         newArgJudge(c.cfg.Workspace, c.cfg.Dir),
		spec: tools.Spec{
			Name:        name,
			Description: desc + " (from MCP server " + c.cfg.Name + ")",
			Parameters:  params,
			// Read-only modes and parallel runs get only what runs unasked
			// and claims to change nothing.
			ReadOnly: dec == safety.Allow && classify(ann).readOnly,
		},
		server:      c.cfg.Name,
		remote:      remote,
		annotations: ann,
		decision:    dec,
		reasons:     reasons,
		session:     firstCallCaller{next: c.session, state: c.rootsAt, roots: func() int { return len(c.Roots()) }},
		progress:    c.progress,
		wire:        c.wire,
		confirm:     c.cfg.Confirm,
		logger:      c.cfg.Logger,
		maxOutput:   c.cfg.MaxOutput,
		timeout:     c.cfg.CallTimeout,
		logLevel:    c.logLevel,
		onMedia:     c.cfg.OnMedia,
	}
}

// Register lists the server's tools and adds them to reg under the
// server's namespace, with the resource tools when the server has
// resources, replacing whatever that namespace held. Tools a deny rule
// names are left out. It returns the registered names. When the server
// later says its tools, resources or prompts changed, reg is refreshed
// the same way and OnToolsChanged is called.
func (c *Client) Register(ctx context.Context, reg *tools.Registry) ([]string, error) {
	c.registering.Lock()
	defer c.registering.Unlock()
	ts, err := c.Tools(ctx)
	if err != nil {
		return nil, err
	}
	ts = append(ts, c.resourceTools()...)
	var list []tools.Tool
	var names []string
	for _, t := range ts {
		if t.decision == safety.Deny {
			// Never offered: a model would only waste calls on it.
			continue
		}
		list, names = append(list, t), append(names, t.spec.Name)
	}
	// The names already carry the namespace: Replace keeps the *Tool
	// itself in the registry, so Lookup's result still implements Decider.
	// One step, so a call made while the list refreshes finds its tool.
	if err := reg.Replace(c.cfg.Name+tools.NamespaceSep, list...); err != nil {
		return nil, fmt.Errorf("mcp: register tools of server %q: %w", c.cfg.Name, err)
	}
	c.mu.Lock()
	c.reg = reg
	c.mu.Unlock()
	return names, nil
}

// listChanged refreshes the registry Register filled, off the SDK's
// notification goroutine (listing from inside its handler could wait on
// that same goroutine).
func (c *Client) listChanged() {
	c.mu.Lock()
	reg, closed := c.reg, c.closed
	if !closed {
		c.refresh.Add(1)
	}
	c.mu.Unlock()
	if closed {
		return
	}
	go func() {
		defer c.refresh.Done()
		if reg != nil {
			if _, err := c.Register(context.Background(), reg); err != nil && c.cfg.Logger != nil {
				c.cfg.Logger.Warn("mcp tools not refreshed", "server", c.cfg.Name, "error", err.Error())
			}
		}
		if c.cfg.OnToolsChanged != nil {
			c.cfg.OnToolsChanged(c)
		}
	}()
}

// Close ends the session; a command server's stdin is closed and the
// process waited for (then terminated after TerminateGrace).
func (c *Client) Close() error {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	err := c.session.Close()
	c.refresh.Wait()
	if terminated(err) {
		// A server that ignores its closed stdin is stopped after the
		// grace period, as asked: that is not a failure of the server.
		if c.cfg.Logger != nil {
			c.cfg.Logger.Info("mcp server lingered and was terminated", "server", c.cfg.Name, "grace", c.cfg.TerminateGrace)
		}
		err = nil
	}
	if errors.Is(err, os.ErrProcessDone) {
		// The server exited on its own just as the grace period ran out:
		// the SDK's SIGTERM and SIGKILL then find no process, and it
		// reports that instead of the exit it lost the race to.
		err = nil
	}
	if c.cfg.Logger != nil {
		c.cfg.Logger.Info("mcp server disconnected", "server", c.cfg.Name)
	}
	return err
}

// terminated reports whether err is a process's exit by SIGTERM or
// SIGKILL, which Close sends a lingering stdio server.
func terminated(err error) bool {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && (ws.Signal() == syscall.SIGTERM || ws.Signal() == syscall.SIGKILL)
}

// fail wraps an error of a request to the server with what was being done
// and the server's last stderr lines.
func (c *Client) fail(what string, err error) error {
	return fmt.Errorf("mcp: server %q: %s: %w%s", c.cfg.Name, what, err, c.stderrNote())
}

func (c *Client) stderrNote() string {
	if c.stderr == nil {
		return ""
	}
	s := strings.TrimSpace(c.stderr.String())
	if s == "" {
		return ""
	}
	return "\nserver stderr:\n" + s
}
