package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/settings"
)

// TestAutoApproveSensitiveEdits: in the session the editor opens, a
// write to a sensitive file asks the editor unless the user's own
// settings turn autoApproveSensitiveEdits on; the same field in a
// project file the user has not trusted is left out, since the model
// could have written it. The session's agent runs with an approver that
// records what it is asked and refuses.
func TestAutoApproveSensitiveEdits(t *testing.T) {
	script := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(script, []byte(`{"capabilities":{"tools":true}}
{"content":"Writing.","tool_calls":[{"name":"write_file","arguments":{"path":"deploy/app.yaml","content":"replicas: 3\n"}}]}
{"content":"Scaled. [TASK_COMPLETE]"}
`), 0o644)
	for _, tc := range []struct {
		name, user, project string
		asked               bool
	}{
		{"off", `{}`, `{"sensitiveFiles": ["deploy/**"]}`, true},
		{"user settings", `{"autoApproveSensitiveEdits": true}`, `{"sensitiveFiles": ["deploy/**"]}`, false},
		{"untrusted project", `{}`, `{"sensitiveFiles": ["deploy/**"], "autoApproveSensitiveEdits": true}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			config, cwd := t.TempDir(), t.TempDir()
			t.Setenv("XDG_CONFIG_HOME", config)
			os.MkdirAll(filepath.Join(config, "tether"), 0o755)
			os.WriteFile(filepath.Join(config, "tether", "settings.json"), []byte(tc.user), 0o644)
			os.MkdirAll(filepath.Join(cwd, ".tether"), 0o755)
			os.WriteFile(filepath.Join(cwd, settings.ProjectFile), []byte(tc.project), 0o644)
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
			if (len(asked) > 0) != tc.asked {
				t.Errorf("asked %q, want asked %v", asked, tc.asked)
			}
			_, err = os.Stat(filepath.Join(cwd, "deploy", "app.yaml"))
			if written := err == nil; written == tc.asked {
				t.Errorf("written %v (asked %v, and the approver refuses)", written, tc.asked)
			}
		})
	}
}
