package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/lipgloss"

	"github.com/tetherdev/tether/agent"
)

// styles are the coder's colours. lipgloss picks the terminal's colour
// profile and drops colour entirely when output is not a terminal or
// NO_COLOR is set, so logs and pipes stay plain.
type styles struct {
	r                                          *lipgloss.Renderer
	dim, bold, ok, bad, warn, accent, add, del lipgloss.Style
	sevNone, sevMedium, sevHigh, sevCritical   lipgloss.Style
	promptMark                                 lipgloss.Style
}

func newStyles(w io.Writer) styles {
	r := lipgloss.NewRenderer(w)
	c := func(code string) lipgloss.Style { return r.NewStyle().Foreground(lipgloss.Color(code)) }
	return styles{
		r: r, dim: r.NewStyle().Faint(true), bold: r.NewStyle().Bold(true),
		ok: c("2"), bad: c("1"), warn: c("3"), accent: c("6"), add: c("2"), del: c("1"),
		sevNone: c("2"), sevMedium: c("3"), sevHigh: c("208").Bold(true), sevCritical: c("1").Bold(true).Reverse(true),
		promptMark: c("6").Bold(true),
	}
}

func (s styles) severity(sev string) string {
	switch sev {
	case "medium":
		return s.sevMedium.Render(sev)
	case "high":
		return s.sevHigh.Render(sev)
	case "critical":
		return s.sevCritical.Render(" " + sev + " ")
	}
	return s.sevNone.Render(sev)
}

// diff colours a unified diff.
func (s styles) diff(u string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimSuffix(u, "\n"), "\n") {
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
			l = s.dim.Render(l)
		case strings.HasPrefix(l, "+"):
			l = s.add.Render(l)
		case strings.HasPrefix(l, "-"):
			l = s.del.Render(l)
		case strings.HasPrefix(l, "@@"):
			l = s.accent.Render(l)
		}
		b.WriteString("    " + l + "\n")
	}
	return b.String()
}

var spinFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// screen owns the terminal output: streamed text, structured lines and
// the spinner all go through it under one lock, so they never interleave.
// The spinner draws on the current line with \r and is erased before
// anything else is printed; it only animates on a terminal.
type screen struct {
	w   io.Writer
	st  styles
	tty bool

	mu      sync.Mutex
	midLine bool   // the last output did not end with a newline
	blank   int    // newlines just streamed, to squeeze blank runs
	spin    string // the spinner's label; "" when stopped
	frame   int
	stop    chan struct{}
	think   bool // inside a streamed thinking block
}

func newScreen(w io.Writer, tty bool) *screen {
	return &screen{w: w, st: newStyles(w), tty: tty}
}

// eraseLocked removes the spinner line.
func (s *screen) eraseLocked() {
	if s.spin != "" && s.tty {
		fmt.Fprint(s.w, "\r\x1b[2K")
	}
}

func (s *screen) drawLocked() {
	if s.spin != "" && s.tty {
		fmt.Fprintf(s.w, "\r\x1b[2K%s %s", s.st.accent.Render(spinFrames[s.frame%len(spinFrames)]), s.spin)
	}
}

// startSpinner shows label with a spinner until the next output.
func (s *screen) startSpinner(label string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.newlineLocked()
	s.spin = label
	if !s.tty {
		return
	}
	s.drawLocked()
	if s.stop == nil {
		s.stop = make(chan struct{})
		go s.animate(s.stop)
	}
}

func (s *screen) animate(stop chan struct{}) {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			s.mu.Lock()
			s.frame++
			s.drawLocked()
			s.mu.Unlock()
		}
	}
}

// stopSpinnerLocked erases the spinner and ends its goroutine.
func (s *screen) stopSpinnerLocked() {
	s.eraseLocked()
	s.spin = ""
	if s.stop != nil {
		close(s.stop)
		s.stop = nil
	}
}

func (s *screen) newlineLocked() {
	if s.midLine {
		fmt.Fprintln(s.w)
		s.midLine = false
	}
	s.blank = 1
}

// Println prints a whole line, on a line of its own.
func (s *screen) Println(a ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopSpinnerLocked()
	s.newlineLocked()
	fmt.Fprintln(s.w, a...)
}

// Printf prints formatted text that may end mid-line (a prompt).
func (s *screen) Printf(format string, a ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopSpinnerLocked()
	out := fmt.Sprintf(format, a...)
	fmt.Fprint(s.w, out)
	s.midLine = !strings.HasSuffix(out, "\n")
}

// inputDone records that the user pressed Enter after a prompt: a
// terminal echoed the newline; a pipe did not, so one is still owed.
func (s *screen) inputDone() {
	s.mu.Lock()
	if s.tty {
		s.midLine = false
	}
	s.mu.Unlock()
}

// stream prints model text as it arrives; blank-line runs left where
// tool-call markup was removed print as one.
func (s *screen) stream(text string, style *lipgloss.Style) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopSpinnerLocked()
	var b strings.Builder
	for _, r := range text {
		if r == '\n' {
			if s.blank >= 2 {
				continue
			}
			s.blank++
		} else {
			s.blank = 0
		}
		b.WriteRune(r)
	}
	out := b.String()
	if style != nil {
		out = style.Render(out)
	}
	fmt.Fprint(s.w, out)
	if b.Len() > 0 {
		s.midLine = s.blank == 0
	}
}

// Emit implements agent.Sink: the run as the user sees it.
func (s *screen) Emit(_ context.Context, e agent.Event) error {
	st := s.st
	if _, ok := e.(agent.ThinkingDelta); !ok && s.think {
		s.think = false
		s.mu.Lock()
		s.newlineLocked() // end the thinking block's line, without a blank one
		s.mu.Unlock()
	}
	switch e := e.(type) {
	case agent.RunStarted:
		// A local model can take a while to load and answer: show that
		// something is happening until its first token.
		s.startSpinner("waiting for the model…")
	case agent.ProgressGroupFinished:
		s.startSpinner("waiting for the model…")
	case agent.ThinkingDelta:
		if !s.think {
			s.think = true
			s.Println(st.dim.Render("thinking…"))
		}
		s.stream(e.Text, &st.dim)
	case agent.ThinkingCollapsed:
		s.Println(st.dim.Render(fmt.Sprintf("thought for %s", e.Duration().Round(100*time.Millisecond))))
	case agent.TextDelta:
		s.stream(e.Text, nil)
	case agent.FileWriting:
		s.startSpinner(fmt.Sprintf("Writing %s…", e.Path))
	case agent.ProgressGroupStarted:
		s.Println(st.bold.Render("▸ " + e.Title))
	case agent.ToolAction:
		s.action(e)
	case agent.Notice:
		s.Println(st.warn.Render("! " + e.Kind + ": " + oneLine(e.Text, 200)))
	case agent.ContextCompacted:
		s.Println(st.dim.Render(fmt.Sprintf("context compacted: %d → %d tokens", e.TokensBefore, e.TokensAfter)))
	case agent.FilesChanged:
		if e.Final {
			s.Println(st.bold.Render("files changed") + " " + stat(st, e.Added, e.Removed) + st.dim.Render("  (/diff to see, /undo to revert, /keep to accept)"))
			for _, f := range e.Files {
				s.Println("  " + f.Kind + " " + f.Path + " " + stat(st, f.Added, f.Removed))
			}
		}
	case agent.RunFinished:
		msg := fmt.Sprintf("%s · %d model calls · %d+%d tokens", e.StopReason, e.Iterations, e.Usage.PromptTokens, e.Usage.CompletionTokens)
		if e.Error != "" {
			msg += " · " + e.Error
		}
		s.Println(st.dim.Render("── " + msg))
	}
	return nil
}

func (s *screen) action(a agent.ToolAction) {
	st := s.st
	detail := oneLine(a.Detail, 160)
	switch a.Status {
	case agent.StatusRunning:
		s.startSpinner(a.Title)
	case agent.StatusPending:
		s.Println(st.warn.Render("… " + a.Title + " (waiting for your approval)"))
	case agent.StatusSuccess:
		s.Println("  " + st.ok.Render("✓") + " " + a.Title + " " + st.dim.Render(detail))
	case agent.StatusDenied:
		s.Println("  " + st.bad.Render("✗") + " " + a.Title + " " + st.bad.Render(detail))
	case agent.StatusError:
		s.Println("  " + st.bad.Render("✗") + " " + a.Title + " " + st.warn.Render(detail))
	default:
		s.Println("  " + st.dim.Render("– "+a.Title+" "+detail))
	}
}

func stat(st styles, added, removed int) string {
	return st.add.Render(fmt.Sprintf("+%d", added)) + " " + st.del.Render(fmt.Sprintf("−%d", removed))
}

func oneLine(s string, n int) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(s); len(r) > n {
		s = string(r[:n-1]) + "…"
	}
	return s
}
