package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/safety"
)

// press builds the key message bubbletea delivers for a key name.
func press(name string) tea.KeyPressMsg {
	special := map[string]tea.KeyPressMsg{
		"enter": {Code: tea.KeyEnter}, "tab": {Code: tea.KeyTab}, "esc": {Code: tea.KeyEscape},
		"up": {Code: tea.KeyUp}, "down": {Code: tea.KeyDown}, "right": {Code: tea.KeyRight},
		"ctrl+c": {Code: 'c', Mod: tea.ModCtrl}, "ctrl+j": {Code: 'j', Mod: tea.ModCtrl}, "shift+tab": {Code: tea.KeyTab, Mod: tea.ModShift},
	}
	if k, ok := special[name]; ok {
		return k
	}
	r := []rune(name)[0]
	return tea.KeyPressMsg{Code: r, Text: name}
}

// newTestTUI opens the coder on a fresh workspace holding list.txt, with
// the scripted model in testdata/script.
func newTestTUI(t *testing.T, script string) (*tui, string) {
	t.Helper()
	ws := t.TempDir()
	list, err := os.ReadFile(filepath.Join(pkgDir, "testdata", "list.txt"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(ws, "list.txt"), string(list))
	t.Chdir(ws)
	var tu *tui
	ap := &tuiApprover{send: func(m tea.Msg) { tu.send(m) }}
	o := options{model: "script:" + filepath.Join(pkgDir, "testdata", script), db: ":memory:", mode: "agent", approvalTimeout: time.Minute}
	a, err := openApp(context.Background(), o, ap, event.SinkFunc(func(ctx context.Context, e event.Event) error { return tu.sink().Emit(ctx, e) }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.close)
	tu = newTUI(context.Background(), a)
	tu.send = func(tea.Msg) {}
	tu.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	return tu, ws
}

func typeText(tu *tui, s string) {
	for _, r := range s {
		tu.Update(press(string(r)))
	}
}

func TestApprovalCard(t *testing.T) {
	for _, tc := range []struct {
		name     string
		severity safety.Severity
		keys     []string
		want     *approval.Response // nil: still waiting
	}{
		{"once", safety.SeverityMedium, []string{"y"}, &approval.Response{Choice: approval.AllowOnce}},
		{"session", safety.SeverityMedium, []string{"s"}, &approval.Response{Choice: approval.AllowSession}},
		{"never session for critical", safety.SeverityCritical, []string{"s"}, nil},
		{"refuse with a message", safety.SeverityHigh, []string{"n", "u", "s", "e", " ", "m", "a", "k", "e", "enter"}, &approval.Response{Choice: approval.Deny, Message: "use make"}},
		{"refuse, back, allow", safety.SeverityHigh, []string{"n", "esc", "y"}, &approval.Response{Choice: approval.AllowOnce}},
		{"esc refuses", safety.SeverityHigh, []string{"esc"}, &approval.Response{Choice: approval.Deny}},
		{"other keys do nothing", safety.SeverityHigh, []string{"x", "enter"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tu, _ := newTestTUI(t, "review.jsonl")
			ask := &approvalAsk{req: approval.Request{Kind: approval.KindCommand, ToolName: "run_terminal_command",
				Command: "rm -rf build\x1b[2K", Severity: tc.severity, Reasons: []string{"deletes files"}},
				deadline: time.Now().Add(30 * time.Second), reply: make(chan approval.Response, 1)}
			tu.Update(ask)
			view := ansi.Strip(tu.View().Content)
			for _, want := range []string{"rm -rf build\\x1b[2K", "WARNING: hidden or control characters", "deletes files", "severity", tc.severity.String(), "refused automatically in"} {
				if !strings.Contains(view, want) {
					t.Errorf("card lacks %q:\n%s", want, view)
				}
			}
			if got := strings.Contains(view, "[s] allow for this session"); got == (tc.severity == safety.SeverityCritical) {
				t.Errorf("session choice offered = %v for %s", got, tc.severity)
			}
			for _, k := range tc.keys {
				tu.Update(press(k))
			}
			select {
			case got := <-ask.reply:
				if tc.want == nil || got.Choice != tc.want.Choice || got.Message != tc.want.Message {
					t.Fatalf("answer %+v, want %+v", got, tc.want)
				}
				if tu.card != nil {
					t.Error("the card stayed open after the answer")
				}
			default:
				if tc.want != nil {
					t.Fatalf("no answer, want %+v", *tc.want)
				}
			}
		})
	}
}

// TestWelcome: a new session's empty transcript says how to start, and
// gives way to the first output.
func TestWelcome(t *testing.T) {
	tu, ws := newTestTUI(t, "review.jsonl")
	view := ansi.Strip(tu.View().Content)
	for _, want := range []string{"Tether coder", ws, "Type a task and press Enter", "/help"} {
		if !strings.Contains(view, want) {
			t.Errorf("welcome lacks %q:\n%s", want, view)
		}
	}
	typeText(tu, "/mode")
	tu.Update(press("enter"))
	if view := ansi.Strip(tu.View().Content); strings.Contains(view, "Type a task and press Enter") || !strings.Contains(view, "mode agent") {
		t.Errorf("after /mode:\n%s", view)
	}
}

// TestRefusalPrompt: the refusal's message box says what it is for
// before anything is typed.
func TestRefusalPrompt(t *testing.T) {
	tu, _ := newTestTUI(t, "review.jsonl")
	ask := &approvalAsk{req: approval.Request{Kind: approval.KindCommand, ToolName: "run_terminal_command", Command: "make", Severity: safety.SeverityMedium},
		deadline: time.Now().Add(30 * time.Second), reply: make(chan approval.Response, 1)}
	tu.Update(ask)
	tu.Update(press("n"))
	if view := ansi.Strip(tu.View().Content); !strings.Contains(view, "tell the model: why, for the model (Enter sends, empty refuses without a message)") {
		t.Errorf("the refusal box does not explain itself:\n%s", view)
	}
}

// TestApprovalWithdrawn closes a card whose request timed out.
func TestApprovalWithdrawn(t *testing.T) {
	tu, _ := newTestTUI(t, "review.jsonl")
	sent := make(chan tea.Msg, 2)
	ap := &tuiApprover{send: func(m tea.Msg) { sent <- m }}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := ap.Approve(ctx, approval.Request{Kind: approval.KindCommand, Command: "make"}); err == nil {
		t.Fatal("an unanswered request was not an error")
	}
	tu.Update(<-sent)
	if tu.card == nil {
		t.Fatal("no card for the request")
	}
	tu.Update(<-sent)
	if tu.card != nil {
		t.Fatal("the card of a withdrawn request stayed open")
	}
}

func TestCtrlC(t *testing.T) {
	tu, _ := newTestTUI(t, "review.jsonl")
	typeText(tu, "half a thought")
	if _, cmd := tu.Update(press("ctrl+c")); cmd != nil || tu.in.Value() != "" {
		t.Fatalf("Ctrl-C with text: input %q, cmd %v; want it cleared", tu.in.Value(), cmd)
	}
	if _, cmd := tu.Update(press("ctrl+c")); cmd != nil || !strings.Contains(tu.View().Content, "press Ctrl-C again to quit") {
		t.Fatal("the first Ctrl-C on an empty prompt did not warn")
	}
	tu.Update(press("x")) // any other key disarms
	tu.Update(press("ctrl+c"))
	tu.in.Reset()
	tu.Update(press("ctrl+c"))
	_, cmd := tu.Update(press("ctrl+c"))
	if cmd == nil {
		t.Fatal("the second Ctrl-C did not quit")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Fatal("the second Ctrl-C did not quit")
	}
}

func TestInputEditing(t *testing.T) {
	tu, _ := newTestTUI(t, "review.jsonl")
	typeText(tu, "/he")
	if !strings.Contains(tu.View().Content, "/help") {
		t.Errorf("no completion for /he:\n%s", tu.View().Content)
	}
	tu.Update(press("tab"))
	if got := tu.in.Value(); got != "/help " {
		t.Fatalf("Tab completed to %q", got)
	}
	tu.Update(press("enter"))
	if !strings.Contains(tu.tr.render(100, ""), "/review") {
		t.Error("/help shows no commands")
	}
	typeText(tu, "look at @lis")
	tu.Update(press("tab"))
	if got := tu.in.Value(); got != "look at @list.txt " {
		t.Fatalf("@ completion gave %q", got)
	}
	tu.in.Reset()
	typeText(tu, "/mode plan")
	tu.Update(press("enter"))
	if tu.app.mode != agent.ModePlan {
		t.Fatalf("mode %s after /mode plan", tu.app.mode)
	}
	tu.Update(press("shift+tab"))
	if tu.app.mode != agent.ModeExplore {
		t.Fatalf("Shift-Tab from plan gave %s", tu.app.mode)
	}
	// History: ↑ recalls the last inputs, ↓ returns to the draft.
	typeText(tu, "draft")
	tu.Update(press("up"))
	if got := tu.in.Value(); got != "/mode plan" {
		t.Fatalf("↑ recalled %q", got)
	}
	tu.Update(press("up"))
	if got := tu.in.Value(); got != "/help" {
		t.Fatalf("↑↑ recalled %q", got)
	}
	tu.Update(press("down"))
	tu.Update(press("down"))
	if got := tu.in.Value(); got != "draft" {
		t.Fatalf("↓↓ returned %q, want the draft", got)
	}
	// Multi-line: Ctrl-J adds a line, a paste keeps its newlines, and
	// Enter sends the whole text as one task.
	tu.in.Reset()
	typeText(tu, "first")
	tu.Update(press("ctrl+j"))
	tu.Update(tea.PasteMsg{Content: "second\nthird"})
	if got := tu.in.Value(); got != "first\nsecond\nthird" {
		t.Fatalf("multi-line input %q", got)
	}
	tu.in.Reset()
	typeText(tu, "/bogus")
	tu.Update(press("enter"))
	if !strings.Contains(tu.tr.render(100, ""), "unknown command /bogus") {
		t.Error("an unknown command was not reported")
	}
}

func TestTranscript(t *testing.T) {
	st := newStyles()
	for _, tc := range []struct {
		name   string
		events []event.Event
		expand bool
		want   []string
		absent []string
	}{
		{"thinking collapsed", []event.Event{
			event.RunStarted{Prompt: "fix it"}, event.ThinkingDelta{Text: "secret plan"}, event.ThinkingCollapsed{DurationMS: 1500},
			event.TextDelta{Text: "**Done**"},
		}, false, []string{"› fix it", "thought for 1.5s", "Done"}, []string{"secret plan", "**"}},
		{"thinking too short to time", []event.Event{
			event.ThinkingDelta{Text: "quick"}, event.ThinkingCollapsed{DurationMS: 3},
		}, false, []string{"thought for a moment"}, []string{"0s"}},
		{"thinking expanded", []event.Event{
			event.ThinkingDelta{Text: "secret plan"}, event.ThinkingCollapsed{DurationMS: 1500},
		}, true, []string{"thought for 1.5s", "secret plan"}, nil},
		{"progress group", []event.Event{
			event.ProgressGroupStarted{GroupID: "g1", Title: "Running commands"},
			event.ToolAction{GroupID: "g1", CallID: "c1", Tool: "run_terminal_command", Status: event.StatusRunning, Title: "Running `make`"},
			event.ToolAction{GroupID: "g1", CallID: "c1", Tool: "run_terminal_command", Status: event.StatusSuccess, Title: "Ran `make`", Detail: "exit code 0", Output: "built\nok\n"},
			event.ToolAction{GroupID: "g1", CallID: "c2", Tool: "run_terminal_command", Status: event.StatusDenied, Title: "Run `rm -rf /`", Detail: "refused"},
		}, false, []string{"▸ Running commands", "✓ Ran `make` exit code 0", "│ ok", "✗ Run `rm -rf /` refused"}, []string{"Running `make`"}},
		{"subagent nested", []event.Event{
			event.SubagentEvent{ParentCallID: "s1", Event: event.ProgressGroupStarted{GroupID: "g1", Title: "Reading files"}},
			event.SubagentEvent{ParentCallID: "s1", Event: event.ToolAction{GroupID: "g1", CallID: "c1", Status: event.StatusSuccess, Title: "Read main.go"}},
			event.SubagentEvent{ParentCallID: "s1", Event: event.TextDelta{Text: "child chatter"}},
		}, false, []string{"  ↳ subagent: Reading files", "    ✓ Read main.go"}, []string{"child chatter"}},
		{"run finished", []event.Event{
			event.FilesChanged{Final: true, Added: 2, Removed: 1, Files: []event.FileChange{{Path: "a.go", Kind: "modified", Added: 2, Removed: 1}}},
			event.RunFinished{StopReason: event.StopCompleted, Iterations: 2, Usage: llm.Usage{PromptTokens: 1200, CompletionTokens: 300}},
		}, false, []string{"files changed +2 −1", "modified a.go +2 −1", "── completed · 2 model call(s) · 1.5k tokens"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := newTranscript(st, &markdown{})
			tr.expandThinking = tc.expand
			for _, e := range tc.events {
				tr.apply(e)
			}
			out := ansi.Strip(tr.render(80, "*"))
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("lacks %q:\n%s", w, out)
				}
			}
			for _, a := range tc.absent {
				if strings.Contains(out, a) {
					t.Errorf("shows %q:\n%s", a, out)
				}
			}
		})
	}
}

func TestTodosPanel(t *testing.T) {
	tr := newTranscript(newStyles(), &markdown{plain: true})
	tr.apply(event.TodosUpdated{Items: []event.TodoItem{{Text: "read", Status: event.TodoDone}, {Text: "write", Status: event.TodoInProgress}, {Text: "test", Status: event.TodoPending}}})
	got := ansi.Strip(tr.renderTodos())
	for _, w := range []string{"plan 1/3", "✓ read", "▸ write", "☐ test"} {
		if !strings.Contains(got, w) {
			t.Errorf("plan lacks %q:\n%s", w, got)
		}
	}
}

// TestReviewFlow runs a task in the bubbletea test harness, then reviews
// its change hunk by hunk: the first hunk is kept, the second rejected.
func TestReviewFlow(t *testing.T) {
	tu, ws := newTestTUI(t, "review.jsonl")
	// The screen is read through the event loop (a filter sees every
	// message there), never from the test goroutine.
	type probe struct{ reply chan string }
	filter := tea.WithFilter(func(m tea.Model, msg tea.Msg) tea.Msg {
		if p, ok := msg.(probe); ok {
			p.reply <- ansi.Strip(m.(*tui).View().Content)
			return nil
		}
		return msg
	})
	tm := teatest.NewTestModel(t, tu, teatest.WithInitialTermSize(100, 30), teatest.WithProgramOptions(filter))
	tu.send = tm.GetProgram().Send
	waitOutput := func(s string) {
		t.Helper()
		var screen string
		for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			p := probe{make(chan string, 1)}
			tm.Send(p)
			if screen = <-p.reply; strings.Contains(screen, s) {
				return
			}
		}
		t.Fatalf("the screen never showed %q:\n%s", s, screen)
	}
	tm.Type("tidy the list")
	tm.Send(press("enter"))
	waitOutput("Spelled out two items")
	// The /undo picker shows each checkpoint's review state as the
	// checkpoint tells it: open before the review, decided after it.
	tm.Type("/undo")
	tm.Send(press("enter"))
	waitOutput("open    tidy the list")
	tm.Send(press("esc"))
	tm.Type("/review")
	tm.Send(press("enter"))
	waitOutput("hunk 1/2")
	tm.Send(press("a"))
	waitOutput("hunk 1/1")
	tm.Send(press("r"))
	waitOutput("review: 1 accepted, 1 rejected")
	tm.Type("/undo")
	tm.Send(press("enter"))
	waitOutput("decided tidy the list")
	tm.Send(press("enter"))
	waitOutput("nothing to undo: the changes of")
	waitOutput("were already decided")
	tm.Type("/compact")
	tm.Send(press("enter"))
	waitOutput("nothing to compact yet")
	tm.Quit()
	final := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(*tui)
	if !strings.Contains(final.tr.renderTodos(), "plan 0/2") {
		t.Errorf("the plan is not shown:\n%s", final.tr.renderTodos())
	}
	got, _ := os.ReadFile(filepath.Join(ws, "list.txt"))
	if !strings.Contains(string(got), "item two\n") || !strings.Contains(string(got), "item 18\n") {
		t.Errorf("list.txt after review:\n%s", got)
	}
}

func TestAttachments(t *testing.T) {
	tu, _ := newTestTUI(t, "review.jsonl")
	got := tu.app.attachments("look at @list.txt, @list.txt and @missing.go, @../etc/passwd and mail@example.com")
	if len(got) != 1 || got[0].Path != "list.txt" {
		t.Fatalf("attachments = %+v, want list.txt once", got)
	}
}

// TestResize lays the screen out again for each size: it fills the
// window exactly and no line is wider than it.
func TestResize(t *testing.T) {
	tu, _ := newTestTUI(t, "review.jsonl")
	tu.Update(eventMsg{event.RunStarted{Prompt: "explain"}})
	tu.Update(eventMsg{event.TextDelta{Text: strings.Repeat("A long line of **Markdown** that has to wrap. ", 20)}})
	for _, size := range [][2]int{{100, 30}, {60, 20}, {140, 45}, {40, 12}} {
		tu.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		lines := strings.Split(tu.View().Content, "\n")
		if len(lines) != size[1] {
			t.Errorf("%dx%d: %d lines", size[0], size[1], len(lines))
		}
		for _, l := range lines {
			if w := ansi.StringWidth(l); w > size[0] {
				t.Errorf("%dx%d: line of width %d: %q", size[0], size[1], w, ansi.Strip(l))
				break
			}
		}
	}
}

// TestLiveOutput shows a running command's output as it arrives, under
// the call the progress event names, and the final output once it is done.
func TestLiveOutput(t *testing.T) {
	tr := newTranscript(newStyles(), &markdown{})
	tr.apply(event.ProgressGroupStarted{GroupID: "g", Title: "Running commands"})
	tr.apply(event.ToolAction{GroupID: "g", CallID: "c", Tool: "run_terminal_command", Status: event.StatusRunning, Title: "Running `make`"})
	tr.apply(event.ToolAction{GroupID: "g", CallID: "d", Tool: "run_terminal_command", Status: event.StatusRunning, Title: "Running `make doc`"})
	tr.apply(event.ToolProgress{CallID: "c", Tool: "run_terminal_command", Output: "compiling a\ncompiling b"})
	tr.apply(event.ToolProgress{CallID: "c", Tool: "run_terminal_command", Output: "linking", Dropped: 3})
	tr.apply(event.ToolProgress{CallID: "d", Tool: "run_terminal_command", Output: "DOC-OUTPUT"})
	out := ansi.Strip(tr.render(80, "*"))
	for _, w := range []string{"│ compiling a", "│ compiling b", "│ … 3 lines not shown", "│ linking"} {
		if !strings.Contains(out, w) {
			t.Errorf("live output lacks %q:\n%s", w, out)
		}
	}
	if a, d, doc := strings.Index(out, "linking"), strings.Index(out, "make doc"), strings.Index(out, "DOC-OUTPUT"); a < 0 || d < a || doc < d {
		t.Errorf("output not under the call that produced it:\n%s", out)
	}
	tr.apply(event.ToolAction{GroupID: "g", CallID: "c", Tool: "run_terminal_command", Status: event.StatusSuccess, Title: "Ran `make`", Output: "done\n"})
	if out := ansi.Strip(tr.render(80, "*")); strings.Contains(out, "linking") || !strings.Contains(out, "│ done") {
		t.Errorf("after the command ended:\n%s", out)
	}
}

// TestReviewConflict leaves alone a hunk the user changed since the agent
// wrote it, and says so.
func TestReviewConflict(t *testing.T) {
	tu, ws := newTestTUI(t, "review.jsonl")
	ctx := context.Background()
	if err := tu.app.ensureSession(ctx, "tidy"); err != nil {
		t.Fatal(err)
	}
	if _, err := tu.app.sess.Run(ctx, tu.app.input("tidy the list")); err != nil {
		t.Fatal(err)
	}
	edited := "mine\n"
	writeFile(t, filepath.Join(ws, "list.txt"), edited)
	rv, err := newReview(ctx, tu.app, tu.st)
	if err != nil || len(rv.files) != 1 {
		t.Fatalf("review: %v, %d files", err, len(rv.files))
	}
	if done := rv.key(ctx, "R"); done || !strings.Contains(rv.msg, "changed since the agent wrote it") {
		t.Fatalf("rejecting an edited file: done %v, message %q", done, rv.msg)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "list.txt")); string(b) != edited {
		t.Errorf("the user's edit was overwritten: %q", b)
	}
	if rv.rejected != 0 {
		t.Errorf("a refused rejection was counted")
	}
}

// TestLiveStep shows how far a running read has come (a chunk of a file,
// a page of a PDF) beside its action, and drops it once the call is done.
func TestLiveStep(t *testing.T) {
	tr := newTranscript(newStyles(), &markdown{})
	tr.apply(event.ProgressGroupStarted{GroupID: "g", Title: "Reading files"})
	tr.apply(event.ToolAction{GroupID: "g", CallID: "c", Tool: "read_pdf", Status: event.StatusRunning, Title: "Reading paper.pdf"})
	tr.apply(event.ToolProgress{CallID: "c", Tool: "read_pdf", Title: "Reading paper.pdf page 1 of 3", Done: 1, Total: 3})
	tr.apply(event.ToolProgress{CallID: "c", Tool: "read_pdf", Title: "Reading paper.pdf page 2 of 3", Done: 2, Total: 3})
	out := ansi.Strip(tr.render(80, "*"))
	if !strings.Contains(out, "* Reading paper.pdf · Reading paper.pdf page 2 of 3") || strings.Contains(out, "page 1 of 3") {
		t.Errorf("running read does not show its latest page:\n%s", out)
	}
	tr.apply(event.ToolAction{GroupID: "g", CallID: "c", Tool: "read_pdf", Status: event.StatusSuccess, Title: "Read paper.pdf"})
	if out := ansi.Strip(tr.render(80, "*")); strings.Contains(out, "page 2 of 3") || !strings.Contains(out, "✓ Read paper.pdf") {
		t.Errorf("finished read still shows its step:\n%s", out)
	}
}
