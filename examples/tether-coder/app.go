package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/agent/session"
	sessionsqlite "github.com/tetherdev/tether/agent/session/sqlitestore"
	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/checkpoint"
	cpsqlite "github.com/tetherdev/tether/checkpoint/sqlitestore"
	"github.com/tetherdev/tether/examples/internal/hostcfg"
	"github.com/tetherdev/tether/examples/internal/mcpmount"
	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/llm/modelstr"
	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/settings"
	"github.com/tetherdev/tether/tools"
	"github.com/tetherdev/tether/tools/builtin"
	"github.com/tetherdev/tether/tools/pdftools"
)

// app is everything the coder does that is not drawing: the workspace,
// the stores, the current session and mode, and the commands on them.
// The full-screen and the plain front ends both drive it.
type app struct {
	ws        *safety.Workspace
	cps       *checkpoint.Manager
	sessStore session.Store
	sessions  *session.Manager
	cfg       agent.Config
	closers   []io.Closer
	logger    *slog.Logger
	logLevel  *slog.LevelVar // debug while /verbose is on
	logFile   string
	wire      io.Writer // -wire-log, nil without

	modelName     string
	modelOptions  settings.ModelOptions // the settings', for every model opened
	modes         []agent.Mode          // built-in and the settings' modes, in Shift-Tab order
	custom        []settings.Command    // the slash commands of .tether/commands and the user's
	bopts         builtin.Options       // how each session's shell is made
	untrusted     string                // the project settings left out until -trust, said at start
	contextLength int                   // tokens; 0 when the model does not say
	mode          agent.Mode
	sess          *session.Session // nil until the first prompt, -session or /resume
	files         []string         // workspace files for @ completion, listed on first use
}

// openApp wires the agent for the current directory. The approver and
// sink are the front end's.
func openApp(ctx context.Context, o options, approver approval.Approver, sink event.Sink) (*app, error) {
	a := &app{mode: agent.Mode(o.mode), modes: slices.Clone(builtinModes), untrusted: o.untrusted}
	for _, m := range hostcfg.Modes(o.set) {
		a.modes = append(a.modes, m.Name)
	}
	ok := false
	defer func() {
		if !ok {
			a.close()
		}
	}()
	logOut := io.Discard
	if o.logFile != "" {
		if err := os.MkdirAll(filepath.Dir(o.logFile), 0o700); err != nil {
			return nil, err
		}
		lf, err := os.OpenFile(o.logFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			return nil, fmt.Errorf("log: %w", err)
		}
		a.closers = append(a.closers, lf)
		logOut = lf
	}
	a.logLevel, a.logFile = &slog.LevelVar{}, o.logFile
	a.logger = slog.New(slog.NewTextHandler(logOut, &slog.HandlerOptions{Level: a.logLevel}))
	if wf, err := hostcfg.OpenWireLog(o.wireLog); err != nil {
		return nil, err
	} else if wf != nil {
		a.closers = append(a.closers, wf)
		a.wire = wf
	}
	root := o.workspace
	if root == "" {
		cwd, err := os.Getwd()
		if err != nil {
			return nil, err
		}
		root = cwd
	}
	var err error
	if a.ws, err = safety.OpenWorkspace(root, append(o.folders.Options(), hostcfg.WorkspaceOptions(o.set)...)...); err != nil {
		return nil, fmt.Errorf("workspace: %w", err)
	}
	reg := &tools.Registry{}
	bopts := builtin.Options{}
	// Off unless asked for: a person watches every command the coder
	// runs, and the sandbox keeps build tools from their caches.
	switch o.set.Sandbox {
	case "on":
		bopts.Sandbox = a.ws.NewSandbox(o.folders.Dirs()...)
	case "auto":
		sb := a.ws.NewSandbox(o.folders.Dirs()...)
		sb.BestEffort, sb.Logger = true, a.logger
		bopts.Sandbox = sb
	}
	a.bopts = bopts
	if _, err := builtin.Register(reg, a.ws, bopts); err != nil {
		return nil, err
	}
	if err := reg.Register(pdftools.NewRead(a.ws)); err != nil {
		return nil, err
	}
	if o.mcpConfig != "" {
		servers, err := mcpmount.Mount(ctx, o.mcpConfig, a.ws, reg, a.logger)
		if err != nil {
			return nil, fmt.Errorf("-mcp-config: %w", err)
		}
		a.closers = append(a.closers, servers)
	}
	if a.custom, err = settings.Commands(a.ws.Root()); err != nil {
		return nil, err
	}
	stopServers, err := hostcfg.Tools(ctx, o.set, a.ws, reg, a.logger)
	if err != nil {
		return nil, err
	}
	a.closers = append(a.closers, closerFunc(func() error { stopServers(); return nil }))
	var cpStore checkpoint.Store = checkpoint.NewMemoryStore()
	a.sessStore = session.NewMemoryStore()
	if o.db != ":memory:" {
		if err := os.MkdirAll(filepath.Dir(o.db), 0o700); err != nil {
			return nil, err
		}
		cs, err := cpsqlite.Open(ctx, o.db)
		if err != nil {
			return nil, fmt.Errorf("checkpoints: %w", err)
		}
		a.closers = append(a.closers, cs)
		ss, err := sessionsqlite.Open(ctx, o.db)
		if err != nil {
			return nil, fmt.Errorf("sessions: %w", err)
		}
		a.closers = append(a.closers, ss)
		cpStore, a.sessStore = cs, ss
	}
	if a.cps, err = checkpoint.New(a.ws, cpStore, checkpoint.WithLogger(a.logger)); err != nil {
		return nil, err
	}
	// What a killed previous run left (a command cut off, a torn write)
	// is settled before anything else touches the workspace.
	if rec, err := a.cps.Recover(ctx); err != nil {
		return nil, fmt.Errorf("checkpoints: recovering an interrupted run: %w", err)
	} else if len(rec) > 0 {
		a.logger.Warn("coder: settled runs a crash interrupted; their checkpoints keep them undoable", "checkpoints", len(rec))
	}
	policy := approval.Interactive()
	if o.auto {
		policy = approval.AutoApprove()
	}
	a.cfg = agent.Config{
		Tools:           reg,
		Workspace:       a.ws,
		CommandRules:    a.rules(o.set),
		Safety:          hostcfg.Safety(o.set),
		Modes:           hostcfg.Modes(o.set),
		Policy:          policy,
		Approver:        approver,
		ApprovalTimeout: o.approvalTimeout,
		Checkpoints:     a.cps,
		Sink:            sink,
		Skills:          []agent.Skill{agent.TodosSkill()},
		Subagents:       &agent.SubagentConfig{}, // read-only helpers, rendered nested
		Logger:          a.logger,
		ToolCalling:     agent.ToolCalling(o.set.ToolCalling),
	}
	a.modelOptions = o.set.ModelOptions
	if err := a.setModel(ctx, o.model); err != nil {
		return nil, err
	}
	if o.sessionID != "" {
		if err := a.openSession(ctx, o.sessionID); err != nil {
			return nil, err
		}
	}
	ok = true
	return a, nil
}

func (a *app) close() {
	// In reverse: the log file, opened first, still records the others'
	// failures (an MCP server that would not stop).
	for i := len(a.closers) - 1; i >= 0; i-- {
		if err := a.closers[i].Close(); err != nil && a.logger != nil {
			a.logger.Warn("coder: close", "error", err)
		}
	}
	if a.ws != nil {
		a.ws.Close()
	}
}

// setModel switches the model; the current session continues with it.
func (a *app) setModel(ctx context.Context, name string) error {
	mopts := []modelstr.Option{modelstr.WithLogger(a.logger)}
	if a.wire != nil {
		mopts = append(mopts, modelstr.WithWireLog(a.wire))
	}
	m, err := hostcfg.OpenModel(settings.Settings{Model: name, ModelOptions: a.modelOptions}, mopts...)
	if err != nil {
		return err
	}
	cfg := a.cfg
	cfg.Model, cfg.ModelName = m, name
	mgr, err := a.newManager(cfg)
	if err != nil {
		return err
	}
	a.cfg, a.sessions, a.modelName = cfg, mgr, name
	a.contextLength = 0
	if caps, err := llm.CapabilitiesOf(ctx, m); err == nil {
		a.contextLength = caps.ContextLength
	}
	if a.sess != nil {
		return a.openSession(ctx, a.sess.ID())
	}
	return nil
}

func (a *app) openSession(ctx context.Context, id string) error {
	s, err := a.sessions.Open(ctx, id)
	if err != nil {
		return fmt.Errorf("session %s: %w", id, err)
	}
	a.sess = s
	return nil
}

// replay feeds the current session's stored events to apply, in order.
func (a *app) replay(ctx context.Context, apply func(event.Event)) error {
	if a.sess == nil {
		return nil
	}
	for ev, err := range a.sess.Events(ctx, 0) {
		if err != nil {
			return err
		}
		apply(ev.Event)
	}
	return nil
}

// ensureSession creates a session titled after prompt if none is current.
func (a *app) ensureSession(ctx context.Context, prompt string) error {
	if a.sess != nil {
		return nil
	}
	s, err := a.sessions.Create(ctx, filepath.Base(a.ws.Root())+": "+oneLine(prompt, 60))
	if err != nil {
		return err
	}
	a.sess = s
	return nil
}

// input is prompt as the agent receives it, in the current mode. Words
// of the form @path naming a workspace file attach that file.
func (a *app) input(prompt string) agent.Input {
	return agent.Input{Prompt: prompt, Mode: a.mode, Context: a.attachments(prompt)}
}

func (a *app) attachments(prompt string) []agent.Attachment {
	var out []agent.Attachment
	for _, w := range strings.Fields(prompt) {
		ref, ok := strings.CutPrefix(w, "@")
		ref = strings.TrimRight(ref, ",.;:!?)")
		if !ok || ref == "" {
			continue
		}
		// @file, or a selection of it: @main.go:L5-L9, @main.go:L5.
		att, err := agent.ParseAttachment(ref)
		if err != nil {
			continue
		}
		// Only files inside the workspace: the executor would refuse others
		// and fail the whole prompt; an @word that is no file stays text.
		chk := a.ws.Check(att.Path, safety.OpRead)
		if chk.Decision == safety.Deny {
			continue
		}
		if fi, err := os.Stat(chk.Resolved); err == nil && fi.Mode().IsRegular() &&
			!slices.ContainsFunc(out, func(x agent.Attachment) bool { return x == att }) {
			out = append(out, att)
		}
	}
	return out
}

// workspaceFiles lists the workspace's files for @ completion, skipping
// VCS and dependency directories, at most 20 000 of them.
func (a *app) workspaceFiles() []string {
	if a.files != nil {
		return a.files
	}
	a.files = []string{}
	// The workspace's FS covers every root: a -folder's files are listed
	// under its name, as the tools name them.
	fs.WalkDir(a.ws.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "node_modules", "vendor", ".venv", "__pycache__":
				return fs.SkipDir
			}
			return nil
		}
		a.files = append(a.files, p)
		if len(a.files) >= 20000 {
			return fs.SkipAll
		}
		return nil
	})
	return a.files
}

// compact summarises the older turns of s (nil: no conversation yet).
func compact(ctx context.Context, s *session.Session) (string, error) {
	if s == nil {
		return "nothing to compact: no conversation yet", nil
	}
	res, err := s.Compact(ctx, agent.CompactOptions{Task: -1})
	if errors.Is(err, agent.ErrNothingToCompact) {
		return "nothing to compact yet: the conversation is short", nil
	}
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("compacted %d messages into a summary, kept %d", res.Summarized, res.Kept), nil
}

func (a *app) sessionList(ctx context.Context, st styles) (string, error) {
	infos, err := a.sessions.List(ctx)
	if err != nil {
		return "", err
	}
	if len(infos) == 0 {
		return st.dim.Render("no sessions yet"), nil
	}
	var b strings.Builder
	for _, in := range infos {
		mark := "  "
		if a.sess != nil && in.ID == a.sess.ID() {
			mark = st.accent.Render("▸ ")
		}
		fmt.Fprintf(&b, "%s%s  %s  %s\n", mark, in.ID, in.Title,
			st.dim.Render(fmt.Sprintf("%d task(s), %s", in.Runs, in.Updated.Local().Format(time.DateTime))))
	}
	b.WriteString(st.dim.Render("/resume ID opens a session with its transcript"))
	return b.String(), nil
}

// newManager opens sessions with cfg, each with its own shell: a new
// session starts in the workspace root with a fresh environment.
func (a *app) newManager(cfg agent.Config) (*session.Manager, error) {
	return session.NewManager(a.sessStore, cfg, session.WithSessionConfig(hostcfg.SessionShells(a.ws, a.bopts)))
}

// toggleVerbose turns the agent's per-iteration debug record on or off:
// each model response, the calls parsed from it, what the parser or the
// safety layer refused and why, written to the -log file.
func (a *app) toggleVerbose() string {
	if a.logLevel.Level() == slog.LevelDebug {
		a.logLevel.Set(slog.LevelInfo)
		return "verbose off"
	}
	a.logLevel.Set(slog.LevelDebug)
	if a.logFile == "" {
		return "verbose on, but there is no log file to write to (-log is empty)"
	}
	return "verbose on: each model response, the calls parsed from it and what was refused and why go to " + a.logFile
}

// validMode reports whether m is a built-in mode or one of the settings'.
func (a *app) validMode(m string) bool { return slices.Contains(a.modes, agent.Mode(m)) }

// modeNames lists the modes for messages.
func (a *app) modeNames() string {
	var b []string
	for _, m := range a.modes {
		b = append(b, string(m))
	}
	return strings.Join(b, ", ")
}

// rules are the settings' command rules, logged.
func (a *app) rules(s settings.Settings) safety.CommandRules {
	r := s.CommandRules()
	r.Logger = a.logger
	return r
}

var builtinModes = []agent.Mode{agent.ModeAgent, agent.ModePlan, agent.ModeExplore, agent.ModeReview}

type closerFunc func() error

func (f closerFunc) Close() error { return f() }
