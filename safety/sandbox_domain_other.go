//go:build !linux

package safety

import (
	"os/exec"
	"runtime"
)

func domainSupported() error {
	return errDomain("a kill domain needs Linux (PR_SET_CHILD_SUBREAPER, PR_SET_PDEATHSIG); %s has neither", runtime.GOOS)
}

func setDeathSignal(*exec.Cmd) {}

func domainMissing() []string {
	return []string{"a kill domain: Linux-only; processes a command detaches can outlive it"}
}
