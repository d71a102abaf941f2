package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"

	"github.com/tetherdev/tether/approval"
)

// errInputClosed is returned when standard input ends (Ctrl-D).
var errInputClosed = errors.New("input closed")

// input reads standard input on one goroutine and hands out lines, each
// tagged with the generation current when it was read. Both the prompt
// and the approver read from it: a terminal read cannot be interrupted,
// so one reader serves everybody.
type input struct {
	lines chan line
	gen   atomic.Uint64
}

type line struct {
	text string
	gen  uint64
}

func newInput(r io.Reader) *input {
	in := &input{lines: make(chan line)}
	go func() {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			in.lines <- line{text: sc.Text(), gen: in.gen.Load()}
		}
		close(in.lines)
	}()
	return in
}

// next shows a prompt (show may be nil) and returns the next line,
// including one typed ahead while the agent worked: a task typed early is
// not lost.
func (in *input) next(ctx context.Context, show func()) (string, error) {
	return in.read(ctx, show, nil)
}

// answer shows a question and returns the next line typed after it. Lines
// typed before it was shown are dropped, and dropped is told about each, so
// a stray "y" can never answer a question it was not typed for. The
// generation moves before the question is shown, so an answer typed the
// instant it appears counts.
func (in *input) answer(ctx context.Context, show func(), dropped func(string)) (string, error) {
	return in.read(ctx, show, dropped)
}

func (in *input) read(ctx context.Context, show func(), dropped func(string)) (string, error) {
	gen := in.gen.Add(1)
	if show != nil {
		show()
	}
	for {
		select {
		case <-ctx.Done():
			return "", context.Cause(ctx)
		case l, ok := <-in.lines:
			if !ok {
				return "", errInputClosed
			}
			if dropped == nil || l.gen == gen {
				return l.text, nil
			}
			dropped(l.text)
		}
	}
}

// approver asks in the terminal: the command exactly as it will run
// (escaped, so control characters and look-alike tricks show), its
// severity and reasons, the diff of a file edit, and the exact rule that
// "always" would grant.
type approver struct {
	scr *screen
	in  *input
}

func (a *approver) Approve(ctx context.Context, req approval.Request) (approval.Response, error) {
	st := a.scr.st
	d := req.Display()
	var b strings.Builder
	what := "act"
	switch req.Kind {
	case approval.KindCommand:
		what = "run a command"
	case approval.KindFileEdit:
		what = fmt.Sprintf("change a file %s", stat(st, req.Added, req.Removed))
	}
	fmt.Fprintf(&b, "%s %s wants to %s  [%s]\n", st.warn.Render("╭ approval:"), d.ToolName, what, st.severity(d.Severity))
	fmt.Fprintf(&b, "%s   %s\n", st.warn.Render("│"), st.bold.Render(d.Subject))
	if d.Escaped {
		fmt.Fprintf(&b, "%s   %s\n", st.warn.Render("│"), st.bad.Render("WARNING: hidden or control characters, shown escaped above"))
	}
	for _, r := range d.Reasons {
		fmt.Fprintf(&b, "%s   - %s\n", st.warn.Render("│"), r)
	}
	if d.Diff != "" {
		b.WriteString(st.diff(d.Diff))
	}
	fmt.Fprintf(&b, "%s [y]es once · [a]lways for %s · [n]o (n: tell the model why) › ", st.warn.Render("╰"), d.Rule)
	question := b.String()
	for {
		text, err := a.in.answer(ctx, func() { a.scr.Printf("%s", question) }, func(early string) {
			a.scr.Println(st.dim.Render(fmt.Sprintf("(ignored %q: typed before the question)", early)))
			a.scr.Printf("%s", question)
		})
		a.scr.inputDone()
		if err != nil {
			a.scr.Println(st.dim.Render("(no answer: " + err.Error() + "; denied)"))
			return approval.Response{Reason: "no answer: " + err.Error()}, err
		}
		if resp, ok := parseAnswer(text); ok {
			return resp, nil
		}
		question = "please answer y, a or n (n: message) › "
	}
}

// parseAnswer reads an approval answer.
func parseAnswer(s string) (approval.Response, bool) {
	word, msg, hasMsg := strings.Cut(strings.TrimSpace(s), ":")
	word = strings.ToLower(strings.TrimSpace(word))
	switch word {
	case "y", "yes":
		return approval.Response{Choice: approval.AllowOnce, Reason: "allowed once by the user"}, !hasMsg
	case "a", "always":
		return approval.Response{Choice: approval.AllowSession, Reason: "allowed for this session by the user"}, !hasMsg
	case "", "n", "no":
		return approval.Response{Choice: approval.Deny, Reason: "denied by the user", Message: strings.TrimSpace(msg)}, true
	}
	return approval.Response{}, false
}
