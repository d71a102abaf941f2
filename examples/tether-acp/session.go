package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/tetherdev/tether/acp"
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/checkpoint"
	"github.com/tetherdev/tether/examples/internal/hostcfg"
	"github.com/tetherdev/tether/examples/internal/mcpmount"
	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/settings"
	"github.com/tetherdev/tether/tools"
	"github.com/tetherdev/tether/tools/builtin"
)

// sessionSettings are the settings of the project the editor named:
// user < project < local < flags, read when the session opens, so an
// edit applies to the next session. An untrusted project's grants are
// left out, logged and returned as a notice for the editor to show.
func (h *host) sessionSettings(cwd string) (s settings.Settings, notices []string, err error) {
	l, err := settings.Env{}.Load(cwd)
	if err != nil {
		return s, nil, err
	}
	l.Settings = l.Settings.Override(h.o.shared.Over)
	if err := l.CheckMode(); err != nil {
		return s, nil, err
	}
	if len(l.Untrusted) > 0 {
		how := "start tether-acp with -workspace " + cwd + " -trust once you have read them"
		h.logger.Warn("acp: project settings not applied until trusted ("+how+")", "cwd", cwd, "left_out", strings.Join(l.Untrusted, "; "))
		notices = append(notices, "Tether left out these project settings until you trust this project's settings files ("+how+"): "+strings.Join(l.Untrusted, "; "))
	}
	return l.Settings, notices, nil
}

// open builds one session's agent in the editor's directory, with that
// project's settings.
func (h *host) open(ctx context.Context, env acp.SessionEnv) (*acp.Setup, error) {
	if h.o.workspace != "" && env.Cwd != h.o.workspace && !strings.HasPrefix(env.Cwd, h.o.workspace+string(filepath.Separator)) {
		return nil, fmt.Errorf("%s is outside -workspace %s", env.Cwd, h.o.workspace)
	}
	s, notices, err := h.sessionSettings(env.Cwd)
	if err != nil {
		return nil, err
	}
	model := h.model
	if s.Model != h.o.base.Model || !reflect.DeepEqual(s.ModelOptions, h.o.base.ModelOptions) {
		if model, err = hostcfg.OpenModel(s, h.modelOpts...); err != nil {
			return nil, fmt.Errorf("the project's model: %w", err)
		}
	}
	ws, err := safety.OpenWorkspace(env.Cwd, hostcfg.WorkspaceOptions(s)...)
	if err != nil {
		return nil, fmt.Errorf("workspace: %w", err)
	}
	var closers []func()
	closeAll := func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	closers = append(closers, func() { ws.Close() })
	ok := false
	defer func() {
		if !ok {
			closeAll()
		}
	}()
	// Files go through the editor's buffers when it offers to, for the
	// file tools and for the checkpoints alike (pre-images, undo).
	files := env.Files(ws)
	reg := &tools.Registry{}
	// Every command in a kill domain: nothing it starts outlives it or
	// this process.
	bopts := builtin.Options{Files: files, Contain: true}
	if sb := h.sandbox(ws, s.Sandbox); sb != nil {
		bopts.Sandbox = sb
	} else if s.Sandbox == "on" {
		return nil, errors.New("sandbox \"on\": this kernel cannot confine commands")
	}
	if _, err := builtin.Register(reg, ws, bopts); err != nil {
		return nil, fmt.Errorf("tools: %w", err)
	}
	stopMCP, err := mountMCP(ctx, env, ws.Root(), reg, h.logger)
	if err != nil {
		return nil, err
	}
	closers = append(closers, stopMCP)
	if h.o.mcpConfig != "" {
		servers, err := mcpmount.Mount(ctx, h.o.mcpConfig, ws, reg, h.logger)
		if err != nil {
			return nil, fmt.Errorf("-mcp-config: %w", err)
		}
		closers = append(closers, func() {
			if err := servers.Close(); err != nil {
				h.logger.Warn("acp: stopping MCP servers", "err", err)
			}
		})
	}
	// The editor's MCP servers replace the settings' of the same name.
	if len(env.MCPServers) > 0 && len(s.MCPServers) > 0 {
		s.MCPServers = maps.Clone(s.MCPServers)
		for _, m := range env.MCPServers {
			delete(s.MCPServers, m.Name)
		}
	}
	stopTools, err := hostcfg.Tools(ctx, s, ws, reg, h.logger)
	if err != nil {
		return nil, err
	}
	closers = append(closers, stopTools)
	cps, err := checkpoint.New(files, h.cps, checkpoint.WithLogger(h.logger))
	if err != nil {
		return nil, fmt.Errorf("checkpoints: %w", err)
	}
	rules := s.CommandRules()
	rules.Logger = h.logger
	cfg := agent.Config{Model: model, Tools: reg, Workspace: ws, CommandRules: rules, Safety: hostcfg.Safety(s), Checkpoints: cps, Logger: h.logger,
		ToolCalling: agent.ToolCalling(s.ToolCalling), MaxIterations: h.o.maxIterations,
		Modes: hostcfg.Modes(s), Mode: agent.Mode(s.Mode)}
	if h.o.todos {
		cfg.Skills = append(cfg.Skills, agent.TodosSkill())
	}
	ok = true
	root := ws.Root()
	saveRule := func(command string) (string, string, func() error, bool) {
		rule, ok := settings.SaveableRule(command)
		return rule, settings.ProjectFile, func() error { return settings.SaveRule(root, "allow", rule) }, ok
	}
	return &acp.Setup{Agent: cfg, Close: closeAll, Notices: notices, SaveRule: saveRule}, nil
}

// sandbox is the Landlock confinement of a session's commands, or nil.
// mode is the settings' sandbox: "auto" (or unset), "on" or "off".
func (h *host) sandbox(ws *safety.Workspace, mode string) *safety.Sandbox {
	if mode == "off" {
		return nil
	}
	var extra []string
	cache, _ := os.UserCacheDir()
	for _, d := range []string{os.TempDir(), cache} {
		if fi, err := os.Stat(d); d != "" && err == nil && fi.IsDir() {
			extra = append(extra, d)
		}
	}
	sb := ws.NewSandbox(extra...)
	if err := sb.Available(); err != nil {
		h.logger.Warn("acp: commands run WITHOUT a sandbox", "reason", err)
		return nil
	}
	sb.BestEffort, sb.Logger = mode != "on", h.logger
	return sb
}
