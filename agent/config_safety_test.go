package agent

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/safety"
)

// New refuses a configuration that states a setting twice with different
// values, naming the fields, instead of silently preferring one.
func TestNewRejectsContradictorySafety(t *testing.T) {
	e := newEnv(t, `{"content":"ok"}`, nil)
	other, err := safety.OpenWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	allowLs := safety.CommandRules{Allow: []string{"ls"}}
	tests := []struct {
		name   string
		adjust func(*Config)
		want   []string // substrings of the error; none means New succeeds
	}{
		{"safety alone", func(c *Config) { c.Safety = &safety.Policy{DenyCritical: true} }, nil},
		{"same workspace twice", func(c *Config) { c.Safety = &safety.Policy{Workspace: e.ws} }, nil},
		{"same rules twice", func(c *Config) {
			c.CommandRules = allowLs
			c.Safety = &safety.Policy{Rules: safety.CommandRules{Allow: []string{"ls"}}}
		}, nil},
		{"other workspace", func(c *Config) { c.Safety = &safety.Policy{Workspace: other} },
			[]string{"Config.Safety.Workspace", "Config.Workspace", "differ"}},
		{"safety workspace without config workspace", func(c *Config) {
			c.Workspace = nil
			c.Safety = &safety.Policy{Workspace: e.ws}
		}, []string{"Config.Safety.Workspace", "Config.Workspace is nil"}},
		{"different rules", func(c *Config) {
			c.CommandRules = allowLs
			c.Safety = &safety.Policy{Rules: safety.CommandRules{AllowReadOnly: true}}
		}, []string{"Config.Safety.Rules", "Config.CommandRules"}},
		{"headless safety", func(c *Config) { c.Safety = &safety.Policy{Headless: true} },
			[]string{"Config.Safety.Headless", "approval.Headless"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := e.config()
			tt.adjust(&cfg)
			_, err := New(cfg)
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("New: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrConfig) {
				t.Fatalf("New = %v, want ErrConfig", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not name %q", err, w)
				}
			}
		})
	}
}

// Setting Safety for one knob keeps the workspace and command rules the
// Config states: the rules still approve, the workspace still confines.
func TestSafetyKeepsConfigWorkspaceAndRules(t *testing.T) {
	e := newEnv(t, `{"content":"ok"}`, nil)
	cfg := e.config()
	cfg.CommandRules = safety.CommandRules{Allow: []string{"ls"}}
	cfg.Safety = &safety.Policy{DenyCritical: true}
	x, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if a := x.safety.AssessCommand(ctx, "ls", ""); a.Decision != safety.Allow {
		t.Errorf("ls = %s (%s), want allow from Config.CommandRules", a.Decision, a.Reason())
	}
	if a := x.safety.Assess(ctx, safety.Action{Paths: []safety.PathOp{{Path: "a.txt", Op: safety.OpWrite}}}); a.Decision != safety.Allow {
		t.Errorf("write a.txt = %s (%s), want allow inside Config.Workspace", a.Decision, a.Reason())
	}
	if cfg.Safety.Workspace != nil || len(cfg.Safety.Rules.Allow) != 0 {
		t.Error("New changed the caller's safety.Policy")
	}
}

// With approval.Headless (the one place that says nobody is there), a
// sensitive write is denied without a card, and under staging it is
// staged for the host to review instead.
func TestHeadlessPolicyDeniesOrStages(t *testing.T) {
	script := `{"tool_calls":[{"name":"write_file","arguments":{"path":".env","content":"TOKEN=new\n"}}]}
{"content":"done [TASK_COMPLETE]"}
`
	for _, staging := range []bool{false, true} {
		e := newEnv(t, script, map[string]string{".env": "TOKEN=old\n"})
		cfg := e.config()
		cfg.Policy = approval.Headless(nil)
		cfg.RequireWrites = new(false) // the denied write is the point
		cfg.Approver = &approver{answer: allowAll}
		if staging {
			cfg.Staging = approval.NewStager(e.ws, approval.StagerConfig{})
		}
		if _, err := e.run(cfg, "change .env"); err != nil {
			t.Fatal(err)
		}
		if got := e.read(".env"); got != "TOKEN=old\n" {
			t.Errorf("staging=%v: .env = %q, want it untouched", staging, got)
		}
		if n := len(eventsOf[event.ApprovalRequested](e.rec)); n != 0 {
			t.Errorf("staging=%v: %d approval cards shown with nobody to ask", staging, n)
		}
		acts := e.rec.actions()
		want := event.StatusDenied
		if staging {
			want = event.StatusSuccess
		}
		if len(acts) == 0 || acts[len(acts)-1].Status != want {
			t.Errorf("staging=%v: actions = %+v, want the last %s", staging, acts, want)
		}
	}
}
