package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/agent/projectctx"
	"github.com/tetherdev/tether/examples/internal/hostcfg"
	"github.com/tetherdev/tether/examples/internal/mcpmount"
	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/settings"
	"github.com/tetherdev/tether/tools"
	"github.com/tetherdev/tether/tools/pdftools"
)

// knownSkills are the names -skills accepts.
var knownSkills = []string{"todos", "build", "fetch", "virtual_terminal"}

// features are the optional capabilities the flags turn on. The shared
// ones (-lsp, -web-allow, -web-deny, -disable-tools) and their settings
// are applied by hostcfg.Tools.
type features struct {
	maxIterations int
	skills        string
	subagents     bool
	gitBranch     bool
	mcpConfig     string
}

func (f *features) flags(fs *flag.FlagSet) {
	fs.IntVar(&f.maxIterations, "max-iterations", 0, "model calls per prompt (default 25, 10 in read-only modes, 6 with -tool-calling envelope)")
	fs.StringVar(&f.skills, "skills", "", "comma-separated skills to offer: "+strings.Join(knownSkills, ", ")+" (fetch needs -web-allow)")
	fs.BoolVar(&f.subagents, "subagents", false, "let the model hand a sub-task to a read-only helper agent")
	fs.BoolVar(&f.gitBranch, "git-branch", false, "work on a new git branch, one per session: later prompts continue on it")
	fs.StringVar(&f.mcpConfig, "mcp-config", "", mcpmount.Usage+"; their calls are confirm-level unless annotated read-only")
}

// check validates the flags against the settings they complete.
func (f *features) check(s settings.Settings) error {
	if f.maxIterations < 0 {
		return fmt.Errorf("-max-iterations %d: must not be negative", f.maxIterations)
	}
	for _, sk := range splitList(f.skills) {
		if !slices.Contains(knownSkills, sk) {
			return fmt.Errorf("-skills: unknown skill %q (want %s)", sk, strings.Join(knownSkills, ", "))
		}
		if sk == "fetch" && len(s.Web.Allow) == 0 {
			return fmt.Errorf(`-skills fetch needs read_webpage: give -web-allow DOMAINS (or "*" for every public one), since no one can approve a fetch`)
		}
	}
	return nil
}

// apply registers the tools and fills in cfg; the returned function
// releases what it started (language and MCP servers).
func (f *features) apply(ctx context.Context, s settings.Settings, ws *safety.Workspace, reg *tools.Registry, cfg *agent.Config, logger *slog.Logger) (func(), error) {
	cleanup := func() {}
	cfg.ToolCalling = agent.ToolCalling(s.ToolCalling)
	cfg.MaxIterations = f.maxIterations // 0: the library's default, agent.DefaultEnvelopeRounds in envelope mode
	if err := reg.Register(pdftools.NewRead(ws)); err != nil {
		return cleanup, err
	}
	if f.mcpConfig != "" {
		servers, err := mcpmount.Mount(ctx, f.mcpConfig, ws, reg, logger)
		if err != nil {
			return cleanup, fmt.Errorf("-mcp-config: %w", err)
		}
		cleanup = func() {
			if err := servers.Close(); err != nil {
				logger.Warn("headless: stopping MCP servers", "error", err)
			}
		}
	}
	stopMCP := cleanup
	stop, err := hostcfg.Tools(ctx, s, ws, reg, logger)
	if err != nil {
		return cleanup, err
	}
	cleanup = func() { stop(); stopMCP() }
	readWebpage, _, _ := reg.Lookup("read_webpage")
	for _, sk := range splitList(f.skills) {
		switch sk {
		case "todos":
			cfg.Skills = append(cfg.Skills, agent.TodosSkill())
		case "build":
			cfg.Skills = append(cfg.Skills, agent.BuildSkill(projectctx.BuildCommands{}))
		case "fetch":
			cfg.Skills = append(cfg.Skills, agent.FetchSkill(readWebpage))
		case "virtual_terminal":
			cfg.Skills = append(cfg.Skills, agent.VirtualTerminalSkill())
		}
	}
	if f.subagents {
		cfg.Subagents = &agent.SubagentConfig{}
	}
	if f.gitBranch {
		cfg.GitBranch = &agent.GitBranch{}
	}
	return cleanup, nil
}

func splitList(s string) []string {
	var out []string
	for part := range strings.SplitSeq(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}
