package approval

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tetherdev/tether/safety"
)

// outcome of one Authorize, as the table below spells it.
const (
	ran    = "ran"    // allowed without asking
	asked  = "asked"  // the approver was asked (and said yes)
	denied = "denied" // refused without asking
)

// TestPolicyMatrix runs every built-in policy over every safety decision and
// severity, with an approver that always says yes, and checks who decided.
func TestPolicyMatrix(t *testing.T) {
	sevs := []safety.Severity{safety.SeverityNone, safety.SeverityMedium, safety.SeverityHigh, safety.SeverityCritical}
	type row struct {
		decision safety.Decision
		want     [4]string // by severity none, medium, high, critical
	}
	tests := []struct {
		name   string
		policy Policy
		rows   []row
	}{
		{"interactive", Interactive(), []row{
			{safety.Allow, [4]string{ran, ran, ran, asked}},
			{safety.Confirm, [4]string{asked, asked, asked, asked}},
			{safety.Deny, [4]string{denied, denied, denied, denied}},
		}},
		{"auto-approve", AutoApprove(), []row{
			{safety.Allow, [4]string{ran, ran, ran, asked}},
			{safety.Confirm, [4]string{ran, ran, ran, asked}},
			{safety.Deny, [4]string{denied, denied, denied, denied}},
		}},
		{"headless", Headless(nil), []row{
			{safety.Allow, [4]string{ran, ran, ran, denied}},
			{safety.Confirm, [4]string{denied, denied, denied, denied}},
			{safety.Deny, [4]string{denied, denied, denied, denied}},
		}},
	}
	for _, tt := range tests {
		for _, r := range tt.rows {
			for i, sev := range sevs {
				t.Run(fmt.Sprintf("%s/%s/%s", tt.name, r.decision, sev), func(t *testing.T) {
					calls := 0
					g, rec := newGate(tt.policy, answering(Response{Choice: AllowOnce}, &calls))
					_, err := g.Authorize(context.Background(), Request{Kind: KindCommand, Command: "cmd", Decision: r.decision, Severity: sev})
					got := ran
					switch {
					case err != nil && errors.Is(err, ErrDenied):
						got = denied
					case err != nil:
						t.Fatalf("unexpected error %v", err)
					case calls > 0:
						got = asked
					}
					if got != r.want[i] {
						t.Errorf("got %s, want %s", got, r.want[i])
					}
					if len(rec.decisions()) != 1 {
						t.Errorf("logged %d decisions, want 1", len(rec.decisions()))
					}
				})
			}
		}
	}
}

func TestByKind(t *testing.T) {
	p := ByKind(nil, map[Kind]Policy{KindCommand: AutoApprove(), KindOther: nil})
	ctx := context.Background()
	cases := []struct {
		req  Request
		want safety.Decision
	}{
		{Request{Kind: KindCommand, Command: "npm i", Severity: safety.SeverityMedium}, safety.Allow},
		{Request{Kind: KindCommand, Command: "mkfs", Severity: safety.SeverityCritical}, safety.Confirm},
		{Request{Kind: KindFileEdit, Path: ".env", Severity: safety.SeverityHigh}, safety.Confirm},
		{Request{Kind: KindOther, Summary: "x"}, safety.Confirm},
	}
	for _, c := range cases {
		if v := p.Decide(ctx, c.req); v.Decision != c.want || v.Reason == "" {
			t.Errorf("%v %q: %+v, want %v", c.req.Kind, c.req.Subject(), v, c.want)
		}
	}
}

// A headless denial carries the safety reasons, so the model learns what
// needed a person.
func TestHeadlessDenialKeepsSafetyReasons(t *testing.T) {
	v := Headless(nil).Decide(context.Background(), Request{Kind: KindCommand, Command: "rm -rf ~",
		Decision: safety.Confirm, Reasons: []string{"rm -rf of the home directory is critical"}})
	if v.Decision != safety.Deny || !strings.Contains(v.Reason, "headless") || !strings.Contains(v.Reason, "home directory is critical") {
		t.Errorf("verdict = %+v", v)
	}
}
