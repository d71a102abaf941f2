// Command coder is a full-screen coding agent for the repository you run
// it in.
//
//	cd ~/src/myproject
//	go run github.com/tetherdev/tether/examples/tether-coder -model ollama:qwen3:8b
//	go run github.com/tetherdev/tether/examples/tether-coder -model script:session.jsonl   # offline
//
// Type a task and watch it work: the model's text streams in as Markdown,
// its thinking collapses to one line with its duration (Ctrl-T expands),
// tool actions show under progress groups, and the plan (todos) and
// subagents' work are shown as they change. The status line shows the
// model, mode, workspace, tokens used and context left, and the session.
//
// Anything that needs your say (a command no rule allows, a write to a
// sensitive file) opens an approval card: the command or path escaped,
// its severity in colour, the reasons, a coloured diff for edits and a
// countdown to the timeout. y allows once, s for this session (never
// offered for critical actions), n refuses and lets you tell the model why.
//
// Every task's file changes are one checkpoint. /review (Ctrl-R) walks
// the changed files hunk by hunk (a accepts, r rejects, A/R the whole
// file); /undo picks any checkpoint of the session to revert; /diff,
// /keep. A running command's output shows live under its action.
//
// Keys: Enter sends, Alt-Enter or Ctrl-J adds a line, ↑/↓ recall history,
// Tab completes /commands and @files (an @file is attached to the
// prompt; @file:L5-L9 attaches those lines), Shift-Tab cycles the mode, PgUp/PgDn scroll, Esc or Ctrl-C
// cancels the running task (its processes are killed), Ctrl-C twice on an
// empty prompt quits.
//
// When standard input or output is not a terminal (or TERM=dumb) the
// coder reads lines and writes plain text, without colour; NO_COLOR drops
// colour in the terminal too.
// Sessions and checkpoints are kept in one SQLite file (-db), so /resume
// and /undo work after a restart. Security decisions are logged to -log.
// Both default to files under the user's cache directory (tether/coder.db
// and tether/coder.log), shared by every workspace; -h names them.
// The model, command rules, sensitive files, modes, language and MCP
// servers can be set once in the settings files (package settings;
// coder -h names them); the flags override them.
// -mcp-config FILE adds the tools of the MCP servers in FILE (the
// mcpServers JSON of Claude Desktop, Cursor and VS Code) as SERVER__TOOL.
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	tea "charm.land/bubbletea/v2"
	"golang.org/x/term"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/examples/internal/flagparse"
	"github.com/tetherdev/tether/examples/internal/folders"
	"github.com/tetherdev/tether/examples/internal/hostcfg"
	"github.com/tetherdev/tether/examples/internal/mcpmount"
	"github.com/tetherdev/tether/settings"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

type options struct {
	model, db, logFile, sessionID, mode string
	workspace                           string // "" is the current directory
	mcpConfig                           string
	wireLog                             string // -wire-log
	folders                             folders.Flag
	auto                                bool
	approvalTimeout                     time.Duration
	set                                 settings.Settings // the settings files with the flags applied
	untrusted                           string            // what the settings left out, to say at start
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	cache, _ := os.UserCacheDir()
	state := filepath.Join(cache, "tether")
	fl := flag.NewFlagSet("tether-coder", flag.ContinueOnError)
	fl.SetOutput(stderr)
	setUsage(fl, stderr, state)
	shared := hostcfg.Register(fl, hostcfg.Common...)
	fl.StringVar(&o.db, "db", filepath.Join(state, "coder.db"), `SQLite file for sessions and checkpoints; ":memory:" keeps nothing`)
	fl.StringVar(&o.logFile, "log", filepath.Join(state, "coder.log"), "file that receives the safety and approval log")
	fl.StringVar(&o.sessionID, "session", "", "resume this session and show its transcript (see /sessions)")
	fl.BoolVar(&o.auto, "auto", false, "run confirm-level commands and edits without asking (critical ones are still asked)")
	fl.StringVar(&o.mcpConfig, "mcp-config", "", mcpmount.Usage)
	fl.Var(&o.folders, "folder", folders.Usage)
	if err := flagparse.Parse(fl, args); err != nil {
		return o, err
	}
	if fl.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q (the workspace is -workspace, or the current directory)", fl.Arg(0))
	}
	l, err := shared.Load(settings.Env{})
	if err != nil {
		return o, err
	}
	o.set, o.untrusted, o.wireLog = l.Settings, hostcfg.Untrusted(l, "coder"), shared.WireLog
	if shared.Set["workspace"] {
		o.workspace = shared.Workspace
	}
	o.model, o.mode = o.set.Model, cmp.Or(o.set.Mode, string(agent.ModeAgent))
	o.approvalTimeout = hostcfg.ApprovalTimeout(o.set)
	if o.model == "" {
		return o, fmt.Errorf("-model is required (or \"model\" in %s): ollama:NAME, openai:NAME or script:FILE", settings.ProjectFile)
	}
	return o, nil
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
	inF, inOK := stdin.(*os.File)
	outF, outOK := stdout.(*os.File)
	if inOK && outOK && term.IsTerminal(int(inF.Fd())) && term.IsTerminal(int(outF.Fd())) && os.Getenv("TERM") != "dumb" {
		err = runTUI(context.Background(), o, inF, outF)
	} else {
		err = runPlain(context.Background(), o, stdin, stdout)
	}
	if err != nil {
		fmt.Fprintln(stderr, "coder:", err)
		return 1
	}
	return 0
}

// runTUI runs the full-screen program until /quit or a second Ctrl-C.
func runTUI(ctx context.Context, o options, in, out *os.File) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var t *tui
	ap := &tuiApprover{send: func(m tea.Msg) { t.send(m) }}
	a, err := openApp(ctx, o, ap, event.SinkFunc(func(ctx context.Context, e event.Event) error {
		return t.sink().Emit(ctx, e)
	}))
	if err != nil {
		return err
	}
	defer a.close()
	t = newTUI(ctx, a)
	if a.sess != nil {
		if err := t.resume(a.sess.ID()); err != nil {
			return err
		}
	}
	p := tea.NewProgram(t, tea.WithContext(ctx), tea.WithInput(in), tea.WithOutput(out))
	t.send = p.Send
	_, err = p.Run()
	cancel() // a task still running is cancelled: its processes die
	t.runs.Wait()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		err = nil
	}
	return err
}
