// Command headless is Tether as a JSON-lines gateway: a host (an editor
// backend, a bot, a CI job) writes requests on standard input, one JSON
// object per line, and reads every event of every run on standard output,
// one JSON object per line with a snake_case "type".
//
//	go run ./examples/tether-headless -workspace DIR -model ollama:qwen3:8b
//	go run ./examples/tether-headless -workspace DIR -model script:session.jsonl < requests.jsonl
//
// Requests:
//
//	{"type":"prompt","text":"Fix the failing test","mode":"agent"}   mode: agent (default), explore, plan, review
//	{"type":"prompt","text":"Why?","attach":["main.go","lib/x.go:L10-L40"]}  files or selections the model gets as already read
//	{"type":"cancel"}                                                ends the running prompt and drops prompts queued before it
//	{"type":"undo","checkpoint":"ID"}                                ID from files_changed / run_finished; "" = the last run's
//	{"type":"approve","id":"ID","decision":"allow|deny"}             answers an approval_requested (with -approvals stdin)
//	{"type":"apply","token":"chg_…"}                                 applies a staged change (with -staging)
//
// Prompts and undos run one after another, in the order they arrive, and
// each prompt continues the conversation of the previous one. Approvals
// and cancels are served as soon as they are read, even while a run is
// waiting. headless -h prints the whole protocol with examples.
//
// With the sandbox on (the default where the kernel has Landlock),
// commands may also write the temporary directory and the user's cache
// directory, where build tools keep their caches; -h names them and the
// log says so at start.
//
// Events are the agent's own (run_started, text_delta, tool_action,
// approval_requested, approval_resolved, files_changed, final_message,
// run_finished, …: see event.Marshal) plus the gateway's:
//
//	{"type":"undo_finished","checkpoint":"…","restored":[…],"removed":[…],"skipped":[…]}
//	{"type":"change_applied","token":"chg_…","path":"…","checkpoint":"…","added":N,"removed":N}
//	{"type":"error","line":3,"error":"…"}     a request that could not be served
//
// There is no human behind a gateway, so by default every confirm-level
// action (a command no rule allows, a write to a sensitive file such as
// .env) is denied, and the model is told why. With -approvals stdin the
// host answers them itself with "approve" requests; unanswered ones are
// denied after -approval-timeout, and all of them when input ends.
//
// Optional capabilities, off by default:
//
//	-tool-calling envelope   one fenced JSON action envelope per reply, for small models (6 rounds unless -max-iterations)
//	-skills todos,build,fetch,virtual_terminal
//	-subagents               a read-only helper agent the model can hand sub-tasks to
//	-lsp                     code-intelligence tools, served by installed language servers (gopls…)
//	-web-allow DOMAINS       read_webpage for those domains ("*": any public one); -web-deny to exclude
//	-git-branch              a git branch per session
//	-mcp-config FILE         the tools of the MCP servers in FILE (mcpServers JSON), as SERVER__TOOL
//	-wire-log FILE           every HTTP request and response to the model server, keys redacted
//	-folder [NAME=]DIR       a further root of a multi-root workspace (repeatable): its files are NAME/…
//
// read_pdf (text of PDFs in the workspace) is always offered. The flags
// shared with coder and web (-workspace, -model, -allow, -sandbox, -lsp…)
// can also be set once in the settings files (see package settings:
// ~/.config/tether/settings.json, .tether/settings.json); a flag given
// overrides them.
//
// With -staging, file tools only stage their changes (the tool_action's
// output holds a chg_… token and the diff) until the host applies a token
// with an apply request: that is the host's approval, so it may write a
// confirm-level file; the model's own apply_file_change calls may not
// without -approvals stdin. A token works once and is refused if the
// file changed since the preview.
//
// The process exits 0 when standard input ends and the work it asked for
// is done; 2 for bad flags, 1 when the workspace or model cannot be
// opened. Security decisions are logged to standard error.
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"os/signal"
	"slices"
	"syscall"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/checkpoint"
	"github.com/tetherdev/tether/checkpoint/sqlitestore"
	"github.com/tetherdev/tether/examples/internal/flagparse"
	"github.com/tetherdev/tether/examples/internal/folders"
	"github.com/tetherdev/tether/examples/internal/hostcfg"
	"github.com/tetherdev/tether/llm/modelstr"
	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/settings"
	"github.com/tetherdev/tether/tools"
	"github.com/tetherdev/tether/tools/builtin"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// options are the command-line flags, and the settings they complete.
type options struct {
	shared       *hostcfg.Flags
	set          settings.Settings // the settings files with the flags applied
	untrusted    string            // what the settings left out, for the log
	approvals    string            // "deny" or "stdin"
	checkpointDB string
	staging      bool
	logLevel     slog.Level
	folders      folders.Flag
	features     features
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("tether-headless", flag.ContinueOnError)
	fs.SetOutput(stderr)
	setUsage(fs, stderr)
	var o options
	o.shared = hostcfg.Register(fs, hostcfg.Common...)
	fs.Var(&o.folders, "folder", folders.Usage)
	fs.StringVar(&o.approvals, "approvals", "deny", `who answers confirm-level actions: "deny" (nobody: they are refused) or "stdin" (the host, with approve requests)`)
	fs.StringVar(&o.checkpointDB, "db", "", "SQLite file for checkpoints, so undo survives a restart (default: in memory)")
	fs.BoolVar(&o.staging, "staging", false, "file tools only stage changes; the host applies them with apply requests")
	fs.TextVar(&o.logLevel, "log-level", slog.LevelInfo, "stderr log level: debug, info, warn, error")
	o.features.flags(fs)
	if err := flagparse.Parse(fs, args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q: requests come on standard input", fs.Arg(0))
	}
	if o.approvals != "deny" && o.approvals != "stdin" {
		return o, fmt.Errorf("-approvals %q: want deny or stdin", o.approvals)
	}
	l, err := o.shared.Load(settings.Env{})
	if err != nil {
		return o, err
	}
	o.set, o.untrusted = l.Settings, hostcfg.Untrusted(l, "headless")
	if o.set.Model == "" {
		return o, fmt.Errorf("-model is required (or \"model\" in %s): ollama:NAME, openai:NAME or script:FILE", settings.ProjectFile)
	}
	if err := o.features.check(o.set); err != nil {
		return o, err
	}
	return o, nil
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	o, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "headless:", err)
		return 2
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: o.logLevel}))
	if o.untrusted != "" {
		logger.Warn(o.untrusted)
	}
	g, err := newGateway(ctx, o, stdout, logger)
	if err != nil {
		fmt.Fprintln(stderr, "headless:", err)
		return 1
	}
	defer g.close()
	if err := g.serve(ctx, stdin); err != nil {
		fmt.Fprintln(stderr, "headless:", err)
		return 1
	}
	return 0
}

// newGateway opens the workspace, the model, the tools and the executor.
func newGateway(ctx context.Context, o options, stdout io.Writer, logger *slog.Logger) (*gateway, error) {
	mopts := []modelstr.Option{modelstr.WithLogger(logger)}
	wire, err := hostcfg.OpenWireLog(o.shared.WireLog)
	if err != nil {
		return nil, err
	}
	if wire != nil {
		mopts = append(mopts, modelstr.WithWireLog(wire))
	}
	model, err := hostcfg.OpenModel(o.set, mopts...)
	if err != nil {
		if wire != nil {
			wire.Close()
		}
		return nil, err
	}
	ws, err := safety.OpenWorkspace(o.shared.Workspace, append(o.folders.Options(), hostcfg.WorkspaceOptions(o.set)...)...)
	if err != nil {
		if wire != nil {
			wire.Close()
		}
		return nil, fmt.Errorf("workspace: %w", err)
	}
	g := &gateway{out: &lineWriter{w: stdout}, ws: ws, logger: logger, wire: wire,
		modes: append(slices.Clone(settings.BuiltinModes), slices.Sorted(maps.Keys(o.set.Modes))...)}
	ok := false
	defer func() {
		if !ok {
			g.close()
		}
	}()

	reg := &tools.Registry{}
	// Every command in a kill domain: nothing it starts outlives it or
	// this process.
	bopts := builtin.Options{Contain: true}
	sandbox := cmp.Or(o.set.Sandbox, "auto")
	switch sandbox {
	case "on", "auto":
		// Compilers and test runners write their caches and temporary
		// files outside the workspace.
		var extra []string
		for _, d := range []string{os.TempDir(), cacheDir()} {
			if fi, err := os.Stat(d); err == nil && fi.IsDir() {
				extra = append(extra, d)
			}
		}
		// The workspace's further folders are as writable as its root.
		sb := ws.NewSandbox(append(o.folders.Dirs(), extra...)...)
		if err := sb.Available(); err != nil && sandbox == "auto" {
			logger.Warn("headless: commands run WITHOUT a sandbox", "reason", err)
			break
		}
		// Say so: these directories are shared with the user's other
		// programs, and commands the agent runs may write there.
		logger.Info("headless: sandboxed commands may also write outside the workspace", "dirs", extra)
		sb.BestEffort, sb.Logger = sandbox == "auto", logger
		bopts.Sandbox = sb
	case "off":
	default:
		return nil, fmt.Errorf("-sandbox %q: want auto, on or off", sandbox)
	}
	if _, err := builtin.Register(reg, ws, bopts); err != nil {
		return nil, fmt.Errorf("tools: %w", err)
	}
	if missing := (&safety.KillDomain{}).Missing(); len(missing) > 0 {
		logger.Info("headless: command containment", "missing", missing)
	}

	store := checkpoint.Store(checkpoint.NewMemoryStore())
	if o.checkpointDB != "" {
		s, err := sqlitestore.Open(ctx, o.checkpointDB)
		if err != nil {
			return nil, fmt.Errorf("checkpoints: %w", err)
		}
		store = s
	}
	g.store = store
	cps, err := checkpoint.New(ws, store, checkpoint.WithLogger(logger))
	if err != nil {
		return nil, fmt.Errorf("checkpoints: %w", err)
	}
	// A previous process killed mid-run: settle what it left, and make its
	// checkpoint the one a bare undo takes back.
	recovered, err := cps.Recover(ctx)
	if err != nil {
		return nil, fmt.Errorf("checkpoints: recovering an interrupted run: %w", err)
	}
	for _, i := range recovered {
		logger.Warn("headless: recovered a run interrupted by a crash; undo with its checkpoint id takes it back", "checkpoint", i.ID)
		g.lastCheckpoint = i.ID
	}

	rules := o.set.CommandRules()
	rules.Logger = logger
	cfg := agent.Config{
		Model:        model,
		Tools:        reg,
		Workspace:    ws,
		CommandRules: rules,
		Safety:       hostcfg.Safety(o.set),
		Checkpoints:  cps,
		Sink:         g.sink(g.out),
		Logger:       logger,
		Modes:        hostcfg.Modes(o.set),
		Mode:         agent.Mode(o.set.Mode),
	}
	if o.approvals == "stdin" {
		g.approvals = &approval.Manager{Timeout: hostcfg.ApprovalTimeout(o.set), Notify: g.notify}
		g.announced = map[string]*approval.Response{}
		cfg.Policy = approval.Interactive()
		cfg.Approver = approval.Func(g.approve)
		cfg.ApprovalTimeout = -1 // the Manager's own timeout applies
	} else {
		// Nobody to ask: the policy denies what the safety layer wants
		// confirmed, so the model learns at once why, and no approval
		// card is ever shown. A staged change the host applies is its
		// own approval.
		cfg.Policy = approval.Headless(nil)
	}
	if o.staging {
		cfg.Staging = approval.NewStager(ws, approval.StagerConfig{Logger: logger})
		g.staging = true
	}
	if g.stop, err = o.features.apply(ctx, o.set, ws, reg, &cfg, logger); err != nil {
		return nil, err
	}
	if g.x, err = agent.New(cfg); err != nil {
		return nil, err
	}
	ok = true
	return g, nil
}

// cacheDir is the user's cache directory (Go's build cache, pip's, npm's),
// or "" when there is none.
func cacheDir() string {
	d, _ := os.UserCacheDir()
	return d
}
