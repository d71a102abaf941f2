//go:build !linux

package sandboxhelper

import (
	"errors"
	"runtime"
)

// Confine is Linux-only.
func Confine(Request) error {
	return errors.New("command confinement uses Linux Landlock; " + runtime.GOOS + " has no equivalent")
}

func execProgram(string, []string, []string) error {
	return errors.New("the sandbox helper is Linux-only")
}

func watchCgroups(string, string) int {
	return fail("tether cgroup watchdog: cgroups are Linux-only")
}

func runDomain(Request, []string, []string) int {
	return fail("tether kill domain: a kill domain needs Linux; " + runtime.GOOS + " has none")
}
