package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/tetherdev/tether/agent/event"
)

// palette colours text only when it goes to a terminal and NO_COLOR is
// unset (https://no-color.org), so a piped or logged demo stays plain.
type palette struct{ on bool }

func paletteFor(w io.Writer) palette {
	f, ok := w.(*os.File)
	return palette{on: ok && term.IsTerminal(int(f.Fd())) && os.Getenv("NO_COLOR") == ""}
}

func (p palette) wrap(code, s string) string {
	if !p.on || s == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

func (p palette) bold(s string) string   { return p.wrap("1", s) }
func (p palette) dim(s string) string    { return p.wrap("2", s) }
func (p palette) red(s string) string    { return p.wrap("31", s) }
func (p palette) green(s string) string  { return p.wrap("32", s) }
func (p palette) yellow(s string) string { return p.wrap("33", s) }
func (p palette) cyan(s string) string   { return p.wrap("36", s) }

// transcript is the demo's event sink: it prints a run as a person would
// read it. Streaming text and thinking are printed as they come; a
// structured line (a tool action, a notice) always starts on a new line.
type transcript struct {
	w       io.Writer
	p       palette
	midLine bool // the last thing printed did not end with a newline
	blank   int  // newlines just printed by stream, to squeeze blank runs
	notes   []string
	inThink bool
	// seen records what happened, for the demo's own checks.
	seen struct {
		actions []event.ToolAction // final statuses only
		notices []event.Notice
		final   string
		stop    event.StopReason
	}
}

func (t *transcript) newline() {
	if t.midLine {
		fmt.Fprintln(t.w)
		t.midLine = false
	}
	t.blank = 1
}

// note prints a remark of the demo's own (see parserWatch).
func (t *transcript) note(s string) {
	t.notes = append(t.notes, s)
	t.line("%s", t.p.yellow("! "+s))
}

func (t *transcript) line(format string, args ...any) {
	t.newline()
	fmt.Fprintf(t.w, format+"\n", args...)
}

// stream prints streamed text, remembering whether it ended mid-line.
// Runs of blank lines (left where call markup was removed) print as one.
func (t *transcript) stream(s string) {
	var b strings.Builder
	for _, r := range s {
		if r == '\n' {
			if t.blank >= 2 {
				continue
			}
			t.blank++
		} else {
			t.blank = 0
		}
		b.WriteRune(r)
	}
	if b.Len() == 0 {
		return
	}
	fmt.Fprint(t.w, b.String())
	t.midLine = t.blank == 0
}

// Emit implements event.Sink.
func (t *transcript) Emit(_ context.Context, e event.Event) error {
	p := t.p
	if _, ok := e.(event.ThinkingDelta); !ok && t.inThink {
		t.inThink = false
		t.newline()
	}
	switch e := e.(type) {
	case event.RunStarted:
		t.line(p.dim(fmt.Sprintf("── run %s: mode %s, tool calling %s, %d tools", e.RunID, e.Mode, e.ToolCalling, len(e.Tools))))
	case event.ThinkingDelta:
		if !t.inThink {
			t.newline()
			t.stream(p.dim("thinking: "))
			t.inThink = true
		}
		t.stream(p.dim(e.Text))
	case event.ThinkingCollapsed:
		t.line(p.dim(fmt.Sprintf("(thought for %.1fs)", e.Duration().Seconds())))
	case event.TextDelta:
		t.stream(e.Text)
	case event.ProgressGroupStarted:
		t.line("%s", p.bold("▸ "+e.Title))
	case event.ToolAction:
		t.action(e)
	case event.Notice:
		t.seen.notices = append(t.seen.notices, e)
		t.line("%s", p.yellow("! "+string(e.Kind)+": "+firstLine(e.Text)))
	case event.FinalMessage:
		t.seen.final = e.Text
		t.line("%s %s", p.bold("■ answer:"), e.Text)
	case event.RunFinished:
		t.seen.stop = e.StopReason
		msg := fmt.Sprintf("── run finished: %s after %d model calls", e.StopReason, e.Iterations)
		if e.Error != "" {
			msg += ": " + e.Error
		}
		t.line(p.dim(msg))
	}
	// Approval questions are printed by the approver, files changed by
	// the diff that follows the run.
	return nil
}

func (t *transcript) action(a event.ToolAction) {
	p := t.p
	switch a.Status {
	case event.StatusRunning, event.StatusPending:
		return // the final status says it all
	}
	t.seen.actions = append(t.seen.actions, a)
	detail := firstLine(a.Detail)
	switch a.Status {
	case event.StatusSuccess:
		t.line("  %s %s %s", p.green("✓"), a.Title, p.dim(detail))
	case event.StatusDenied:
		t.line("  %s %s %s", p.red("✗"), a.Title, p.red(detail))
	case event.StatusError:
		t.line("  %s %s %s", p.red("✗"), a.Title, p.yellow(detail))
	default:
		t.line("  %s %s %s", p.dim("–"), a.Title, p.dim(detail))
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 160 {
		s = s[:157] + "…"
	}
	return s
}
