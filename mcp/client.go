package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tetherdev/tether/internal/tailbuf"
	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
)

// ErrConfig: a ServerConfig that cannot work (no way to reach the server, a
// bad name or pattern). The message says which field to fix.
var ErrConfig = errors.New("mcp: invalid server config")

// ServerConfig says how to reach one MCP server and how far to trust its
// tools. Set exactly one of Command, URL or Transport.
type ServerConfig struct {
	// Name identifies the server and becomes its tools' namespace
	// ("github" → "github__create_issue"): 1-40 of [a-zA-Z0-9_-], no "__".
	Name string

	// Command and Args start a server that speaks MCP on stdin/stdout.
	// Env is added to this process's environment; Dir is its working
	// directory. The server's stderr is kept (last 8 KiB) for error
	// messages.
	Command string
	Args    []string
	Env     []string
	Dir     string

	// URL is a streamable HTTP endpoint. Header is sent with every request
	// (an Authorization token, say); HTTPClient defaults to
	// http.DefaultClient.
	URL        string
	Header     http.Header
	HTTPClient *http.Client

	// Transport connects any other way (in-process, a custom pipe).
	Transport sdk.Transport

	// Rules decide which tools run without asking (see Rules).
	Rules Rules
	// Confirm is asked about confirm-level calls; nil denies them, as a
	// headless gateway must.
	Confirm Confirmer
	// MaxOutput bounds a result's text; zero means DefaultMaxOutput.
	MaxOutput int
	// Logger receives connection events and every refused or confirmed
	// call; nil logs nothing.
	Logger *slog.Logger
	// OnToolsChanged is called when the server says its tool list changed;
	// call Register again from it (on another goroutine if it may block)
	// to refresh the registry.
	OnToolsChanged func(*Client)
}

var serverNameRE = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,40}$`)

func (c *ServerConfig) validate() error {
	if !serverNameRE.MatchString(c.Name) || strings.Contains(c.Name, tools.NamespaceSep) {
		return fmt.Errorf("%w: Name %q: use 1-40 letters, digits, '_' or '-', without \"__\"", ErrConfig, c.Name)
	}
	n := 0
	for _, set := range []bool{c.Command != "", c.URL != "", c.Transport != nil} {
		if set {
			n++
		}
	}
	if n != 1 {
		return fmt.Errorf("%w: server %q: set exactly one of Command, URL or Transport", ErrConfig, c.Name)
	}
	if err := c.Rules.validate(); err != nil {
		return fmt.Errorf("%w: server %q: %v", ErrConfig, c.Name, err)
	}
	return nil
}

// Client is a connection to one MCP server. It is safe for concurrent use.
type Client struct {
	cfg     ServerConfig
	session *sdk.ClientSession
	stderr  *tailbuf.Buffer

	progress *progressRoutes

	mu      sync.Mutex
	skipped []error
}

// Connect starts or dials the server, performs the MCP handshake and
// returns a ready Client. Close it when done: for a command server that
// stops the process.
func Connect(ctx context.Context, cfg ServerConfig) (*Client, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	c := &Client{cfg: cfg, progress: &progressRoutes{}}
	t := cfg.Transport
	switch {
	case cfg.Command != "":
		cmd := exec.Command(cfg.Command, cfg.Args...)
		cmd.Dir = cfg.Dir
		if len(cfg.Env) > 0 {
			cmd.Env = append(os.Environ(), cfg.Env...)
		}
		c.stderr = tailbuf.New(8 << 10)
		cmd.Stderr = c.stderr
		t = &sdk.CommandTransport{Command: cmd}
	case cfg.URL != "":
		hc := cfg.HTTPClient
		if hc == nil {
			hc = http.DefaultClient
		}
		if len(cfg.Header) > 0 {
			base := hc.Transport
			if base == nil {
				base = http.DefaultTransport
			}
			copied := *hc
			copied.Transport = headerTransport{base: base, header: cfg.Header.Clone()}
			hc = &copied
		}
		t = &sdk.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: hc}
	}
	opts := &sdk.ClientOptions{Logger: cfg.Logger, ProgressNotificationHandler: c.progress.deliver}
	if cfg.OnToolsChanged != nil {
		opts.ToolListChangedHandler = func(ctx context.Context, _ *sdk.ToolListChangedRequest) { cfg.OnToolsChanged(c) }
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "tether", Version: "v0"}, opts)
	s, err := client.Connect(ctx, t, nil)
	if err != nil {
		return nil, fmt.Errorf("mcp: connect to server %q: %w%s", cfg.Name, err, c.stderrNote())
	}
	c.session = s
	if cfg.Logger != nil {
		cfg.Logger.InfoContext(ctx, "mcp server connected", "server", cfg.Name)
	}
	return c, nil
}

// Name returns the server's name (its tools' namespace).
func (c *Client) Name() string { return c.cfg.Name }

// Session returns the underlying SDK session, for resources, prompts and
// anything else beyond tools.
func (c *Client) Session() *sdk.ClientSession { return c.session }

// Tools lists the server's tools, adapted to tools.Tool with their
// decisions made. A tool whose schema is unusable is left out; Skipped
// says which and why.
func (c *Client) Tools(ctx context.Context) ([]*Tool, error) {
	var remote []*sdk.Tool
	for t, err := range c.session.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("mcp: list tools of server %q: %w%s", c.cfg.Name, err, c.stderrNote())
		}
		remote = append(remote, t)
	}
	names := make([]string, len(remote))
	for i, t := range remote {
		names[i] = t.Name
	}
	local := localNames(c.cfg.Name, names)
	var out []*Tool
	var skipped []error
	for _, rt := range remote {
		t, err := c.adapt(rt, local[rt.Name])
		if err != nil {
			skipped = append(skipped, err)
			if c.cfg.Logger != nil {
				c.cfg.Logger.WarnContext(ctx, "mcp tool skipped", "server", c.cfg.Name, "tool", rt.Name, "error", err.Error())
			}
			continue
		}
		out = append(out, t)
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
	dec, reasons := decide(c.cfg.Rules, c.cfg.Name, rt.Name, rt.Annotations)
	t := &Tool{
		spec: tools.Spec{
			Name:        name,
			Description: desc + " (from MCP server " + c.cfg.Name + ")",
			Parameters:  params,
			// Read-only modes and parallel runs get only what runs unasked
			// and claims to change nothing.
			ReadOnly: dec == safety.Allow && rt.Annotations != nil && rt.Annotations.ReadOnlyHint,
		},
		server:      c.cfg.Name,
		remote:      rt.Name,
		annotations: rt.Annotations,
		decision:    dec,
		reasons:     reasons,
		session:     c.session,
		progress:    c.progress,
		confirm:     c.cfg.Confirm,
		logger:      c.cfg.Logger,
		maxOutput:   c.cfg.MaxOutput,
	}
	// Ask the registry itself whether it accepts the schema, so one odd
	// tool cannot make a whole server fail to register.
	var probe tools.Registry
	if err := probe.Register(t); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrBadSchema, rt.Name, err)
	}
	return t, nil
}

// Register lists the server's tools and adds them to reg under the
// server's namespace, replacing whatever that namespace held (so calling it
// again after the server's tool list changed refreshes it). Tools a deny
// rule names are left out. It returns the registered names.
func (c *Client) Register(ctx context.Context, reg *tools.Registry) ([]string, error) {
	ts, err := c.Tools(ctx)
	if err != nil {
		return nil, err
	}
	reg.Unregister(c.cfg.Name + tools.NamespaceSep)
	var list []tools.Tool
	var names []string
	for _, t := range ts {
		if t.decision == safety.Deny {
			// Never offered: a model would only waste calls on it.
			continue
		}
		list, names = append(list, t), append(names, t.spec.Name)
	}
	// The names already carry the namespace: Register keeps the *Tool
	// itself in the registry, so Lookup's result still implements Decider.
	if err := reg.Register(list...); err != nil {
		return nil, fmt.Errorf("mcp: register tools of server %q: %w", c.cfg.Name, err)
	}
	return names, nil
}

// Close ends the session; a command server's stdin is closed and the
// process waited for (then terminated if it lingers).
func (c *Client) Close() error {
	err := c.session.Close()
	if c.cfg.Logger != nil {
		c.cfg.Logger.Info("mcp server disconnected", "server", c.cfg.Name)
	}
	return err
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

// headerTransport adds fixed headers to every request.
type headerTransport struct {
	base   http.RoundTripper
	header http.Header
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range t.header {
		r.Header[k] = slices.Clone(v)
	}
	return t.base.RoundTrip(r)
}
