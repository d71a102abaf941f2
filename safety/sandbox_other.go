//go:build !linux

package safety

import (
	"fmt"
	"os/exec"
	"runtime"

	"github.com/tetherdev/tether/internal/sandboxhelper"
)

func sandboxSupported(bool) error {
	return fmt.Errorf("%w: command confinement uses Linux Landlock; %s has no equivalent here", ErrSandboxUnavailable, runtime.GOOS)
}

func sandboxMissing(bool) []string {
	return []string{"all confinement: Landlock is Linux-only"}
}

func startConfined(*exec.Cmd, sandboxhelper.Request) error { return sandboxSupported(false) }
