//go:build unix

package terminal

import (
	"os"
	"os/exec"
	"syscall"
)

// newGroup makes cmd the leader of a new process group, so that one
// signal reaches it and every child it starts.
func newGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// groupAlive reports whether any process of group pgid is left.
func groupAlive(pgid int) bool { return syscall.Kill(-pgid, 0) == nil }

// terminateGroup asks the group to stop; killGroup makes it.
func terminateGroup(pgid int) { syscall.Kill(-pgid, syscall.SIGTERM) }
func killGroup(pgid int)      { syscall.Kill(-pgid, syscall.SIGKILL) }

// signalOf names the signal that ended ps, or "".
func signalOf(ps *os.ProcessState) string {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ws.Signal().String()
	}
	return ""
}
