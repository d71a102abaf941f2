// Command acp is Tether as an Agent Client Protocol agent: an editor (Zed,
// JetBrains IDEs, Neovim through CodeCompanion or avante.nvim, Emacs
// through agent-shell, VS Code through an ACP client extension) launches
// it and talks to it over standard input and output.
//
//	go build -o ~/bin/tether-acp ./examples/tether-acp
//	tether-acp -model ollama:qwen3:8b
//	tether-acp -model script:session.jsonl -db memory     # offline, for tests
//
// Each session works in the directory the editor names in session/new:
// every file tool is confined to it, commands run in it (sandboxed where
// the kernel has Landlock), and confirm-level actions (a command no rule
// allows, a write to a sensitive file) become permission cards in the
// editor, showing the exact diff or command. Sessions and checkpoints are
// kept in -db (SQLite), so the editor can list and reload sessions and
// /undo works after a restart.
//
// Standard output carries the protocol only; logs go to standard error,
// which editors show in their agent log. The process exits when the
// editor closes standard input: 0, or 2 for bad flags, 1 when the model
// or the database cannot be opened.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/tetherdev/tether/acp"
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/agent/session"
	sessionpg "github.com/tetherdev/tether/agent/session/pgstore"
	sessionsqlite "github.com/tetherdev/tether/agent/session/sqlitestore"
	"github.com/tetherdev/tether/checkpoint"
	cppg "github.com/tetherdev/tether/checkpoint/pgstore"
	cpsqlite "github.com/tetherdev/tether/checkpoint/sqlitestore"
	"github.com/tetherdev/tether/examples/internal/flagparse"
	"github.com/tetherdev/tether/examples/internal/mcpmount"
	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/llm/modelstr"
	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
	"github.com/tetherdev/tether/tools/builtin"
)

func main() {
	safety.SandboxMain() // no-op unless this process is a sandboxed command's helper
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// options are the command-line flags.
type options struct {
	model           string
	workspace       string
	db              string
	sandbox         string
	allowRules      string
	readOnlyCmds    bool
	todos           bool
	toolCalling     string
	maxIterations   int
	mcpConfig       string
	approvalTimeout time.Duration
	logLevel        slog.Level
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("tether-acp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: tether-acp -model MODEL [flags]

An Agent Client Protocol agent: an editor launches it and speaks ACP on its
standard input and output. Each session works in the directory the editor
names; confirm-level actions become permission cards in the editor.

In Zed's settings.json:
  "agent_servers": {"Tether": {"type": "custom", "command": "/path/to/tether-acp",
                                "args": ["-model", "ollama:qwen3:8b"], "env": {}}}

Models: ollama:NAME (OLLAMA_HOST), openai:NAME (OPENAI_BASE_URL, OPENAI_API_KEY),
script:FILE (a scripted model, for tests).
Sessions and checkpoints are kept in -db (default under $XDG_STATE_HOME).
Exit status: 0 when the editor closes standard input, 2 for bad flags,
1 when the model or the database cannot be opened.

Flags:
`)
		fs.PrintDefaults()
	}
	var o options
	fs.StringVar(&o.model, "model", "", "model: ollama:NAME, openai:NAME or script:FILE (required)")
	fs.StringVar(&o.workspace, "workspace", "", "when set, sessions may only work in this directory or below it (the editor names each session's directory)")
	fs.StringVar(&o.db, "db", defaultDB(), `where sessions and checkpoints are kept, so sessions can be reloaded and undone after a restart: a SQLite file, a PostgreSQL URL (postgres://…) several agents share, or "memory"`)
	fs.StringVar(&o.sandbox, "sandbox", "auto", `confine commands with Landlock to the session's directory, the temporary directory and the user's cache directory: "auto", "on" (fail when it cannot) or "off"`)
	fs.StringVar(&o.allowRules, "allow", "", "comma-separated command rules that run without asking, e.g. 'go test,npm run test'")
	fs.BoolVar(&o.readOnlyCmds, "allow-read-only", true, "run read-only commands (ls, cat, git status…) without asking")
	fs.BoolVar(&o.todos, "todos", true, "offer the todos skill, whose plan the editor shows")
	fs.StringVar(&o.toolCalling, "tool-calling", "", "how tool calls travel: native, text or envelope (one fenced JSON action block per reply, for small models); empty picks from the model")
	fs.IntVar(&o.maxIterations, "max-iterations", 0, "model calls per prompt (default 25, 10 in read-only modes)")
	fs.StringVar(&o.mcpConfig, "mcp-config", "", mcpmount.Usage+"; added to the servers the editor hands each session")
	fs.DurationVar(&o.approvalTimeout, "approval-timeout", 30*time.Minute, "how long a permission card waits for an answer before it counts as rejected")
	fs.TextVar(&o.logLevel, "log-level", slog.LevelInfo, "stderr log level: debug, info, warn, error")
	if err := flagparse.Parse(fs, args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q: the editor speaks ACP on standard input", fs.Arg(0))
	}
	if o.model == "" {
		return o, errors.New("-model is required: ollama:NAME, openai:NAME or script:FILE")
	}
	switch o.sandbox {
	case "auto", "on", "off":
	default:
		return o, fmt.Errorf("-sandbox %q: want auto, on or off", o.sandbox)
	}
	switch agent.ToolCalling(o.toolCalling) {
	case agent.ToolCallingAuto, agent.ToolCallingNative, agent.ToolCallingText, agent.ToolCallingEnvelope:
	default:
		return o, fmt.Errorf("-tool-calling %q: want native, text or envelope", o.toolCalling)
	}
	if o.maxIterations < 0 {
		return o, fmt.Errorf("-max-iterations %d: must not be negative", o.maxIterations)
	}
	if o.approvalTimeout <= 0 {
		return o, fmt.Errorf("-approval-timeout %v: must be positive", o.approvalTimeout)
	}
	if o.workspace != "" {
		abs, err := filepath.Abs(o.workspace)
		if err != nil {
			return o, fmt.Errorf("-workspace: %w", err)
		}
		o.workspace = abs
	}
	return o, nil
}

// isPostgres reports whether -db names a PostgreSQL database (a URL, or a
// keyword/value connection string) rather than a SQLite file.
func isPostgres(db string) bool {
	return strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://") ||
		strings.HasPrefix(db, "host=") || strings.Contains(db, "dbname=")
}

// defaultDB is $XDG_STATE_HOME/tether/acp.db (~/.local/state when unset).
func defaultDB() string {
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "memory"
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "tether", "acp.db")
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	o, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "acp:", err)
		return 2
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: o.logLevel}))
	h, err := newHost(ctx, o, logger)
	if err != nil {
		fmt.Fprintln(stderr, "acp:", err)
		return 1
	}
	defer h.close()
	srv, err := acp.NewServer(acp.Config{
		Open:            h.open,
		Store:           h.sessions,
		Auth:            h.auth(),
		ApprovalTimeout: o.approvalTimeout,
		Name:            "tether",
		Version:         "dev",
		Logger:          logger,
	})
	if err != nil {
		fmt.Fprintln(stderr, "acp:", err)
		return 1
	}
	if err := srv.Serve(ctx, stdin, stdout); err != nil {
		fmt.Fprintln(stderr, "acp:", err)
		return 1
	}
	return 0
}

// host holds what every session shares: the model and the stores.
type host struct {
	o        options
	logger   *slog.Logger
	model    llm.Model
	sessions session.Store
	cps      checkpoint.Store
}

func newHost(ctx context.Context, o options, logger *slog.Logger) (*host, error) {
	model, err := modelstr.Open(o.model, modelstr.WithLogger(logger))
	if err != nil {
		return nil, err
	}
	h := &host{o: o, logger: logger, model: model}
	if o.db == "memory" || o.db == ":memory:" {
		h.sessions, h.cps = session.NewMemoryStore(), checkpoint.NewMemoryStore()
		return h, nil
	}
	if isPostgres(o.db) {
		// Several agents (one per editor window, or on several machines)
		// share the sessions; a session lease keeps two from running one.
		ss, err := sessionpg.Open(ctx, o.db)
		if err != nil {
			return nil, fmt.Errorf("-db: sessions: %w", err)
		}
		cs, err := cppg.Open(ctx, o.db)
		if err != nil {
			ss.Close()
			return nil, fmt.Errorf("-db: checkpoints: %w", err)
		}
		h.sessions, h.cps = ss, cs
		return h, nil
	}
	if err := os.MkdirAll(filepath.Dir(o.db), 0o700); err != nil {
		return nil, fmt.Errorf("-db: %w", err)
	}
	ss, err := sessionsqlite.Open(ctx, o.db)
	if err != nil {
		return nil, fmt.Errorf("-db %s: %w", o.db, err)
	}
	cs, err := cpsqlite.Open(ctx, o.db)
	if err != nil {
		ss.Close()
		return nil, fmt.Errorf("-db %s: %w", o.db, err)
	}
	h.sessions, h.cps = ss, cs
	return h, nil
}

func (h *host) close() {
	if c, ok := h.sessions.(io.Closer); ok {
		c.Close()
	}
	if h.cps != nil {
		h.cps.Close()
	}
}

// auth asks the editor for nothing unless the backend needs a key it
// does not have: an openai: model without OPENAI_API_KEY.
func (h *host) auth() *acp.Auth {
	if !strings.HasPrefix(h.o.model, "openai:") {
		return nil
	}
	return openAIAuth()
}

// open builds one session's agent in the editor's directory.
func (h *host) open(ctx context.Context, env acp.SessionEnv) (*acp.Setup, error) {
	if h.o.workspace != "" && env.Cwd != h.o.workspace && !strings.HasPrefix(env.Cwd, h.o.workspace+string(filepath.Separator)) {
		return nil, fmt.Errorf("%s is outside -workspace %s", env.Cwd, h.o.workspace)
	}
	ws, err := safety.OpenWorkspace(env.Cwd)
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
	bopts := builtin.Options{Files: files}
	if sb := h.sandbox(ws); sb != nil {
		bopts.Sandbox = sb
	} else if h.o.sandbox == "on" {
		return nil, errors.New("-sandbox on: this kernel cannot confine commands")
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
	cps, err := checkpoint.New(files, h.cps, checkpoint.WithLogger(h.logger))
	if err != nil {
		return nil, fmt.Errorf("checkpoints: %w", err)
	}
	rules := safety.CommandRules{AllowReadOnly: h.o.readOnlyCmds, Logger: h.logger}
	for r := range strings.SplitSeq(h.o.allowRules, ",") {
		if r = strings.TrimSpace(r); r != "" {
			rules.Allow = append(rules.Allow, r)
		}
	}
	cfg := agent.Config{Model: h.model, Tools: reg, Workspace: ws, CommandRules: rules, Checkpoints: cps, Logger: h.logger,
		ToolCalling: agent.ToolCalling(h.o.toolCalling), MaxIterations: h.o.maxIterations}
	if h.o.todos {
		cfg.Skills = append(cfg.Skills, agent.TodosSkill())
	}
	ok = true
	return &acp.Setup{Agent: cfg, Close: closeAll}, nil
}

// sandbox is the Landlock confinement of a session's commands, or nil.
func (h *host) sandbox(ws *safety.Workspace) *safety.Sandbox {
	if h.o.sandbox == "off" {
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
	sb.BestEffort, sb.Logger = h.o.sandbox == "auto", h.logger
	return sb
}
