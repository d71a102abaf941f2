//go:build unix

package diag

import (
	"os/exec"
	"syscall"
)

// inGroup runs cmd in its own process group and makes cancellation kill
// the whole group (a compiler's child processes included).
func inGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
