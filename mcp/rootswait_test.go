package mcp

import (
	"context"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// refusingCaller refuses its first n calls, as a server that has not yet
// applied its roots does.
type refusingCaller struct{ n, calls int }

func (r *refusingCaller) CallTool(context.Context, *sdk.CallToolParams) (*sdk.CallToolResult, error) {
	r.calls++
	if r.calls <= r.n {
		return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "Access denied"}}}, nil
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "ok"}}}, nil
}

func TestFirstCallWaitsForRoots(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name      string
		refusals  int
		roots     int
		asked     bool
		second    bool // make a call before the one checked
		wantOK    bool
		wantCalls int
	}{
		{"refused before the roots were applied: resent", 2, 1, true, false, true, 3},
		{"no roots offered: the answer stands", 1, 0, true, false, false, 1},
		{"server never asked: the answer stands", 1, 1, false, false, false, 1},
		{"only the first call is resent", 1, 1, true, true, false, 3},
		{"resending is bounded", 100, 1, true, false, false, 1 + len(rootsRetryDelays)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rc := &refusingCaller{n: tc.refusals}
			st := newRootsState()
			if tc.asked {
				st.markAsked()
			}
			fc := firstCallCaller{next: rc, state: st, roots: func() int { return tc.roots }}
			if tc.second {
				_, _ = fc.CallTool(ctx, &sdk.CallToolParams{Name: "x"})
				rc.n = 100 // every later call is refused
			}
			res, err := fc.CallTool(ctx, &sdk.CallToolParams{Name: "x"})
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError == tc.wantOK {
				t.Errorf("IsError = %v, want %v", res.IsError, !tc.wantOK)
			}
			if rc.calls != tc.wantCalls {
				t.Errorf("%d calls reached the server, want %d", rc.calls, tc.wantCalls)
			}
		})
	}
}
