package agent

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent/event"
)

// TestGitBranchPerSession: the second run of a session continues on the
// branch the first created, its own uncommitted edit is not a dirty tree,
// and a user who switched away is brought back.
func TestGitBranchPerSession(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed: apt-get install -y git")
	}
	e := newEnv(t, `{"capabilities":{"tools":true}}
{"tool_calls":[{"name":"write_file","arguments":{"path":"notes.txt","content":"first\n"}}]}
{"content":"Wrote notes. [TASK_COMPLETE]"}
{"tool_calls":[{"name":"write_file","arguments":{"path":"notes.txt","content":"second\n"}}]}
{"content":"Updated notes. [TASK_COMPLETE]"}
{"content":"Nothing else. [TASK_COMPLETE]"}
`, map[string]string{"main.go": mainGo})
	gitInit(t, e.dir)
	cfg := e.config()
	cfg.GitBranch = &GitBranch{}
	cfg.Approver = &approver{answer: allowAll}
	x, err := New(cfg)
	require.NoError(t, err)
	current := func() string {
		out, err := exec.Command("git", "-C", e.dir, "branch", "--show-current").Output()
		require.NoError(t, err)
		return strings.TrimSpace(string(out))
	}

	first, err := x.Run(context.Background(), Input{Prompt: "Write notes"})
	require.NoError(t, err)
	require.NotEmpty(t, first.Branch)
	second, err := x.Run(context.Background(), Input{Prompt: "Update the notes"})
	require.NoError(t, err, "the session's own uncommitted edit is not a dirty tree")
	assert.Equal(t, first.Branch, second.Branch)
	assert.Equal(t, first.Branch, current())

	out, err := exec.Command("git", "-C", e.dir, "switch", "-q", "main").CombinedOutput()
	require.NoError(t, err, string(out))
	third, err := x.Run(context.Background(), Input{Prompt: "Anything else?"})
	require.NoError(t, err)
	assert.Equal(t, first.Branch, third.Branch)
	assert.Equal(t, first.Branch, current(), "brought back to the session branch")

	b := eventsOf[event.BranchCreated](e.rec)
	require.Len(t, b, 3)
	assert.Equal(t, []bool{false, true, true}, []bool{b[0].Continued, b[1].Continued, b[2].Continued})
	assert.Equal(t, "main", b[2].Base)
}
