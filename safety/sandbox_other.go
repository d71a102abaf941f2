//go:build !linux

package safety

import (
	"fmt"
	"runtime"
)

func sandboxSupported(bool) error {
	return fmt.Errorf("%w: command confinement uses Linux Landlock; %s has no equivalent here", ErrSandboxUnavailable, runtime.GOOS)
}

func confineSelf(sandboxRequest) error { return sandboxSupported(false) }

func execProgram(path string, _, _ []string) error {
	return fmt.Errorf("%w: cannot exec %s", ErrSandboxUnavailable, path)
}

func sandboxMissing(bool) []string {
	return []string{"all confinement: Landlock is Linux-only"}
}
