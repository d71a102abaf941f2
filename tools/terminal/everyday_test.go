package terminal

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEverydayStillWorks: cd, a harmless export, sourcing a virtualenv's
// activate script in the command that uses it, and git in the workspace's
// own repository keep working under the judged carry-over and the
// re-imposed guards; what is not carried is said.
func TestEverydayStillWorks(t *testing.T) {
	s := newShell(t, Config{})
	activate := "export VIRTUAL_ENV=\"$PWD/.venv\"\nexport PATH=\"$VIRTUAL_ENV/bin:$PATH\"\nPS1=\"(venv) $PS1\"\n"
	require.NoError(t, os.MkdirAll(filepath.Join(s.Root(), ".venv/bin"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(s.Root(), ".venv/bin/activate"), []byte(activate), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(s.Root(), ".venv/bin/hello"), []byte("#!/bin/sh\necho hello from venv\n"), 0o755))

	r := run(t, s, "source .venv/bin/activate && hello && export CI=1")
	assert.Equal(t, "hello from venv", r.Output)
	var names []string
	for _, d := range r.Dropped {
		names = append(names, d.Name)
	}
	assert.Equal(t, []string{"PATH", "VIRTUAL_ENV"}, names, "PATH is the host's for every command; VIRTUAL_ENV is not known to be harmless")
	assert.Contains(t, s.toolResult(r).Text, "not carried to the next command")
	assert.Equal(t, "1", run(t, s, "echo $CI").Output)

	require.NoError(t, os.MkdirAll(filepath.Join(s.Root(), "pkg"), 0o755))
	run(t, s, "cd pkg")
	assert.Equal(t, filepath.Join(s.Root(), "pkg"), s.Cwd())

	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git: apt-get install -y git")
	}
	r = run(t, s, "git init -q .. && git status --short --untracked-files=no; echo rc=$?")
	assert.True(t, strings.HasSuffix(r.Output, "rc=0"), r.Output)
}
