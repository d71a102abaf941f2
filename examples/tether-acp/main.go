// Command acp is Tether as an Agent Client Protocol agent: an editor (Zed,
// JetBrains IDEs, Neovim through CodeCompanion or avante.nvim, Emacs
// through agent-shell, VS Code through an ACP client extension) launches
// it and talks to it over standard input and output.
//
//	go build -o ~/bin/tether-acp ./examples/tether-acp
//	tether-acp -model ollama:qwen3:8b
//	tether-acp -model script:session.jsonl -db memory     # offline, for tests
//
// Each session works in the directory the editor names in session/new,
// with that project's settings (docs/settings.md) and the flags on top:
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
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/tetherdev/tether/acp"
	"github.com/tetherdev/tether/agent/session"
	sessionpg "github.com/tetherdev/tether/agent/session/pgstore"
	sessionsqlite "github.com/tetherdev/tether/agent/session/sqlitestore"
	"github.com/tetherdev/tether/checkpoint"
	cppg "github.com/tetherdev/tether/checkpoint/pgstore"
	cpsqlite "github.com/tetherdev/tether/checkpoint/sqlitestore"
	"github.com/tetherdev/tether/examples/internal/flagparse"
	"github.com/tetherdev/tether/examples/internal/hostcfg"
	"github.com/tetherdev/tether/examples/internal/mcpmount"
	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/llm/modelstr"
	"github.com/tetherdev/tether/settings"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// options are the command-line flags and the user's settings.
type options struct {
	// shared are the flags coder, web and headless take too; the
	// settings they make (shared.Over) apply last, over every file.
	shared *hostcfg.Flags
	// base is the user's settings file with the flags on top: what holds
	// before a session names its project.
	base          settings.Settings
	workspace     string // -workspace: sessions only in this directory or below, when set
	db            string
	todos         bool
	maxIterations int
	mcpConfig     string
	logLevel      slog.Level
}

// defaultApprovalTimeout is longer than the terminal hosts': an editor
// panel is often left while the person reads the code.
const defaultApprovalTimeout = 30 * time.Minute

func parseFlags(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("tether-acp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: tether-acp [-model MODEL] [flags]

An Agent Client Protocol agent: an editor launches it and speaks ACP on its
standard input and output. Each session works in the directory the editor
names, with that project's settings; confirm-level actions become
permission cards in the editor.

In Zed's settings.json:
  "agent_servers": {"Tether": {"type": "custom", "command": "/path/to/tether-acp",
                                "args": ["-model", "ollama:qwen3:8b"], "env": {}}}

Models: ollama:NAME (OLLAMA_HOST), openai:NAME (OPENAI_BASE_URL, OPENAI_API_KEY),
script:FILE (a scripted model, for tests).
Sessions and checkpoints are kept in -db (default under $XDG_STATE_HOME).
-workspace, when given, is the only directory (with those below it) sessions
may work in; -trust then trusts its project settings as they are now.
Exit status: 0 when the editor closes standard input, 2 for bad flags or a
bad user settings file, 1 when the model or the database cannot be opened.

`+hostcfg.SettingsHelp+`
Flags:
`)
		fs.PrintDefaults()
	}
	var o options
	o.shared = hostcfg.Register(fs, hostcfg.Common...)
	fs.StringVar(&o.db, "db", defaultDB(), `where sessions and checkpoints are kept, so sessions can be reloaded and undone after a restart: a SQLite file, a PostgreSQL URL (postgres://…) several agents share, or "memory"`)
	fs.BoolVar(&o.todos, "todos", true, "offer the todos skill, whose plan the editor shows")
	fs.IntVar(&o.maxIterations, "max-iterations", 0, "model calls per prompt (default 25, 10 in read-only modes)")
	fs.StringVar(&o.mcpConfig, "mcp-config", "", mcpmount.Usage+"; added to the servers the editor hands each session")
	fs.TextVar(&o.logLevel, "log-level", slog.LevelInfo, "stderr log level: debug, info, warn, error")
	if err := flagparse.Parse(fs, args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q: the editor speaks ACP on standard input", fs.Arg(0))
	}
	if o.maxIterations < 0 {
		return o, fmt.Errorf("-max-iterations %d: must not be negative", o.maxIterations)
	}
	if o.shared.Set["workspace"] {
		abs, err := filepath.Abs(o.shared.Workspace)
		if err != nil {
			return o, fmt.Errorf("-workspace: %w", err)
		}
		o.workspace = abs
	}
	if o.shared.Trust {
		if o.workspace == "" {
			return o, errors.New("-trust needs -workspace: the project whose settings to trust")
		}
		if err := (settings.Env{}).Trust(o.workspace); err != nil {
			return o, fmt.Errorf("-trust: %w", err)
		}
	}
	user, err := userSettings()
	if err != nil {
		return o, err
	}
	o.base = user.Override(o.shared.Over)
	if o.base.Model == "" {
		return o, errors.New(`-model is required (ollama:NAME, openai:NAME or script:FILE), or "model" in the user settings file`)
	}
	return o, nil
}

// userSettings is the user's settings file alone: one process serves
// every project, so the model (which initialize's authentication
// depends on) and the approval timeout come from it and the flags.
func userSettings() (settings.Settings, error) {
	path, err := settings.Env{}.UserFile()
	if err != nil {
		return settings.Settings{}, err
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return settings.Settings{}, nil
	}
	if err != nil {
		return settings.Settings{}, fmt.Errorf("settings: %w", err)
	}
	return settings.Parse(path, data)
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
		ApprovalTimeout: approvalTimeout(o.base),
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
	o         options
	logger    *slog.Logger
	model     llm.Model
	modelOpts []modelstr.Option // for every model opened: the logger, -wire-log
	wire      *os.File          // -wire-log, or nil
	sessions  session.Store
	cps       checkpoint.Store
}

func newHost(ctx context.Context, o options, logger *slog.Logger) (*host, error) {
	wire, err := hostcfg.OpenWireLog(o.shared.WireLog)
	if err != nil {
		return nil, err
	}
	h := &host{o: o, logger: logger, wire: wire, modelOpts: []modelstr.Option{modelstr.WithLogger(logger)}}
	if wire != nil {
		h.modelOpts = append(h.modelOpts, modelstr.WithWireLog(wire))
	}
	if h.model, err = hostcfg.OpenModel(o.base, h.modelOpts...); err == nil {
		err = h.openStores(ctx)
	}
	if err != nil {
		h.close()
		return nil, err
	}
	return h, nil
}

// openStores opens -db.
func (h *host) openStores(ctx context.Context) error {
	o := h.o
	if o.db == "memory" || o.db == ":memory:" {
		h.sessions, h.cps = session.NewMemoryStore(), checkpoint.NewMemoryStore()
		return nil
	}
	if isPostgres(o.db) {
		// Several agents (one per editor window, or on several machines)
		// share the sessions; a session lease keeps two from running one.
		ss, err := sessionpg.Open(ctx, o.db)
		if err != nil {
			return fmt.Errorf("-db: sessions: %w", err)
		}
		cs, err := cppg.Open(ctx, o.db)
		if err != nil {
			ss.Close()
			return fmt.Errorf("-db: checkpoints: %w", err)
		}
		h.sessions, h.cps = ss, cs
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(o.db), 0o700); err != nil {
		return fmt.Errorf("-db: %w", err)
	}
	ss, err := sessionsqlite.Open(ctx, o.db)
	if err != nil {
		return fmt.Errorf("-db %s: %w", o.db, err)
	}
	cs, err := cpsqlite.Open(ctx, o.db)
	if err != nil {
		ss.Close()
		return fmt.Errorf("-db %s: %w", o.db, err)
	}
	h.sessions, h.cps = ss, cs
	return nil
}

func (h *host) close() {
	if h.wire != nil {
		h.wire.Close()
	}
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
	if !strings.HasPrefix(h.o.base.Model, "openai:") {
		return nil
	}
	return openAIAuth()
}

// approvalTimeout is the user's (or the flag's) approval timeout, or
// defaultApprovalTimeout.
func approvalTimeout(s settings.Settings) time.Duration {
	if s.ApprovalTimeout > 0 {
		return time.Duration(s.ApprovalTimeout)
	}
	return defaultApprovalTimeout
}
