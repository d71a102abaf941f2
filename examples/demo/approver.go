package main

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"

	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/safety"
)

// scriptedApprover stands in for the person at the keyboard. It prints
// each question exactly as approval.Terminal would show it, then the
// answer a careful user would type: commands rated high or critical are
// refused with a word to the model, everything else is allowed once.
//
// It is a plain approval.Approver: swap in &approval.Terminal{In: os.Stdin,
// Out: os.Stdout} to answer yourself.
type scriptedApprover struct {
	w   io.Writer
	p   palette
	log []answered
}

type answered struct {
	req  approval.Request
	resp approval.Response
}

func (a *scriptedApprover) Approve(_ context.Context, req approval.Request) (approval.Response, error) {
	q := strings.TrimLeft(approval.FormatPrompt(req), "\n")
	fmt.Fprint(a.w, "\n"+a.p.yellow(indent(q, "  ? ")))

	resp := approval.Response{Choice: approval.AllowOnce, Reason: "scripted approver: allowed once"}
	typed, why := "y", "looks safe"
	if req.Kind == approval.KindCommand && req.Severity >= safety.SeverityHigh {
		resp = approval.Response{
			Choice:  approval.Deny,
			Reason:  "scripted approver: " + req.Severity.String() + " command refused",
			Message: "Do not delete anything outside the project. Run the tests directly.",
		}
		typed, why = "n: "+resp.Message, req.Severity.String()+" command"
	}
	answer := a.p.green(typed)
	if !resp.Allowed() {
		answer = a.p.red(typed)
	}
	fmt.Fprintf(a.w, "%s   %s\n", answer, a.p.dim("(scripted answer: "+why+")"))
	a.log = append(a.log, answered{req: req, resp: resp})
	return resp, nil
}

// indent prefixes the first line with first and the others with spaces of
// the same width, so the question reads as one block in the transcript.
func indent(s, first string) string {
	pad := strings.Repeat(" ", len([]rune(first)))
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if i == 0 {
			lines[i] = first + l
		} else if l != "" {
			lines[i] = pad + l
		}
	}
	return strings.Join(lines, "\n")
}

func goOnPath() bool {
	_, err := exec.LookPath("go")
	return err == nil
}
