// Command coder is an interactive coding agent for the repository you run
// it in.
//
//	cd ~/src/myproject
//	go run github.com/tetherdev/tether/examples/coder -model ollama:qwen3:8b
//
// Type a task and watch it work: the model's thinking and text stream in,
// tool actions show under progress groups with a spinner, and anything
// that needs your say (a command no rule allows, a write to a sensitive
// file) stops for an answer: y (once), a (always, for exactly this
// command or file), n (no; "n: use make test" tells the model why). The
// command is shown escaped, with its severity and the reasons; file
// edits with a coloured diff.
//
// Every run's file changes are one checkpoint:
//
//	/diff                     what the last run changed, with +N −N
//	/undo [force]             put the files back (force: even if you edited them since)
//	/keep                     accept the changes
//	/mode agent|plan|explore|review   read-only modes never change anything
//	/compact                  summarise older turns to free context
//	/sessions [ID]            list sessions, or switch to one (they survive restarts)
//	/new                      start a new session
//	/help, /quit              (Ctrl-D quits too)
//
// Ctrl-C cancels the running task (its command is killed, no file is left
// half-written) and returns to the prompt; it never exits the program.
//
// Sessions and checkpoints are kept in one SQLite file (-db; default in
// the user cache directory), so /undo and /sessions work after a restart.
// Security decisions are logged to -log.
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
	"sync"

	"golang.org/x/term"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/agent/session"
	sessionsqlite "github.com/tetherdev/tether/agent/session/sqlitestore"
	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/checkpoint"
	cpsqlite "github.com/tetherdev/tether/checkpoint/sqlitestore"
	"github.com/tetherdev/tether/llm/llmtest"
	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
	"github.com/tetherdev/tether/tools/builtin"
)

func main() {
	safety.SandboxMain()
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

type options struct {
	model, db, logFile, sessionID, mode string
	auto, sandbox                       bool
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	cache, _ := os.UserCacheDir()
	state := filepath.Join(cache, "tether")
	fl := flag.NewFlagSet("coder", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.StringVar(&o.model, "model", "", "model: ollama:NAME, openai:NAME or script:FILE (required)")
	fl.StringVar(&o.db, "db", filepath.Join(state, "coder.db"), `SQLite file for sessions and checkpoints; ":memory:" keeps nothing`)
	fl.StringVar(&o.logFile, "log", filepath.Join(state, "coder.log"), "file that receives the safety and approval log")
	fl.StringVar(&o.sessionID, "session", "", "resume this session (see /sessions)")
	fl.StringVar(&o.mode, "mode", "agent", "starting mode: agent, plan, explore or review")
	fl.BoolVar(&o.auto, "auto", false, "run confirm-level commands and edits without asking (critical ones are still asked)")
	fl.BoolVar(&o.sandbox, "sandbox", false, "confine commands with Landlock (Linux): they can write only in the workspace")
	if err := fl.Parse(args); err != nil {
		return o, err
	}
	if fl.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q (the current directory is the workspace)", fl.Arg(0))
	}
	if o.model == "" {
		return o, errors.New("-model is required: ollama:NAME, openai:NAME or script:FILE")
	}
	if !validMode(o.mode) {
		return o, fmt.Errorf("-mode %q: want agent, plan, explore or review", o.mode)
	}
	return o, nil
}

func validMode(m string) bool {
	switch agent.Mode(m) {
	case agent.ModeAgent, agent.ModePlan, agent.ModeExplore, agent.ModeReview:
		return true
	}
	return false
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	o, err := parseFlags(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintln(stderr, "coder:", err)
		return 2
	}
	c, err := open(context.Background(), o, stdin, stdout)
	if err != nil {
		fmt.Fprintln(stderr, "coder:", err)
		return 1
	}
	defer c.close()
	c.loop()
	return 0
}

// coder is one interactive program.
type coder struct {
	scr       *screen
	in        *input
	ws        *safety.Workspace
	cps       *checkpoint.Manager
	sessions  *session.Manager
	closers   []io.Closer
	logger    *slog.Logger
	modelName string

	sess           *session.Session // nil until the first prompt or -session
	mode           agent.Mode
	lastCheckpoint string

	mu        sync.Mutex
	cancelRun context.CancelCauseFunc // set while a task runs
}

func open(ctx context.Context, o options, stdin io.Reader, stdout io.Writer) (*coder, error) {
	f, isFile := stdout.(*os.File)
	scr := newScreen(stdout, isFile && term.IsTerminal(int(f.Fd())))
	c := &coder{scr: scr, in: newInput(stdin), mode: agent.Mode(o.mode), modelName: o.model}
	ok := false
	defer func() {
		if !ok {
			c.close()
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
		c.closers = append(c.closers, lf)
		logOut = lf
	}
	c.logger = slog.New(slog.NewTextHandler(logOut, nil))

	model, err := llmtest.Open(o.model, llmtest.WithLogger(c.logger))
	if err != nil {
		return nil, err
	}
	cwd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	if c.ws, err = safety.OpenWorkspace(cwd); err != nil {
		return nil, fmt.Errorf("workspace: %w", err)
	}
	reg := &tools.Registry{}
	bopts := builtin.Options{}
	if o.sandbox {
		bopts.Sandbox = c.ws.NewSandbox()
	}
	if _, err := builtin.Register(reg, c.ws, bopts); err != nil {
		return nil, err
	}

	var cpStore checkpoint.Store = checkpoint.NewMemoryStore()
	var sessStore session.Store = session.NewMemoryStore()
	if o.db != ":memory:" {
		if err := os.MkdirAll(filepath.Dir(o.db), 0o700); err != nil {
			return nil, err
		}
		cs, err := cpsqlite.Open(ctx, o.db)
		if err != nil {
			return nil, fmt.Errorf("checkpoints: %w", err)
		}
		c.closers = append(c.closers, cs)
		ss, err := sessionsqlite.Open(ctx, o.db)
		if err != nil {
			return nil, fmt.Errorf("sessions: %w", err)
		}
		c.closers = append(c.closers, ss)
		cpStore, sessStore = cs, ss
	}
	if c.cps, err = checkpoint.New(c.ws, cpStore, checkpoint.WithLogger(c.logger)); err != nil {
		return nil, err
	}
	policy := approval.Interactive()
	if o.auto {
		policy = approval.AutoApprove()
	}
	c.sessions, err = session.NewManager(sessStore, agent.Config{
		Model:        model,
		Tools:        reg,
		Workspace:    c.ws,
		CommandRules: safety.CommandRules{AllowReadOnly: true, Logger: c.logger},
		Policy:       policy,
		Approver:     &approver{scr: scr, in: c.in},
		Checkpoints:  c.cps,
		Sink:         scr,
		Logger:       c.logger,
	})
	if err != nil {
		return nil, err
	}
	if o.sessionID != "" {
		if err := c.switchSession(ctx, o.sessionID); err != nil {
			return nil, err
		}
	}
	ok = true
	return c, nil
}

func (c *coder) close() {
	for i := len(c.closers) - 1; i >= 0; i-- {
		c.closers[i].Close()
	}
	if c.ws != nil {
		c.ws.Close()
	}
}

// loop reads prompts and commands until /quit or the end of input.
// Ctrl-C cancels the running task; at the prompt it only says how to quit.
func (c *coder) loop() {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	defer func() {
		signal.Stop(sigs) // no more sends after Stop returns: safe to close
		close(sigs)
	}()
	go func() {
		for range sigs {
			c.mu.Lock()
			cancel := c.cancelRun
			c.mu.Unlock()
			if cancel != nil {
				cancel(errors.New("cancelled with Ctrl-C"))
				c.scr.Println(c.scr.st.warn.Render("^C cancelling the task…"))
			} else {
				c.scr.Println(c.scr.st.dim.Render("(Ctrl-C cancels a running task; /quit or Ctrl-D exits)"))
				c.showPrompt()
			}
		}
	}()

	st := c.scr.st
	cwd := c.ws.Root()
	c.scr.Println(st.bold.Render("tether coder") + st.dim.Render(" · "+cwd+" · "+c.modelName))
	c.scr.Println(st.dim.Render("Type a task, or /help. Ctrl-C cancels a task; /quit or Ctrl-D exits."))
	if c.sess != nil {
		c.announceSession(context.Background())
	}
	for {
		text, err := c.in.next(context.Background(), c.showPrompt)
		c.scr.inputDone()
		if err != nil {
			c.scr.Println(st.dim.Render("bye"))
			return
		}
		text = strings.TrimSpace(text)
		switch {
		case text == "":
		case strings.HasPrefix(text, "/"):
			if quit := c.command(text); quit {
				c.scr.Println(st.dim.Render("bye"))
				return
			}
		default:
			c.task(text)
		}
	}
}

func (c *coder) showPrompt() {
	c.scr.Printf("%s ", c.scr.st.promptMark.Render(string(c.mode)+" ›"))
}

// task runs one prompt in the current session, cancellable with Ctrl-C.
func (c *coder) task(prompt string) {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	if c.sess == nil {
		title := filepath.Base(c.ws.Root()) + ": " + oneLine(prompt, 60)
		s, err := c.sessions.Create(ctx, title)
		if err != nil {
			c.fail(err)
			return
		}
		c.sess = s
	}
	c.mu.Lock()
	c.cancelRun = cancel
	c.mu.Unlock()
	res, err := c.sess.Run(ctx, agent.Input{Prompt: prompt, Mode: c.mode})
	c.mu.Lock()
	c.cancelRun = nil
	c.mu.Unlock()
	if res != nil && res.CheckpointID != "" {
		c.lastCheckpoint = res.CheckpointID
	}
	switch {
	case err != nil && ctx.Err() != nil:
		c.scr.Println(c.scr.st.warn.Render("task cancelled: " + context.Cause(ctx).Error()))
	case err != nil:
		c.fail(err)
	}
}

func (c *coder) fail(err error) {
	c.scr.Println(c.scr.st.bad.Render("error: " + err.Error()))
}
