//go:build linux

package terminal

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/safety"
)

// TestNothingOutlivesItsCommand runs each known way for a process to
// leave its command — its own session, a double fork, nohup, disown, a
// cleared environment, a daemonising test runner — and checks that no
// such process is alive once Run returns, both when the command exits on
// its own (Leftover must then say so) and when it times out.
func TestNothingOutlivesItsCommand(t *testing.T) {
	quiet := ">/dev/null 2>&1 </dev/null"
	techniques := []struct {
		name, cmd string // cmd starts `sleep SECS` that should escape; %[1]s is SECS
		needs     string
		helper    bool // caught only by a helper process (kill domain) or the command's cgroup
	}{
		{name: "setsid", cmd: "setsid sleep %[1]s " + quiet + " &"},
		{name: "setsid fork", cmd: "setsid -f sleep %[1]s " + quiet},
		{name: "double fork", cmd: "( (sleep %[1]s " + quiet + " &) & )"},
		{name: "nohup background", cmd: "nohup sleep %[1]s " + quiet + " &"},
		{name: "disown", cmd: "sleep %[1]s " + quiet + " & disown"},
		{name: "holds the output pipe", cmd: "setsid sleep %[1]s &"},
		// env -i drops the marker: the process is caught by the parent
		// links recorded while it still had its parent.
		{name: "cleared environment", cmd: "env -i /bin/sh -c 'setsid sleep %[1]s " + quiet + " & sleep 0.3'"},
		{name: "marker removed", cmd: "env -u " + runMarker + " setsid sleep %[1]s " + quiet + " &"},
		{name: "empty environment, detached at once", cmd: "env -i /bin/sh -c 'setsid -f sleep %[1]s " + quiet + "'", helper: true},
		{name: "daemonising test runner", cmd: `python3 -c 'import os
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execvp("sleep", ["sleep", "%[1]s"])
    os._exit(0)
os.wait()' ` + quiet, needs: "python3"},
	}
	// plain: no kill domain; kill domain: the helper; confined domain: a
	// sandboxed kill domain, which in a cgroup starts with no helper.
	for _, mode := range []string{"plain", "kill domain", "confined domain"} {
		domain := mode != "plain"
		for i, tc := range techniques {
			for _, timeout := range []bool{false, true} {
				name := tc.name + "/exits"
				if timeout {
					name = tc.name + "/times out"
				}
				if domain {
					name = mode + "/" + name
				}
				t.Run(name, func(t *testing.T) {
					if tc.helper && !domain {
						// Without a helper only the command's cgroup holds it.
						if err := safety.CgroupAvailable(); err != nil {
							t.Skipf("without a helper this one needs a cgroup of the command's own: %v", err)
						}
					}
					if tc.needs != "" {
						if _, err := exec.LookPath(tc.needs); err != nil {
							t.Skipf("needs %s: apt-get install -y %s", tc.needs, tc.needs)
						}
					}
					secs := fmt.Sprintf("%d.%d", 4000+i, time.Now().UnixNano()%1e6)
					cmd := fmt.Sprintf(tc.cmd, secs)
					if timeout {
						cmd += "\nsleep 0.5; sleep 300"
					} else {
						cmd += "\nsleep 0.5" // time for the escape to complete
					}
					cfg := Config{}
					switch mode {
					case "kill domain":
						cfg.Domain = &safety.KillDomain{}
					case "confined domain":
						sb := &safety.Sandbox{Writable: []string{t.TempDir(), os.TempDir()}}
						if err := sb.Available(); err != nil {
							t.Skipf("no sandbox on this kernel: %v", err)
						}
						cfg.Domain = &safety.KillDomain{Sandbox: sb}
					}
					s := newShell(t, cfg)
					r, err := s.Run(context.Background(), Command{Command: cmd, Timeout: limit(timeout)})
					require.NoError(t, err)
					assert.Equal(t, timeout, r.TimedOut, r.Output)
					if !timeout {
						assert.True(t, r.Leftover, "Leftover must report the escaped process")
					}
					assert.Empty(t, living("sleep", secs), "a process outlived its command")
				})
			}
		}
	}
}

// limit is the command timeout of an escape case: short when the case is
// about the timeout, and far above the command's half second otherwise, so
// that a busy machine does not turn "finished" into "timed out".
func limit(timeout bool) time.Duration {
	if timeout {
		return 1500 * time.Millisecond
	}
	return 15 * time.Second
}

// TestNoLeftoverReported checks that a command leaving nothing behind is
// not reported as having done so.
func TestNoLeftoverReported(t *testing.T) {
	s := newShell(t, Config{})
	r := run(t, s, "sleep 0.1 & wait; echo ok")
	assert.False(t, r.Leftover)
	assert.Equal(t, "ok", r.Output)
}

// living lists the live (non-zombie) processes whose argv is exactly
// name arg.
func living(name, arg string) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, de := range ents {
		pid, err := strconv.Atoi(de.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + de.Name() + "/cmdline")
		if err != nil || string(b) != name+"\x00"+arg+"\x00" {
			continue
		}
		if st, _ := os.ReadFile("/proc/" + de.Name() + "/stat"); strings.Contains(string(st), ") Z ") {
			continue
		}
		out = append(out, pid)
	}
	return out
}

// TestBareRepositoryRefused: a directory the agent shaped like a bare
// repository, whose config names an fsmonitor program, does not make a
// later git command there run it.
func TestBareRepositoryRefused(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git: apt-get install -y git")
	}
	s := newShell(t, Config{})
	r := run(t, s, `mkdir -p x/objects x/refs && echo 'ref: refs/heads/main' > x/HEAD &&
printf '[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n\tfsmonitor = "touch pwned; false"\n' > x/config && cd x && git status; ls ..`)
	_, err := os.Stat(s.Root() + "/x/pwned")
	assert.True(t, os.IsNotExist(err), "git ran the fsmonitor of a bare repository the command made:\n%s", r.Output)
	_, err = os.Stat(s.Root() + "/pwned")
	assert.True(t, os.IsNotExist(err), r.Output)
}

// TestSandboxedShellKeepsOrphans: under the sandbox the shell is a child
// subreaper, so even a process that clears its environment and detaches
// at once (faster than the process tree is polled) stays the shell's
// child and is killed with the command.
func TestSandboxedShellKeepsOrphans(t *testing.T) {
	root := t.TempDir()
	sb := &safety.Sandbox{Writable: []string{root, os.TempDir()}}
	if err := sb.Available(); err != nil {
		t.Skipf("no sandbox here: %v", err)
	}
	s := newShell(t, Config{Root: root, Sandbox: sb.Wrap})
	secs := fmt.Sprintf("4100.%d", time.Now().UnixNano()%1e6)
	for _, timeout := range []bool{false, true} {
		cmd := "env -i /bin/sh -c '(setsid sleep " + secs + " >/dev/null 2>&1 </dev/null &)'\nsleep 0.5"
		if timeout {
			cmd += "; sleep 300"
		}
		r, err := s.Run(context.Background(), Command{Command: cmd, Timeout: limit(timeout)})
		require.NoError(t, err)
		assert.Equal(t, timeout, r.TimedOut, r.Output)
		assert.Empty(t, living("sleep", secs), "a detached process outlived its sandboxed command")
	}
}
