package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/settings"
)

// command is one slash command, for completion and /help.
type command struct{ name, args, help string }

var commands = []command{
	{"/mode", "[agent|plan|explore|review]", "show or set the mode (Shift-Tab cycles); read-only modes change nothing"},
	{"/model", "NAME", "switch the model (ollama:NAME, openai:NAME, script:FILE); the session goes on"},
	{"/review", "", "walk the changed files hunk by hunk: accept or reject each hunk or file (Ctrl-R)"},
	{"/diff", "", "show every undecided change of the session, with +N −N"},
	{"/undo", "[ID [force]]", "pick a checkpoint of the session to revert (force: even files edited since)"},
	{"/keep", "", "accept every undecided change"},
	{"/compact", "", "summarise older turns to free context"},
	{"/permissions", "[remove N]", "list the command rules saved in .tether/settings.json (a on an approval card saves one); remove N removes one"},
	{"/sessions", "", "list the sessions of this workspace"},
	{"/resume", "ID", "open a session and show its transcript"},
	{"/new", "", "start a new session"},
	{"/help", "", "this list and the keys"},
	{"/quit", "", "exit (Ctrl-C twice on an empty prompt too)"},
}

const keysHelp = `Enter sends · Alt-Enter or Ctrl-J new line · ↑/↓ history · Tab completes /commands and @files
Esc or Ctrl-C cancels the running task · Ctrl-C twice quits · PgUp/PgDn scroll · Ctrl-T thinking
Approval: y once · s for this session · a always (saves the rule to .tether/settings.json) · n refuse (then type why) · Esc refuse
Review: ↑/↓ hunk · ←/→ file · a/r accept/reject hunk · A/R whole file · Esc done
Undo: ↑/↓ pick · Enter undo that checkpoint · b back to before it (it and all later)`

func helpText(st styles, custom []settings.Command) string {
	var b strings.Builder
	for _, c := range commands {
		fmt.Fprintf(&b, "%-10s %-28s %s\n", c.name, c.args, st.dim.Render(c.help))
	}
	if len(custom) > 0 {
		b.WriteString("Custom commands (" + settings.CommandsDir + "/NAME.md):\n")
		for _, c := range custom {
			fmt.Fprintf(&b, "%-10s %-28s %s\n", "/"+c.Name, c.ArgumentHint, st.dim.Render(c.Description))
		}
	}
	b.WriteString(st.dim.Render(keysHelp))
	return b.String()
}

// submit sends the input: a slash command or a task.
func (t *tui) submit() (tea.Model, tea.Cmd) {
	text := strings.TrimSpace(t.in.Value())
	if text == "" {
		return t, nil
	}
	if len(t.history) == 0 || t.history[len(t.history)-1] != text {
		t.history = append(t.history, text)
	}
	t.histPos, t.draft, t.complete, t.hint = len(t.history), "", nil, ""
	t.in.Reset()
	var cmd tea.Cmd
	switch {
	case strings.HasPrefix(text, "/"):
		cmd = t.command(text)
	case t.running:
		t.hint = "a task is running: wait for it, or Esc to cancel it"
	default:
		cmd = t.startRun(text)
	}
	t.layout()
	return t, cmd
}

// command runs a slash command typed in the full-screen front end.
func (t *tui) command(text string) tea.Cmd {
	ctx, st, a := t.ctx, t.st, t.app
	fields := strings.Fields(text)
	name, args := fields[0], fields[1:]
	if t.running && !slices.Contains([]string{"/help", "/quit", "/diff", "/sessions"}, name) {
		t.hint = name + " waits for the running task (Esc cancels it)"
		return nil
	}
	switch name {
	case "/quit", "/exit", "/q":
		return tea.Quit
	case "/help", "/?":
		t.output(helpText(st, a.custom), nil)
	case "/mode":
		if len(args) == 0 {
			t.output("mode "+st.bold.Render(string(a.mode))+st.dim.Render("  ("+a.modeNames()+")"), nil)
			break
		}
		if !a.validMode(args[0]) {
			t.output("", fmt.Errorf("unknown mode %q: want %s", args[0], a.modeNames()))
			break
		}
		t.setMode(agent.Mode(args[0]))
	case "/model":
		if len(args) != 1 {
			t.output("model "+st.bold.Render(a.modelName)+st.dim.Render("  (/model ollama:NAME, openai:NAME or script:FILE)"), nil)
			break
		}
		if err := a.setModel(ctx, args[0]); err != nil {
			t.output("", err)
			break
		}
		t.output("model "+st.bold.Render(a.modelName), nil)
	case "/diff":
		t.output(a.diffText(ctx, st))
	case "/keep":
		t.output(a.keepAll(ctx, st))
	case "/review":
		rv, err := newReview(ctx, a, st)
		if err != nil || len(rv.files) == 0 {
			t.output(st.dim.Render("nothing to review: no undecided changes"), err)
			break
		}
		t.review = rv
	case "/undo":
		if len(args) > 0 {
			t.output(a.undo(ctx, st, args[0], false, len(args) > 1 && args[1] == "force"))
			break
		}
		picker, err := newUndoPicker(ctx, a, st)
		if err != nil || picker == nil {
			t.output(st.dim.Render("no checkpoints in this session yet"), err)
			break
		}
		t.picker = picker
	case "/compact":
		// A model call: it runs like a task, Esc cancels it.
		sess := a.sess
		return t.background("Compacting the conversation…", func(ctx context.Context) (string, error) {
			return compact(ctx, sess)
		})
	case "/sessions":
		t.output(a.sessionList(ctx, st))
	case "/permissions":
		if len(args) == 2 && args[0] == "remove" {
			t.output(a.removePermission(args[1]))
			break
		}
		t.output(a.permissionsText(st))
	case "/resume":
		if len(args) != 1 {
			t.output("", fmt.Errorf("/resume needs a session id; /sessions lists them"))
			break
		}
		t.output("", t.resume(args[0]))
	case "/new":
		a.sess = nil
		t.tr = newTranscript(st, t.tr.md)
		t.output(st.dim.Render("new session: the next task starts a fresh conversation"), nil)
	default:
		if c, ok := a.customCommand(name); ok {
			return t.startRun(c.Expand(strings.TrimSpace(strings.TrimPrefix(text, name))))
		}
		t.output("", fmt.Errorf("unknown command %s; /help lists them", name))
	}
	return nil
}

// resume opens session id and replays its transcript.
func (t *tui) resume(id string) error {
	if err := t.app.openSession(t.ctx, id); err != nil {
		return err
	}
	t.tr = newTranscript(t.st, t.tr.md)
	err := t.app.replay(t.ctx, t.tr.apply)
	info, _ := t.app.sess.Info(t.ctx)
	t.tr.info(t.st.dim.Render(fmt.Sprintf("resumed session %s · %s", id, info.Title)))
	t.layout()
	return err
}

func (t *tui) setMode(m agent.Mode) {
	t.app.mode = m
	note := "may edit files and run commands, with your approval"
	if m.ReadOnly() {
		note = "read-only: nothing will be changed"
	}
	t.output("mode "+t.st.bold.Render(string(m))+t.st.dim.Render(": "+note), nil)
}

func (t *tui) cycleMode() {
	i := slices.Index(t.app.modes, t.app.mode)
	t.setMode(t.app.modes[(i+1)%len(t.app.modes)])
}
