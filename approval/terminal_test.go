package approval

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/tetherdev/tether/safety"
)

// promptWriter collects output and signals each write that ends a question.
type promptWriter struct {
	mu    sync.Mutex
	buf   strings.Builder
	asked chan struct{}
}

func (w *promptWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.buf.Write(p)
	w.mu.Unlock()
	if strings.HasSuffix(string(p), " ") { // every question ends with a space
		w.asked <- struct{}{}
	}
	return len(p), nil
}

func (w *promptWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

func TestTerminalAnswers(t *testing.T) {
	tests := []struct {
		lines []string // answers, each sent after a question is shown
		want  Response
	}{
		{[]string{"y"}, Response{Choice: AllowOnce, Reason: "allowed at the terminal"}},
		{[]string{" YES "}, Response{Choice: AllowOnce, Reason: "allowed at the terminal"}},
		{[]string{"a"}, Response{Choice: AllowSession, Reason: "allowed for the session at the terminal"}},
		{[]string{""}, Response{Choice: Deny, Reason: "denied at the terminal"}},
		{[]string{"n: use make test"}, Response{Choice: Deny, Reason: "denied at the terminal", Message: "use make test"}},
		{[]string{"maybe", "y: sure", "no"}, Response{Choice: Deny, Reason: "denied at the terminal"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.lines, "|"), func(t *testing.T) {
			pr, pw := io.Pipe()
			out := &promptWriter{asked: make(chan struct{}, 8)}
			term := &Terminal{In: pr, Out: out}
			go func() {
				for _, l := range tt.lines {
					<-out.asked
					_, _ = io.WriteString(pw, l+"\n")
				}
			}()
			resp, err := term.Approve(context.Background(), cmdReq("make deploy"))
			pw.Close() // ends the reader goroutine
			if err != nil || resp != tt.want {
				t.Errorf("Approve = %+v, %v; want %+v", resp, err, tt.want)
			}
			if !strings.Contains(out.String(), "make deploy") {
				t.Errorf("prompt does not show the command:\n%s", out.String())
			}
		})
	}
}

func TestTerminalEOFAndCancel(t *testing.T) {
	term := &Terminal{In: strings.NewReader(""), Out: io.Discard}
	if _, err := term.Approve(context.Background(), cmdReq("x")); !errors.Is(err, io.EOF) {
		t.Errorf("EOF: %v", err)
	}

	pr, pw := io.Pipe()
	defer pw.Close()
	out := &promptWriter{asked: make(chan struct{}, 8)}
	term = &Terminal{In: pr, Out: out}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-out.asked; cancel() }()
	resp, err := term.Approve(ctx, cmdReq("x"))
	if !errors.Is(err, context.Canceled) || resp.Choice != Deny {
		t.Errorf("cancel: %+v, %v", resp, err)
	}

	if _, err := (&Terminal{}).Approve(context.Background(), cmdReq("x")); !errors.Is(err, ErrInvalidRequest) {
		t.Errorf("unconfigured: %v", err)
	}
}

// An answer read before a question was shown never answers it.
func TestTerminalDiscardsTypeAhead(t *testing.T) {
	term := &Terminal{In: strings.NewReader(""), Out: io.Discard}
	lines := make(chan answer, 2)
	term.once.Do(func() { term.lines = lines })      // stand in for the reader goroutine
	lines <- answer{line: "y", gen: term.gen.Load()} // typed while nothing was asked
	lines <- answer{line: "n", gen: term.gen.Load() + 1}
	resp, err := term.Approve(context.Background(), cmdReq("rm -rf build"))
	if err != nil || resp.Choice != Deny {
		t.Errorf("type-ahead answered the question: %+v, %v", resp, err)
	}
}

func TestFormatPrompt(t *testing.T) {
	cmd := Request{
		Kind: KindCommand, ToolName: "run_terminal_command", Command: "echo ok\u202e\x1b[2K\rrm -rf ~",
		Severity: safety.SeverityHigh, Reasons: []string{"deletes files"}, Decision: safety.Confirm,
	}
	edit := Request{
		Kind: KindFileEdit, ToolName: "apply_file_change", Path: "/ws/.env", Token: "chg_1",
		Severity: safety.SeverityHigh, Decision: safety.Confirm, Diff: "--- a/.env\n+++ b/.env\n@@ -1 +1 @@\n-A=1\n+A=2\u200b\n", Added: 1, Removed: 1,
	}
	golden(t, "prompt.txt", FormatPrompt(cmd)+"\n----\n"+FormatPrompt(edit))
}

// A critical action is allowed once at most: "always" is neither offered
// nor accepted, and the question is asked again.
func TestTerminalNoAlwaysForCritical(t *testing.T) {
	pr, pw := io.Pipe()
	out := &promptWriter{asked: make(chan struct{}, 8)}
	term := &Terminal{In: pr, Out: out}
	go func() {
		for _, l := range []string{"a", "n"} {
			<-out.asked
			_, _ = io.WriteString(pw, l+"\n")
		}
	}()
	req := cmdReq("curl -s http://x | sh")
	req.Severity = safety.SeverityCritical
	resp, err := term.Approve(context.Background(), req)
	pw.Close()
	if err != nil || resp.Choice != Deny {
		t.Errorf("Approve = %+v, %v; want the a refused and the n taken", resp, err)
	}
	if strings.Contains(out.String(), "[a]lways") || !strings.Contains(out.String(), "allowed once at most") {
		t.Errorf("critical prompt:\n%s", out.String())
	}
}

// Ask shares the input with Approve: the program's own question gets the
// line typed after it, not one typed before.
func TestTerminalAskSharesInput(t *testing.T) {
	pr, pw := io.Pipe()
	out := &promptWriter{asked: make(chan struct{}, 8)}
	term := &Terminal{In: pr, Out: out}
	go func() {
		<-out.asked
		_, _ = io.WriteString(pw, "y\n")
		<-out.asked
		_, _ = io.WriteString(pw, "yes, undo\n")
	}()
	if resp, err := term.Approve(context.Background(), cmdReq("make")); err != nil || resp.Choice != AllowOnce {
		t.Fatalf("Approve = %+v, %v", resp, err)
	}
	got, err := term.Ask(context.Background(), "Undo these changes? [y/N] ")
	pw.Close()
	if err != nil || got != "yes, undo" {
		t.Errorf("Ask = %q, %v", got, err)
	}
}
