package main

import (
	"net/http"
	"testing"

	"github.com/tetherdev/tether/examples/internal/hostcfg/hostcfgtest"
	"github.com/tetherdev/tether/settings"
)

// TestAutoApproveSensitiveEdits: a write to a sensitive file shows a
// card unless the user's own settings turn autoApproveSensitiveEdits
// on; the same field in a project file the user has not trusted is left
// out, since the model could have written it. Cards are refused.
func TestAutoApproveSensitiveEdits(t *testing.T) {
	for _, tc := range hostcfgtest.AutoApproveCases {
		t.Run(tc.Name, func(t *testing.T) {
			ts := startServer(t, hostcfgtest.SensitiveWrite, nil, func(o *options) {
				config := tc.Setup(t, o.workspace)
				l, err := settings.Env{ConfigDir: config}.Load(o.workspace) // as -h's settings load does
				if err != nil {
					t.Fatal(err)
				}
				o.set = l.Settings
			})
			session := ts.newSession(t)
			if code, body := ts.post(t, "/api/prompt", map[string]string{"session": session, "text": "Scale the app"}); code != http.StatusAccepted {
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
			if asked != tc.Asked {
				t.Errorf("asked %v, want %v", asked, tc.Asked)
			}
			if written := hostcfgtest.Written(ts.dir); written == tc.Asked {
				t.Errorf("written %v; want it refused exactly when asked (%v)", written, tc.Asked)
			}
		})
	}
}
