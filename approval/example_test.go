package approval_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"

	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/safety"
)

// quietLogger drops the audit log so example output stays readable.
var quietLogger = slog.New(slog.DiscardHandler)

// A host UI answers asynchronously: the manager notifies it of each request,
// and it resolves them by id from its own goroutine.
func ExampleManager() {
	m := &approval.Manager{}
	done := make(chan struct{})
	m.Notify = func(e approval.Event) {
		switch e.Type {
		case approval.EventRequested:
			d := e.Request.Display()
			fmt.Printf("asking: %s [%s]\n", d.Subject, d.Severity)
			go func() {
				defer close(done)
				_ = m.Resolve(e.Request.ID, approval.Response{Choice: approval.AllowOnce, Reason: "clicked Allow"})
			}()
		case approval.EventResolved:
			fmt.Println("resolved:", e.Response.Choice)
		}
	}
	resp, err := m.Wait(context.Background(), approval.Request{
		Kind: approval.KindCommand, Command: "npm install", Decision: safety.Confirm, Severity: safety.SeverityMedium,
	})
	<-done
	fmt.Println(resp.Choice, resp.Reason, err)
	// Output:
	// asking: npm install [medium]
	// resolved: allow_once
	// allow_once clicked Allow <nil>
}

// The Gate runs a request through safety decision, grants, policy and
// approver; "allow for session" grants exactly the rule that was shown.
func ExampleGate() {
	asked := 0
	gate := &approval.Gate{
		Policy: approval.Interactive(),
		Approver: approval.Func(func(ctx context.Context, req approval.Request) (approval.Response, error) {
			asked++
			fmt.Println("user sees rule:", req.Display().Rule)
			return approval.Response{Choice: approval.AllowSession}, nil
		}),
		Logger: quietLogger,
	}
	ctx := context.Background()
	req := approval.Request{Kind: approval.KindCommand, ToolName: "run_terminal_command", Command: "npm test", Decision: safety.Confirm}

	ok, _ := gate.Authorize(ctx, req)
	fmt.Println("run:", ok.Command(), "by", ok.By())
	ok, _ = gate.Authorize(ctx, req)
	fmt.Println("run:", ok.Command(), "by", ok.By())

	req.Command = "npm test; rm -rf x"
	gate.Approver = approval.Func(func(context.Context, approval.Request) (approval.Response, error) {
		return approval.Response{Choice: approval.Deny, Message: "only the tests, please"}, nil
	})
	_, err := gate.Authorize(ctx, req)
	var d *approval.DeniedError
	if errors.As(err, &d) {
		fmt.Println(d.ForModel())
	}
	fmt.Println("asked", asked, "time(s) before the deny")
	// Output:
	// user sees rule: run_terminal_command command: `npm test`
	// run: npm test by user
	// run: npm test by session grant
	// The command was not run: the user declined. The user says: only the tests, please
	// asked 1 time(s) before the deny
}

// Headless runs deny whatever would need a person.
func ExampleHeadless() {
	gate := &approval.Gate{Policy: approval.Headless(nil), Logger: quietLogger}
	_, err := gate.Authorize(context.Background(), approval.Request{
		Kind: approval.KindCommand, Command: "git push", Decision: safety.Confirm, Severity: safety.SeverityHigh,
	})
	fmt.Println(errors.Is(err, approval.ErrDenied))
	fmt.Println(err)
	// Output:
	// true
	// approval: command `git push` denied by policy: headless: no one to confirm; confirm-level actions are denied
}

// Escape shows what a spoofing command really contains.
func ExampleEscape() {
	cmd := "echo done #\u202e\x1b[2K\r rm -rf ~"
	fmt.Println(approval.Escape(cmd))
	// Output:
	// echo done #\u202e\x1b[2K\r rm -rf ~
}

// Every decision is logged with who made it and why.
func ExampleGate_auditLog() {
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey || a.Key == "id" {
				return slog.Attr{} // keep the example output stable
			}
			return a
		},
	}))
	gate := &approval.Gate{Policy: approval.AutoApprove(), Logger: logger}
	_, _ = gate.Authorize(context.Background(), approval.Request{
		Kind: approval.KindCommand, ToolName: "run_terminal_command", Command: "npm install",
		Decision: safety.Confirm, Severity: safety.SeverityMedium, Reasons: []string{"installs packages"},
	})
	// Output:
	// level=INFO msg="approval: allowed" kind=command tool=run_terminal_command subject="npm install" severity=medium safety=confirm by=policy reason="auto-approve: medium severity is below critical"
}
