package main

import (
	"context"
	"testing"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/examples/internal/hostcfg/hostcfgtest"
)

// TestAutoApproveSensitiveEdits: in the session the editor opens, a
// write to a sensitive file asks the editor unless the user's own
// settings turn autoApproveSensitiveEdits on; the same field in a
// project file the user has not trusted is left out, since the model
// could have written it. The session's agent runs with an approver that
// records what it is asked and refuses.
func TestAutoApproveSensitiveEdits(t *testing.T) {
	script := hostcfgtest.Script(t)
	for _, tc := range hostcfgtest.AutoApproveCases {
		t.Run(tc.Name, func(t *testing.T) {
			cwd := t.TempDir()
			tc.Setup(t, cwd)
			r := openBlind(t, []string{"-model", "script:" + script, "-db", "memory", "-sandbox", "off"}, cwd)
			if r.err != nil {
				t.Fatal(r.err)
			}
			cfg := r.setup.Agent
			var asked []string
			cfg.Policy = approval.Interactive()
			cfg.Approver = approval.Func(func(_ context.Context, req approval.Request) (approval.Response, error) {
				asked = append(asked, req.Subject())
				return approval.Response{Choice: approval.Deny, Reason: "test"}, nil
			})
			x, err := agent.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := x.Run(context.Background(), agent.Input{Prompt: "scale the app"}); err != nil {
				t.Fatal(err)
			}
			if (len(asked) > 0) != tc.Asked {
				t.Errorf("asked %q, want asked %v", asked, tc.Asked)
			}
			if written := hostcfgtest.Written(cwd); written == tc.Asked {
				t.Errorf("written %v; want it refused exactly when asked (%v)", written, tc.Asked)
			}
		})
	}
}
