package approval

import (
	"context"
	"errors"
	"testing"

	"github.com/tetherdev/tether/safety"
)

// An action whose decision nobody set must never run unasked: the Gate
// treats it as Confirm, so a headless policy denies it and an approver is
// asked.
func TestGateUnsetDecisionAsks(t *testing.T) {
	var zero safety.Decision
	if zero == safety.Allow {
		t.Fatal("the zero safety.Decision is Allow")
	}
	req := Request{Kind: KindOther, ToolName: "deploy", Summary: "run the deploy tool"}

	g := &Gate{Policy: Headless(nil)}
	if _, err := g.Authorize(context.Background(), req); !errors.Is(err, ErrDenied) {
		t.Fatalf("headless, unset decision: err = %v, want ErrDenied", err)
	}

	asked := 0
	g = &Gate{Approver: Func(func(_ context.Context, r Request) (Response, error) {
		asked++
		if r.Decision != safety.Confirm {
			t.Errorf("approver saw decision %v, want confirm", r.Decision)
		}
		return Response{Choice: AllowOnce}, nil
	})}
	if _, err := g.Authorize(context.Background(), req); err != nil || asked != 1 {
		t.Fatalf("interactive, unset decision: err = %v, asked %d times, want allowed after one question", err, asked)
	}
}
