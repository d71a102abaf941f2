//go:build linux

package terminal

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRestartEndsLeftovers: a process carrying the marker of this
// workspace from an agent that is gone (as after kill -9 of an agent
// running without a kill domain) is ended and reported by the next New;
// one from a live agent, or another workspace, is left alone.
func TestRestartEndsLeftovers(t *testing.T) {
	root := t.TempDir()
	secs := fmt.Sprintf("5300.%06d", time.Now().UnixNano()%1e6)
	start := func(marker string) *exec.Cmd {
		cmd := exec.Command("sleep", secs)
		cmd.Env = []string{marker}
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		require.NoError(t, cmd.Start())
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		return cmd
	}
	dead := start(workspacePrefix(root) + "999999999.12345.abc")     // its agent is gone
	live := start(markerPrefix(root) + "abc")                        // this process is its agent
	other := start(workspacePrefix(t.TempDir()) + "999999999.1.abc") // another workspace

	s := newShell(t, Config{Root: root})
	require.Len(t, s.Recovered(), 1)
	assert.Contains(t, s.Recovered()[0], fmt.Sprintf("pid %d (sleep)", dead.Process.Pid))
	for _, c := range []*exec.Cmd{live, other} {
		assert.NoError(t, c.Process.Signal(syscall.Signal(0)), "a process that is not a leftover was killed")
	}
	st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", dead.Process.Pid))
	if err == nil {
		p, _ := parseStat(st)
		assert.True(t, p.zombie, "the leftover is still running")
	}
}
