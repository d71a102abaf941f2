package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tetherdev/tether/settings"
)

// TestAutoApproveSensitiveEdits: a write to a sensitive file shows a
// card unless the user's own settings turn autoApproveSensitiveEdits
// on; the same field in a project file the user has not trusted is left
// out, since the model could have written it.
func TestAutoApproveSensitiveEdits(t *testing.T) {
	script := `{"capabilities":{"tools":true}}
{"content":"Writing.","tool_calls":[{"name":"write_file","arguments":{"path":"deploy/app.yaml","content":"replicas: 3\n"}}]}
{"content":"Done. [TASK_COMPLETE]"}
`
	for _, tc := range []struct {
		name, user, project string
		asked               bool
	}{
		{"off", `{}`, `{"sensitiveFiles": ["deploy/**"]}`, true},
		{"user settings", `{"autoApproveSensitiveEdits": true}`, `{"sensitiveFiles": ["deploy/**"]}`, false},
		{"untrusted project", `{}`, `{"sensitiveFiles": ["deploy/**"], "autoApproveSensitiveEdits": true}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			config := t.TempDir()
			os.MkdirAll(filepath.Join(config, "tether"), 0o755)
			os.WriteFile(filepath.Join(config, "tether", "settings.json"), []byte(tc.user), 0o644)
			ts := startServer(t, script, nil, func(o *options) {
				os.MkdirAll(filepath.Join(o.workspace, ".tether"), 0o755)
				os.WriteFile(filepath.Join(o.workspace, settings.ProjectFile), []byte(tc.project), 0o644)
				l, err := settings.Env{ConfigDir: config}.Load(o.workspace)
				if err != nil {
					t.Fatal(err)
				}
				o.set = l.Settings
			})
			session := ts.newSession(t)
			if code, body := ts.post(t, "/api/prompt", map[string]string{"session": session, "text": "Scale the app"}); code != 202 {
				t.Fatalf("prompt: %d %v", code, body)
			}
			asked := false
			ts.events(t, session, func(ev map[string]any) bool {
				switch ev["type"] {
				case "approval_requested":
					asked = true
					ts.post(t, "/api/approve", map[string]string{"id": ev["id"].(string), "choice": "deny"})
				case "run_finished":
					return true
				}
				return false
			})
			if asked != tc.asked {
				t.Errorf("asked %v, want %v", asked, tc.asked)
			}
			_, err := os.Stat(filepath.Join(ts.dir, "deploy", "app.yaml"))
			if written := err == nil; written == tc.asked {
				t.Errorf("written %v after a denied or unasked write (asked %v)", written, tc.asked)
			}
		})
	}
}
