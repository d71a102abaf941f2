package hostcfg

import (
	"context"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/examples/internal/mcpmount"
	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/llm/modelstr"
	"github.com/tetherdev/tether/lsp"
	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/settings"
	"github.com/tetherdev/tether/tools"
	"github.com/tetherdev/tether/tools/lsptools"
	"github.com/tetherdev/tether/tools/webtools"
)

// DefaultApprovalTimeout is how long a question waits when neither the
// settings nor -approval-timeout say.
const DefaultApprovalTimeout = 5 * time.Minute

// Load reads the workspace's settings (after trusting its files, with
// -trust) and applies the flags given on top.
func (f *Flags) Load(env settings.Env) (*settings.Loaded, error) {
	if f.Trust {
		if err := env.Trust(f.Workspace); err != nil {
			return nil, err
		}
	}
	l, err := env.Load(f.Workspace)
	if err != nil {
		return nil, err
	}
	l.Settings = l.Settings.Override(f.Over)
	if err := l.CheckMode(); err != nil {
		return nil, err
	}
	return l, nil
}

// Untrusted says, for a log or the terminal, which of the project's
// settings were left out because its files are not trusted, and how to
// trust them; "" when none were.
func Untrusted(l *settings.Loaded, program string) string {
	if len(l.Untrusted) == 0 {
		return ""
	}
	return fmt.Sprintf("%s: not applied until you trust this workspace's settings (run %s -trust once you have read them): %s",
		program, program, strings.Join(l.Untrusted, "; "))
}

// OpenModel opens s.Model with every one of the settings' model
// options: numCtx is the backend's context window (see
// modelstr.WithNumCtx), and temperature goes with every request that
// does not carry its own (a mode with a temperature of its own keeps
// it).
func OpenModel(s settings.Settings, opts ...modelstr.Option) (llm.Model, error) {
	if s.Model == "" {
		return nil, fmt.Errorf("no model: give -model (ollama:NAME, openai:NAME or script:FILE) or set \"model\" in %s", settings.ProjectFile)
	}
	if s.ModelOptions.NumCtx > 0 {
		opts = append(opts, modelstr.WithNumCtx(s.ModelOptions.NumCtx))
	}
	m, err := modelstr.Open(s.Model, opts...)
	if err != nil {
		return nil, err
	}
	if t := s.ModelOptions.Temperature; t != nil {
		if *t < 0 || *t > 2 {
			return nil, fmt.Errorf("modelOptions.temperature %v: want 0 to 2", *t)
		}
		d := requestDefaults{Model: m, temperature: *t}
		if r, ok := m.(llm.CapabilityReporter); ok {
			// Keep the optional upgrade: a wrapper that hid it would
			// make every model look toolless and blind.
			return reportingDefaults{d, r}, nil
		}
		return d, nil
	}
	return m, nil
}

// requestDefaults fills in what the settings say of every request.
type requestDefaults struct {
	llm.Model
	temperature float64
}

func (d requestDefaults) Chat(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
	if req.Temperature == nil {
		t := d.temperature
		req.Temperature = &t
	}
	return d.Model.Chat(ctx, req)
}

// reportingDefaults is requestDefaults for a model that reports its
// capabilities.
type reportingDefaults struct {
	requestDefaults
	llm.CapabilityReporter
}

// WorkspaceOptions are the settings' sensitive and secret files.
func WorkspaceOptions(s settings.Settings) []safety.WorkspaceOption {
	if r := s.SensitivityRules(); len(r) > 0 {
		return []safety.WorkspaceOption{safety.WithSensitivityRules(r...)}
	}
	return nil
}

// Safety is the safety policy the settings ask for, for
// agent.Config.Safety: nil, the executor's default, unless
// autoApproveSensitiveEdits is on, when file tools change sensitive
// files without asking (reading secrets, hard-linked files and commands
// still ask). Load has already left that field out of project files the
// user has not trusted, since the model itself may have written them.
func Safety(s settings.Settings) *safety.Policy {
	if s.AutoApproveSensitiveEdits == nil || !*s.AutoApproveSensitiveEdits {
		return nil
	}
	return &safety.Policy{AutoApproveSensitiveEdits: true}
}

// ApprovalTimeout is the settings' approval timeout, or the default.
func ApprovalTimeout(s settings.Settings) time.Duration {
	if s.ApprovalTimeout > 0 {
		return time.Duration(s.ApprovalTimeout)
	}
	return DefaultApprovalTimeout
}

// Modes are the settings' modes as the executor takes them.
func Modes(s settings.Settings) []agent.ModeSpec {
	var out []agent.ModeSpec
	for _, name := range slices.Sorted(maps.Keys(s.Modes)) {
		m := s.Modes[name]
		out = append(out, agent.ModeSpec{Name: agent.Mode(name), Prompt: m.Prompt, Tools: m.Tools, ReadOnly: m.ReadOnly})
	}
	return out
}

// Tools registers what the settings turn on in reg: the language
// servers' tools, read_webpage for web.allow, the MCP servers. Then it
// removes the disabled tools and checks that every tool a mode names
// exists. The returned function stops the servers started.
func Tools(ctx context.Context, s settings.Settings, ws *safety.Workspace, reg *tools.Registry, logger *slog.Logger) (func(), error) {
	var closers []io.Closer
	stop := func() {
		for i := len(closers) - 1; i >= 0; i-- {
			if err := closers[i].Close(); err != nil {
				logger.Warn("stopping servers", "error", err)
			}
		}
	}
	fail := func(err error) (func(), error) { stop(); return func() {}, err }
	if s.LSP != nil && *s.LSP {
		m := &lsp.Manager{Root: ws.Root(), Servers: s.LSPSpecs(), Logger: logger}
		closers = append(closers, closerFunc(func() error { return m.Close(context.WithoutCancel(ctx)) }))
		if err := lsptools.Register(reg, lsptools.Config{Files: ws, Servers: m}); err != nil {
			return fail(fmt.Errorf("lsp tools: %w", err))
		}
	}
	if len(s.Web.Allow) > 0 {
		cfg := webtools.Config{AllowDomains: s.Web.Allow, DenyDomains: s.Web.Deny}
		if slices.Contains(cfg.AllowDomains, "*") {
			cfg.AllowDomains, cfg.ApproveAllDomains = nil, true
		}
		fetcher, err := webtools.NewFetcher(cfg)
		if err != nil {
			return fail(fmt.Errorf("web: %w", err))
		}
		if err := reg.Register(webtools.NewRead(fetcher)); err != nil {
			return fail(err)
		}
	}
	if data := s.MCPConfig(); data != nil {
		servers, err := mcpmount.MountData(ctx, data, "settings mcpServers", ws, reg, logger)
		if err != nil {
			return fail(err)
		}
		closers = append(closers, servers)
	}
	names := reg.Names()
	for _, t := range s.DisabledTools {
		if !slices.Contains(names, t) {
			return fail(fmt.Errorf("disabledTools: no tool %q; the tools are %s", t, strings.Join(names, ", ")))
		}
		reg.Unregister(t)
	}
	for _, name := range slices.Sorted(maps.Keys(s.Modes)) {
		for _, t := range s.Modes[name].Tools {
			if !slices.Contains(names, t) {
				return fail(fmt.Errorf("modes.%s.tools: no tool %q; the tools are %s", name, t, strings.Join(names, ", ")))
			}
		}
	}
	return stop, nil
}

type closerFunc func() error

func (f closerFunc) Close() error { return f() }
