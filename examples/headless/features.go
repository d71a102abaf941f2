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
	"github.com/tetherdev/tether/examples/internal/mcpmount"
	"github.com/tetherdev/tether/lsp"
	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
	"github.com/tetherdev/tether/tools/lsptools"
	"github.com/tetherdev/tether/tools/pdftools"
	"github.com/tetherdev/tether/tools/webtools"
)

// knownSkills are the names -skills accepts.
var knownSkills = []string{"todos", "build", "fetch", "virtual_terminal"}

// features are the optional capabilities the flags turn on.
type features struct {
	toolCalling   string
	maxIterations int
	skills        string
	subagents     bool
	lsp           bool
	web           bool
	webAllow      string
	webDeny       string
	gitBranch     bool
	mcpConfig     string
}

func (f *features) flags(fs *flag.FlagSet) {
	fs.StringVar(&f.toolCalling, "tool-calling", "", "how tool calls travel: native, text or envelope (one fenced JSON action block per reply, 6 rounds by default); empty picks from the model")
	fs.IntVar(&f.maxIterations, "max-iterations", 0, "model calls per prompt (default 25, 10 in read-only modes, 6 with -tool-calling envelope)")
	fs.StringVar(&f.skills, "skills", "", "comma-separated skills to offer: "+strings.Join(knownSkills, ", ")+" (fetch needs -web)")
	fs.BoolVar(&f.subagents, "subagents", false, "let the model hand a sub-task to a read-only helper agent")
	fs.BoolVar(&f.lsp, "lsp", false, "add the code-intelligence tools (find_definition, find_references…), served by gopls, typescript-language-server… when they are installed")
	fs.BoolVar(&f.web, "web", false, "add read_webpage, for the domains of -web-allow (public addresses only)")
	fs.StringVar(&f.webAllow, "web-allow", "", `comma-separated domains read_webpage may reach, each with its subdomains; "*" for every public domain. Required with -web: nobody is there to approve others`)
	fs.StringVar(&f.webDeny, "web-deny", "", "comma-separated domains read_webpage never reaches")
	fs.BoolVar(&f.gitBranch, "git-branch", false, "work on a new git branch, one per session: later prompts continue on it")
	fs.StringVar(&f.mcpConfig, "mcp-config", "", mcpmount.Usage+"; their calls are confirm-level unless annotated read-only")
}

func (f *features) check() error {
	switch agent.ToolCalling(f.toolCalling) {
	case agent.ToolCallingAuto, agent.ToolCallingNative, agent.ToolCallingText, agent.ToolCallingEnvelope:
	default:
		return fmt.Errorf("-tool-calling %q: want native, text or envelope", f.toolCalling)
	}
	if f.maxIterations < 0 {
		return fmt.Errorf("-max-iterations %d: must not be negative", f.maxIterations)
	}
	for _, s := range splitList(f.skills) {
		if !slices.Contains(knownSkills, s) {
			return fmt.Errorf("-skills: unknown skill %q (want %s)", s, strings.Join(knownSkills, ", "))
		}
		if s == "fetch" && !f.web {
			return fmt.Errorf("-skills fetch needs -web")
		}
	}
	if (f.webAllow != "" || f.webDeny != "") && !f.web {
		return fmt.Errorf("-web-allow and -web-deny need -web")
	}
	if f.web && f.webAllow == "" {
		return fmt.Errorf(`-web needs -web-allow: the domains the model may read (or "*" for every public one), since no one can approve a fetch`)
	}
	return nil
}

// apply registers the tools and fills in cfg; the returned function
// releases what it started (language servers).
func (f *features) apply(ctx context.Context, ws *safety.Workspace, reg *tools.Registry, cfg *agent.Config, logger *slog.Logger) (func(), error) {
	cleanup := func() {}
	cfg.ToolCalling = agent.ToolCalling(f.toolCalling)
	cfg.MaxIterations = f.maxIterations // 0: the library's default, agent.DefaultEnvelopeRounds in envelope mode
	if err := reg.Register(pdftools.NewRead(ws)); err != nil {
		return cleanup, err
	}
	var readWebpage tools.Tool
	if f.web {
		web := webtools.Config{AllowDomains: splitList(f.webAllow), DenyDomains: splitList(f.webDeny)}
		if slices.Equal(web.AllowDomains, []string{"*"}) {
			// Every public domain, read without asking: nobody is there to.
			web.AllowDomains, web.ApproveAllDomains = nil, true
		}
		fetcher, err := webtools.NewFetcher(web)
		if err != nil {
			return cleanup, err
		}
		readWebpage = webtools.NewRead(fetcher)
		if err := reg.Register(readWebpage); err != nil {
			return cleanup, err
		}
	}
	if f.lsp {
		m := &lsp.Manager{Root: ws.Root(), Logger: logger}
		cleanup = func() { m.Close(context.WithoutCancel(ctx)) }
		if err := lsptools.Register(reg, lsptools.Config{Files: ws, Servers: m}); err != nil {
			return cleanup, fmt.Errorf("lsp tools: %w", err)
		}
	}
	if f.mcpConfig != "" {
		servers, err := mcpmount.Mount(ctx, f.mcpConfig, ws, reg, logger)
		if err != nil {
			return cleanup, fmt.Errorf("-mcp-config: %w", err)
		}
		stopLSP := cleanup
		cleanup = func() {
			if err := servers.Close(); err != nil {
				logger.Warn("headless: stopping MCP servers", "error", err)
			}
			stopLSP()
		}
	}
	for _, s := range splitList(f.skills) {
		switch s {
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
