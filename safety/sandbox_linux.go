//go:build linux

package safety

import (
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"syscall"

	"github.com/tetherdev/tether/internal/sandboxhelper"
)

// Landlock ABI versions that introduced what the sandbox relies on.
const (
	abiFilesystem = 2 // path-based write restrictions that allow moving files
	abiNetwork    = 4 // TCP bind and connect
)

// landlockABI reports the kernel's Landlock ABI version (0 when absent).
func landlockABI() (int, error) { return sandboxhelper.LandlockABI() }

// sandboxSupported probes the kernel without restricting anything.
func sandboxSupported(network bool) error {
	abi, err := landlockABI()
	if err == nil && abi < abiFilesystem {
		return fmt.Errorf("%w: Landlock ABI %d (Linux 5.13 to 5.18) would forbid moving files between directories everywhere, the writable ones included (needs ABI %d, Linux 5.19 or later)", ErrSandboxUnavailable, abi, abiFilesystem)
	}
	if err != nil || abi < abiFilesystem {
		if errors.Is(err, syscall.EOPNOTSUPP) {
			return fmt.Errorf("%w: Landlock is built into this kernel but disabled; add \"landlock\" to the lsm= boot parameter", ErrSandboxUnavailable)
		}
		return fmt.Errorf("%w: this Linux kernel does not support Landlock (needs 5.13 or later with CONFIG_SECURITY_LANDLOCK): %v", ErrSandboxUnavailable, err)
	}
	if network && abi < abiNetwork {
		return fmt.Errorf("%w: Landlock ABI %d cannot restrict the network (needs ABI %d, Linux 6.7 or later)", ErrSandboxUnavailable, abi, abiNetwork)
	}
	return nil
}

// sandboxMissing lists what the kernel's Landlock ABI cannot enforce of
// the protections Sandbox asks for.
func sandboxMissing(network bool) []string {
	abi, err := landlockABI()
	if err != nil || abi < abiFilesystem {
		return []string{"all confinement: Landlock is unavailable"}
	}
	return missingAt(abi, network)
}

// startConfined starts cmd from a thread that confines itself with req
// first and ends after the start (the goroutine never unlocks it, so the
// runtime ends the thread with it).
func startConfined(cmd *exec.Cmd, req sandboxhelper.Request) error {
	if cmd.SysProcAttr != nil && cmd.SysProcAttr.Pdeathsig != 0 {
		return errors.New("safety: Sandbox.Start: the command sets a parent-death signal, which would kill it when the starting thread ends")
	}
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if err := sandboxhelper.Confine(req); err != nil {
			errc <- fmt.Errorf("%w: %v", ErrSandboxUnavailable, err)
			return
		}
		errc <- cmd.Start()
	}()
	return <-errc
}
