package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAutoApproveSensitiveEdits: a write to a sensitive file shows the
// approval card unless the user's own settings turn
// autoApproveSensitiveEdits on; the same field in a project file the
// user has not trusted is left out (and the coder says so), since the
// model could have written it.
func TestAutoApproveSensitiveEdits(t *testing.T) {
	script := filepath.Join(t.TempDir(), "s.jsonl")
	writeFile(t, script, `{"capabilities":{"tools":true}}
{"content":"Writing.","tool_calls":[{"name":"write_file","arguments":{"path":"deploy/app.yaml","content":"replicas: 3\n"}}]}
{"content":"Scaled. [TASK_COMPLETE]"}
`)
	for _, tc := range []struct {
		name, user, project string
		asked               bool
	}{
		{"off", `{}`, `{"sensitiveFiles": ["deploy/**"]}`, true},
		{"user settings", `{"autoApproveSensitiveEdits": true}`, `{"sensitiveFiles": ["deploy/**"]}`, false},
		{"untrusted project", `{}`, `{"sensitiveFiles": ["deploy/**"], "autoApproveSensitiveEdits": true}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			config, ws := t.TempDir(), t.TempDir()
			t.Setenv("XDG_CONFIG_HOME", config)
			os.MkdirAll(filepath.Join(config, "tether"), 0o755)
			os.MkdirAll(filepath.Join(ws, ".tether"), 0o755)
			writeFile(t, filepath.Join(config, "tether", "settings.json"), tc.user)
			writeFile(t, filepath.Join(ws, ".tether", "settings.json"), tc.project)
			r, w, _ := os.Pipe()
			defer w.Close()
			var out syncBuffer
			done := make(chan int)
			go func() {
				done <- run([]string{"-workspace", ws, "-model", "script:" + script, "-db", ":memory:", "-log", filepath.Join(t.TempDir(), "log")}, r, &out, &out)
			}()
			waitOut(t, &out, "agent ›")
			fmt.Fprintln(w, "scale the app")
			if tc.asked {
				waitOut(t, &out, "n[: why] ›")
				fmt.Fprintln(w, "n")
			}
			waitOut(t, &out, "Scaled.")
			fmt.Fprintln(w, "/quit")
			if code := <-done; code != 0 {
				t.Fatalf("exit %d:\n%s", code, out.String())
			}
			if asked := strings.Contains(out.String(), "n[: why] ›"); asked != tc.asked {
				t.Errorf("asked %v, want %v:\n%s", asked, tc.asked, out.String())
			}
			_, err := os.Stat(filepath.Join(ws, "deploy", "app.yaml"))
			if written := err == nil; written == tc.asked {
				t.Errorf("written %v (asked %v, and a card is refused here)", written, tc.asked)
			}
			if tc.name == "untrusted project" && !strings.Contains(out.String(), "autoApproveSensitiveEdits") {
				t.Errorf("the coder does not say it left the field out:\n%s", out.String())
			}
		})
	}
}
