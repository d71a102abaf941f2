package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	"charm.land/bubbles/v2/textarea"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/tetherdev/tether/agent/event"
)

// Messages from the agent's goroutines to the event loop. The sink and the
// approver both go through Program.Send, one channel, so an approval card
// never overtakes the events that led to it.
type (
	eventMsg   struct{ ev event.Event }
	runDoneMsg struct {
		text  string // what to show, for work other than a task
		err   error
		cause error // why the run's context ended, if it did
	}
)

// tui is the full-screen front end: one bubbletea model that owns the
// transcript, the input, the status line and the modal cards. Everything
// it shows comes from the agent's public event stream and the checkpoint
// and session APIs.
type tui struct {
	app  *app
	st   styles
	tr   *transcript
	send func(tea.Msg) // Program.Send, set before the program runs

	ctx    context.Context // the program's; every run derives from it
	runs   sync.WaitGroup
	width  int
	height int
	vp     viewport.Model
	in     textarea.Model
	spin   spinner.Model

	history  []string
	histPos  int    // len(history) when not browsing
	draft    string // the input being typed before browsing history
	complete []string

	running   bool
	cancel    context.CancelCauseFunc
	started   time.Time
	quitArmed bool
	hint      string

	card   *approvalCard
	review *reviewView
	picker *undoPicker
	now    func() time.Time
}

func newTUI(ctx context.Context, a *app) *tui {
	st := newStyles()
	in := textarea.New()
	in.ShowLineNumbers = false
	in.Prompt = ""
	in.Placeholder = "Type a task, /help for commands, @file to attach"
	in.DynamicHeight, in.MinHeight, in.MaxHeight = true, 1, 8
	in.KeyMap.InsertNewline = key.NewBinding(key.WithKeys("alt+enter", "ctrl+j"))
	in.Focus()
	t := &tui{
		app: a, st: st, ctx: ctx, now: time.Now,
		tr:   newTranscript(st, &markdown{}), // NO_COLOR: bubbletea drops the colours
		vp:   viewport.New(),
		in:   in,
		spin: spinner.New(spinner.WithSpinner(spinner.MiniDot)),
	}
	t.vp.KeyMap = viewport.KeyMap{} // the input owns the arrows; PgUp/PgDn scroll
	if a.untrusted != "" {
		t.tr.info(st.warn.Render(a.untrusted))
	}
	return t
}

func (t *tui) Init() tea.Cmd { return textarea.Blink }

// sink is the event.Sink of a run shown in this program.
func (t *tui) sink() event.Sink {
	return event.SinkFunc(func(_ context.Context, e event.Event) error {
		t.send(eventMsg{e})
		return nil
	})
}

func (t *tui) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		t.width, t.height = msg.Width, msg.Height
		t.in.SetWidth(max(msg.Width-4, 10))
		t.layout()
		return t, nil
	case eventMsg:
		t.tr.apply(msg.ev)
		t.layout()
		return t, nil
	case runDoneMsg:
		t.running, t.cancel, t.hint, t.tr.activity = false, nil, "", ""
		switch {
		case msg.cause != nil:
			t.tr.info(t.st.warn.Render("task cancelled: " + msg.cause.Error()))
		default:
			t.output(msg.text, msg.err)
		}
		t.layout()
		return t, nil
	case *approvalAsk:
		t.card = newApprovalCard(msg, t.st)
		t.card.save = t.app.saveRule
		t.layout()
		return t, t.card.in.Focus()
	case approvalGone:
		if t.card != nil && t.card.ask == msg.ask {
			t.card = nil
			t.layout()
		}
		return t, nil
	case spinner.TickMsg:
		if !t.running {
			return t, nil
		}
		var cmd tea.Cmd
		t.spin, cmd = t.spin.Update(msg)
		t.layout()
		return t, cmd
	case tea.PasteMsg:
		if t.card != nil {
			var cmd tea.Cmd
			t.card.in, cmd = t.card.in.Update(msg)
			return t, cmd
		}
	case tea.KeyPressMsg:
		return t.key(msg)
	}
	var cmd tea.Cmd
	t.in, cmd = t.in.Update(msg)
	if _, pasted := msg.(tea.PasteMsg); pasted {
		t.updateCompletions()
		t.layout() // the input may have grown
	}
	return t, cmd
}

// key handles a key press; modal cards take keys before the input.
func (t *tui) key(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	s := k.String()
	if s != "ctrl+c" && t.quitArmed {
		t.quitArmed, t.hint = false, ""
	}
	switch {
	case t.card != nil:
		if s == "ctrl+c" {
			t.cancelRun("cancelled with Ctrl-C")
			return t, nil
		}
		cmd := t.card.key(k)
		if t.card.done {
			t.card = nil
		}
		t.layout()
		return t, cmd
	case t.review != nil:
		if t.review.key(t.ctx, s) {
			t.tr.info(t.review.summary())
			t.review = nil
		}
		t.layout()
		return t, nil
	case t.picker != nil:
		if out, done := t.picker.key(t.ctx, s); done {
			t.picker = nil
			if out != "" {
				t.tr.info(out)
			}
		}
		t.layout()
		return t, nil
	}
	switch s {
	case "ctrl+c":
		switch {
		case t.running:
			t.cancelRun("cancelled with Ctrl-C")
		case t.in.Value() != "":
			t.in.Reset()
			t.complete = nil
		case t.quitArmed:
			return t, tea.Quit
		default:
			t.quitArmed = true
			t.hint = "press Ctrl-C again to quit"
		}
		t.layout()
		return t, nil
	case "esc":
		if t.running {
			t.cancelRun("cancelled with Esc")
		}
		t.complete = nil
		t.layout()
		return t, nil
	case "enter":
		return t.submit()
	case "tab":
		t.completeWord()
		t.layout()
		return t, nil
	case "shift+tab":
		t.cycleMode()
		return t, nil
	case "ctrl+r":
		cmd := t.command("/review")
		t.layout()
		return t, cmd
	case "ctrl+t":
		t.tr.expandThinking = !t.tr.expandThinking
		for _, b := range t.tr.blocks {
			b.cache = ""
		}
		t.layout()
		return t, nil
	case "pgup":
		t.vp.PageUp()
		return t, nil
	case "pgdown":
		t.vp.PageDown()
		return t, nil
	case "up", "down":
		if t.browseHistory(s) {
			t.layout()
			return t, nil
		}
	}
	var cmd tea.Cmd
	t.in, cmd = t.in.Update(k)
	t.updateCompletions()
	t.layout()
	return t, cmd
}

func (t *tui) cancelRun(why string) {
	if t.cancel != nil {
		t.cancel(errors.New(why))
		t.hint = "cancelling…"
	}
}

// startRun runs prompt on its own goroutine; its events come back as
// eventMsgs and its end as a runDoneMsg.
func (t *tui) startRun(prompt string) tea.Cmd {
	if err := t.app.ensureSession(t.ctx, prompt); err != nil {
		t.tr.info(t.st.bad.Render("error: " + err.Error()))
		return nil
	}
	// The session and input are taken here, on the event loop: /mode or
	// Shift-Tab during the run change the next run, never this one.
	sess, in := t.app.sess, t.app.input(prompt)
	return t.background("", func(ctx context.Context) (string, error) {
		_, err := sess.Run(ctx, in)
		return "", err
	})
}

// background runs work off the event loop as the one running task:
// Esc cancels it, the spinner shows what, and a runDoneMsg ends it.
// work must not touch the tui or the app; it gets what it needs captured.
func (t *tui) background(what string, work func(context.Context) (string, error)) tea.Cmd {
	ctx, cancel := context.WithCancelCause(t.ctx)
	t.running, t.cancel, t.started, t.hint, t.tr.activity = true, cancel, t.now(), "", what
	t.runs.Add(1)
	go func() {
		defer t.runs.Done()
		defer cancel(nil)
		text, err := work(ctx)
		t.send(runDoneMsg{text: text, err: err, cause: context.Cause(ctx)})
	}()
	return t.spin.Tick
}

// output adds a command's answer to the transcript.
func (t *tui) output(text string, err error) {
	if err != nil {
		text = t.st.bad.Render("error: " + err.Error())
	}
	if text != "" {
		t.tr.info(text)
	}
	t.layout()
}

// layout sizes the parts to the window and refreshes the transcript,
// following the end unless the user scrolled up.
func (t *tui) layout() {
	if t.width == 0 {
		return
	}
	follow := t.vp.AtBottom() || t.vp.TotalLineCount() == 0
	below := lipgloss.Height(t.bottom())
	t.vp.SetWidth(t.width)
	t.vp.SetHeight(max(t.height-below, 1))
	content := t.tr.render(t.width, t.spin.View())
	if content == "" {
		content = t.welcome()
	}
	t.vp.SetContent(content)
	if follow {
		t.vp.GotoBottom()
	}
}

// welcome fills the empty transcript of a new session: what is running
// where, and how to start.
func (t *tui) welcome() string {
	return t.st.bold.Render("Tether coder") + t.st.dim.Render(" · "+t.app.modelName+" · "+t.app.ws.Root()) + "\n\n" +
		t.st.dim.Render("Type a task and press Enter. @file attaches a file, Shift-Tab switches the mode,\n"+
			"/help lists the commands and keys, Ctrl-C twice on an empty prompt quits.")
}

// bottom is everything under the transcript: plan, activity, input,
// completions and the status line.
func (t *tui) bottom() string {
	var parts []string
	if todos := t.tr.renderTodos(); todos != "" {
		parts = append(parts, todos)
	}
	switch {
	case t.running:
		what := "Working"
		if t.tr.activity != "" {
			what = t.tr.activity
		}
		parts = append(parts, t.st.accent.Render(t.spin.View())+" "+what+t.st.dim.Render(fmt.Sprintf(" %ds · esc to cancel", int(t.now().Sub(t.started).Seconds()))))
	case t.hint != "":
		parts = append(parts, t.st.dim.Render(t.hint))
	}
	box := lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(lipgloss.Color("8")).Width(t.width)
	parts = append(parts, box.Render(t.in.View()))
	if len(t.complete) > 0 {
		parts = append(parts, t.st.dim.Render(oneLine(strings.Join(t.complete, "  "), max(t.width-1, 10))))
	}
	parts = append(parts, t.statusLine())
	return strings.Join(parts, "\n")
}

func (t *tui) statusLine() string {
	a := t.app
	ws := a.ws.Root()
	if home, err := os.UserHomeDir(); err == nil && strings.HasPrefix(ws, home+string(filepath.Separator)) {
		ws = "~" + ws[len(home):]
	}
	ctxLeft := "ctx ?"
	if a.contextLength > 0 {
		ctxLeft = fmt.Sprintf("%d%% ctx left", max(0, 100-t.tr.promptTokens*100/a.contextLength))
	}
	sess := "new session"
	if a.sess != nil {
		sess = a.sess.ID()
	}
	model := a.modelName
	if file, ok := strings.CutPrefix(model, "script:"); ok {
		model = "script:" + filepath.Base(file)
	}
	line := strings.Join([]string{model, string(a.mode), ws, compactCount(t.tr.tokensUsed) + " tok", ctxLeft, sess}, " · ")
	return t.st.status.Width(t.width).Render(oneLine(" "+line, max(t.width, 10)))
}

func (t *tui) View() tea.View {
	var body string
	switch {
	case t.width == 0:
		body = "starting…"
	case t.card != nil:
		body = t.overlay(t.card.view(t.width, t.height, t.now()))
	case t.review != nil:
		body = t.overlay(t.review.view(t.width, t.height))
	case t.picker != nil:
		body = t.overlay(t.picker.view(t.width))
	default:
		body = t.vp.View() + "\n" + t.bottom()
	}
	v := tea.NewView(body)
	v.AltScreen = true
	return v
}

// overlay shows a modal over the bottom of the transcript, above the
// status line: the transcript stays visible for context.
func (t *tui) overlay(modal string) string {
	keep := max(t.height-lipgloss.Height(modal)-1, 0)
	lines := strings.Split(t.vp.GetContent(), "\n")
	if len(lines) > keep {
		lines = lines[len(lines)-keep:]
	}
	for len(lines) < keep {
		lines = append(lines, "")
	}
	return strings.Join(append(lines, modal, t.statusLine()), "\n")
}
