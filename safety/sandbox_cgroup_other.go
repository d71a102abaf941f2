//go:build !linux

package safety

import (
	"os/exec"
	"runtime"
)

// CommandCgroup is a cgroup v2 of one command's own; Linux only.
type CommandCgroup struct{}

// CgroupAvailable reports that there are no cgroups off Linux.
func CgroupAvailable() error {
	return errDomain("cgroups are Linux-only; %s has none", runtime.GOOS)
}

// NewCommandCgroup fails off Linux.
func NewCommandCgroup() (*CommandCgroup, error) { return nil, CgroupAvailable() }

// Dir is empty off Linux.
func (c *CommandCgroup) Dir() string { return "" }

// Place does nothing off Linux.
func (c *CommandCgroup) Place(*exec.Cmd) {}

// Kill does nothing off Linux.
func (c *CommandCgroup) Kill() int { return 0 }

// EndStaleCgroups does nothing off Linux.
func EndStaleCgroups() int { return 0 }
