package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAutoApproveSensitiveEdits: a write to a sensitive file needs a
// person (here nobody answers, so it is refused) unless the user's own
// settings turn autoApproveSensitiveEdits on. The same field in a
// project file the user has not trusted is left out, since the model
// could have written it.
func TestAutoApproveSensitiveEdits(t *testing.T) {
	script := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(script, []byte(`{"content":"Writing.","tool_calls":[{"name":"write_file","arguments":{"path":"deploy/app.yaml","content":"replicas: 3\n"}}]}`+"\n"+
		`{"content":"Done. [TASK_COMPLETE]"}`+"\n"), 0o644)
	for _, tc := range []struct {
		name, user, project string
		written             bool
	}{
		{"off", `{}`, `{"sensitiveFiles": ["deploy/**"]}`, false},
		{"user settings", `{"autoApproveSensitiveEdits": true}`, `{"sensitiveFiles": ["deploy/**"]}`, true},
		{"untrusted project", `{}`, `{"sensitiveFiles": ["deploy/**"], "autoApproveSensitiveEdits": true}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			config := t.TempDir()
			t.Setenv("XDG_CONFIG_HOME", config)
			os.MkdirAll(filepath.Join(config, "tether"), 0o755)
			os.WriteFile(filepath.Join(config, "tether", "settings.json"), []byte(tc.user), 0o644)
			ws := project(t)
			os.MkdirAll(filepath.Join(ws, ".tether"), 0o755)
			os.WriteFile(filepath.Join(ws, ".tether", "settings.json"), []byte(tc.project), 0o644)
			var out, stderr bytes.Buffer
			in := strings.NewReader(`{"type":"prompt","text":"Scale the app"}` + "\n")
			if code := run(t.Context(), []string{"-workspace", ws, "-model", "script:" + script}, in, &out, &stderr); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			_, err := os.Stat(filepath.Join(ws, "deploy", "app.yaml"))
			if written := err == nil; written != tc.written {
				t.Errorf("written %v, want %v\n%s", written, tc.written, out.String())
			}
			if tc.name == "untrusted project" && !strings.Contains(stderr.String(), "autoApproveSensitiveEdits") {
				t.Errorf("the log does not say the field was left out:\n%s", stderr.String())
			}
		})
	}
}
