//go:build !unix

package terminal

import (
	"os"
	"os/exec"
)

// Without process groups the command itself is killed; its children may
// survive. Tether's terminal is built for Unix; this keeps the package
// compiling elsewhere.
func newGroup(*exec.Cmd) {}

func groupAlive(int) bool { return false }

func terminateGroup(pid int) { killGroup(pid) }

func killGroup(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
	}
}

func signalOf(*os.ProcessState) string { return "" }
