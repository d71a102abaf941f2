// Package hostcfgtest holds what the agent examples' tests of the shared
// settings have in common: the cases every host must pass, and the files
// they are set up with.
package hostcfgtest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tetherdev/tether/settings"
)

// SensitiveWrite is a scripted model (JSON lines, as script:FILE reads
// them) that writes deploy/app.yaml, a sensitive file in the cases'
// project settings, and then finishes with "Scaled.".
const SensitiveWrite = `{"capabilities":{"tools":true}}
{"content":"Writing.","tool_calls":[{"name":"write_file","arguments":{"path":"deploy/app.yaml","content":"replicas: 3\n"}}]}
{"content":"Scaled. [TASK_COMPLETE]"}
`

// SensitiveFile is the file SensitiveWrite writes, relative to the
// workspace.
const SensitiveFile = "deploy/app.yaml"

// AutoApproveCase is one setting of autoApproveSensitiveEdits: the
// user's and the project's settings files, and whether a sensitive
// write is asked.
type AutoApproveCase struct {
	Name, User, Project string
	Asked               bool
}

// AutoApproveCases: asked with the setting off; not asked when the
// user's own file turns it on; asked when only the project file turns it
// on and the user has not trusted it (the model could have written it).
var AutoApproveCases = []AutoApproveCase{
	{"off", `{}`, `{"sensitiveFiles": ["deploy/**"]}`, true},
	{"user settings", `{"autoApproveSensitiveEdits": true}`, `{"sensitiveFiles": ["deploy/**"]}`, false},
	{"untrusted project", `{}`, `{"sensitiveFiles": ["deploy/**"], "autoApproveSensitiveEdits": true}`, true},
}

// Setup writes c's project file into workspace and its user file into a
// new config directory, which it makes the process's XDG_CONFIG_HOME for
// the test (so the test cannot be parallel). It returns that directory.
func (c AutoApproveCase) Setup(t *testing.T, workspace string) string {
	t.Helper()
	config := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", config)
	for path, data := range map[string]string{
		filepath.Join(config, "tether", "settings.json"):                   c.User,
		filepath.Join(workspace, filepath.FromSlash(settings.ProjectFile)): c.Project,
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return config
}

// Written says whether SensitiveWrite's file exists in workspace.
func Written(workspace string) bool {
	_, err := os.Stat(filepath.Join(workspace, filepath.FromSlash(SensitiveFile)))
	return err == nil
}

// Script writes SensitiveWrite to a file and returns its path.
func Script(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte(SensitiveWrite), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
