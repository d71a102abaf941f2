package approval

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/tetherdev/tether/safety"
)

// Terminal is an Approver that asks on a text terminal: it writes the
// request's display form to Out and reads one answer line from In.
//
//	y, yes            allow once
//	a, always         allow for this session (the rule printed above); not
//	                  offered, nor accepted, for a critical action
//	n, no, or empty   deny
//	n: <message>      deny and tell the model why ("n: use make test")
//
// Anything else is asked again. Terminal reads In from one goroutine of its
// own, started on the first Approve, so that Approve can return when ctx is
// done even though a terminal read cannot be interrupted; that goroutine ends
// when In reaches EOF or fails. Close In (or let the process end) to stop it.
// Type-ahead is discarded: a line read before a question was printed (typed
// for an earlier, cancelled question, or by a user holding "y") never
// answers it.
//
// The zero Terminal is not usable; set In and Out. Approve calls are
// serialised: one question at a time.
type Terminal struct {
	In  io.Reader
	Out io.Writer

	once  sync.Once
	lines chan answer // closed when In ends
	err   error       // why In ended; read only after lines is closed
	ask   sync.Mutex  // one question at a time
	gen   atomic.Uint64
}

// answer is a line and the question generation current when it was read.
type answer struct {
	line string
	gen  uint64
}

func (t *Terminal) start() {
	t.lines = make(chan answer)
	go func() {
		sc := bufio.NewScanner(t.In)
		for sc.Scan() {
			t.lines <- answer{line: sc.Text(), gen: t.gen.Load()}
		}
		t.err = sc.Err()
		if t.err == nil {
			t.err = io.EOF
		}
		close(t.lines)
	}()
}

// Approve prints req and waits for an answer, ctx's end, or the end of input.
func (t *Terminal) Approve(ctx context.Context, req Request) (Response, error) {
	if t.In == nil || t.Out == nil {
		return Response{Reason: "terminal approver has no In or Out"}, fmt.Errorf("%w: Terminal needs both In and Out", ErrInvalidRequest)
	}
	t.ask.Lock()
	defer t.ask.Unlock()
	t.once.Do(t.start)

	// Lines read from now on answer this question. The generation moves
	// before the question is printed, so an answer typed the instant it
	// appears is never mistaken for type-ahead.
	gen := t.gen.Add(1)
	if _, err := io.WriteString(t.Out, FormatPrompt(req)); err != nil {
		return Response{Reason: "cannot write the question"}, fmt.Errorf("approval: terminal: %w", err)
	}
	for {
		select {
		case <-ctx.Done():
			fmt.Fprintln(t.Out, "\n(no longer waiting: "+context.Cause(ctx).Error()+")")
			return Response{Reason: "cancelled: " + context.Cause(ctx).Error()}, context.Cause(ctx)
		case a, ok := <-t.lines:
			if !ok {
				err := t.err
				return Response{Reason: "terminal input ended: " + err.Error()}, fmt.Errorf("approval: terminal input ended: %w", err)
			}
			if a.gen != gen {
				continue // typed before this question was shown
			}
			critical := req.Severity == safety.SeverityCritical
			if resp, ok := parseAnswer(a.line); ok && !(critical && resp.Choice == AllowSession) {
				return resp, nil
			}
			again := "Please answer y (allow once), a (allow for this session) or n (deny; \"n: message\" to tell the model why): "
			if critical {
				again = "A critical action is allowed once at most: answer y (allow once) or n (deny; \"n: message\" to tell the model why): "
			}
			if _, err := io.WriteString(t.Out, again); err != nil {
				return Response{Reason: "cannot write the question"}, fmt.Errorf("approval: terminal: %w", err)
			}
		}
	}
}

// parseAnswer reads one answer line.
func parseAnswer(line string) (Response, bool) {
	word, msg, hasMsg := strings.Cut(strings.TrimSpace(line), ":")
	word = strings.ToLower(strings.TrimSpace(word))
	msg = strings.TrimSpace(msg)
	switch word {
	case "y", "yes":
		if hasMsg {
			return Response{}, false
		}
		return Response{Choice: AllowOnce, Reason: "allowed at the terminal"}, true
	case "a", "always":
		if hasMsg {
			return Response{}, false
		}
		return Response{Choice: AllowSession, Reason: "allowed for the session at the terminal"}, true
	case "", "n", "no":
		return Response{Choice: Deny, Reason: "denied at the terminal", Message: msg}, true
	}
	return Response{}, false
}

// FormatPrompt renders req for a text terminal: every field escaped (see
// Display), a warning when the subject contained hidden characters, the diff
// for file edits, the session rule "always" would grant, and the question.
func FormatPrompt(req Request) string {
	d := req.Display()
	var b strings.Builder
	fmt.Fprintf(&b, "\n%s wants to ", orDefault(d.ToolName, "the agent"))
	switch req.Kind {
	case KindCommand:
		fmt.Fprintf(&b, "run a command [%s]:\n    %s\n", d.Severity, d.Subject)
	case KindFileEdit:
		fmt.Fprintf(&b, "change a file [%s]: %s (+%d −%d)\n", d.Severity, d.Subject, req.Added, req.Removed)
	default:
		fmt.Fprintf(&b, "act [%s]: %s\n", d.Severity, d.Subject)
	}
	if d.Escaped {
		b.WriteString("  WARNING: it contains hidden or control characters, shown escaped above.\n")
	}
	for _, r := range d.Reasons {
		fmt.Fprintf(&b, "  - %s\n", r)
	}
	if d.Diff != "" {
		b.WriteString(d.Diff)
		if !strings.HasSuffix(d.Diff, "\n") {
			b.WriteByte('\n')
		}
	}
	if d.Severity == "critical" {
		b.WriteString("Allow? [y]es once / [n]o (n: message) ")
	} else {
		fmt.Fprintf(&b, "Allow? [y]es once / [a]lways for %s / [n]o (n: message) ", d.Rule)
	}
	return b.String()
}

// Ask prints question and returns the next line typed after it, without
// its line ending. It shares In with Approve, so a program that lets the
// Terminal read its input can still ask its own questions ("Undo these
// changes?"); as with approvals, a line typed before the question does
// not answer it.
func (t *Terminal) Ask(ctx context.Context, question string) (string, error) {
	if t.In == nil || t.Out == nil {
		return "", fmt.Errorf("%w: Terminal needs both In and Out", ErrInvalidRequest)
	}
	t.ask.Lock()
	defer t.ask.Unlock()
	t.once.Do(t.start)
	gen := t.gen.Add(1)
	if _, err := io.WriteString(t.Out, question); err != nil {
		return "", fmt.Errorf("approval: terminal: %w", err)
	}
	for {
		select {
		case <-ctx.Done():
			return "", context.Cause(ctx)
		case a, ok := <-t.lines:
			if !ok {
				return "", fmt.Errorf("approval: terminal input ended: %w", t.err)
			}
			if a.gen == gen {
				return a.line, nil
			}
		}
	}
}
