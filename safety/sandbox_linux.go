//go:build linux

package safety

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// Landlock ABI versions that introduced what the sandbox relies on.
const (
	abiFilesystem = 1 // path-based write restrictions
	abiNetwork    = 4 // TCP bind and connect
)

// landlockABI reports the kernel's Landlock ABI version (0 when absent).
func landlockABI() (int, error) { return llsys.LandlockGetABIVersion() }

// sandboxSupported probes the kernel without restricting anything.
func sandboxSupported(network bool) error {
	abi, err := landlockABI()
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

// devices commands commonly open for writing: harmless sinks and sources,
// and the controlling terminal.
var sandboxDevices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty"}

// confineSelf applies the request's rules to this process and everything
// it will start. It uses the newest ABI go-landlock knows, degrading to
// what the kernel offers only where that loses nothing that was asked for
// (or when the request says BestEffort).
func confineSelf(req sandboxRequest) error {
	if err := sandboxSupported(req.DenyNetwork && !req.BestEffort); err != nil {
		return err
	}
	fsRules := append(readRules(req.Unreadable),
		// Unix sockets in the writable directories may be connected to
		// (a test's own server); a docker or tmux socket elsewhere may not.
		landlock.RWDirs(req.Writable...).WithRefer().WithResolveUnix(),
		landlock.RWFiles(sandboxDevices...).WithIoctlDev().IgnoreIfMissing(),
	)
	cfg := landlock.V11.BestEffort()
	if err := cfg.RestrictPaths(fsRules...); err != nil {
		return fmt.Errorf("restricting file access: %w", err)
	}
	if err := cfg.RestrictScoped(); err != nil {
		return fmt.Errorf("restricting signals and abstract sockets: %w", err)
	}
	if req.DenyNetwork {
		if err := cfg.RestrictNet(); err != nil {
			return fmt.Errorf("restricting network: %w", err)
		}
	}
	return nil
}

// prSetChildSubreaper is prctl's PR_SET_CHILD_SUBREAPER.
const prSetChildSubreaper = 36

// execProgram replaces this process with path. The program first becomes
// a child subreaper (the setting survives exec): a descendant orphaned by
// a double fork or setsid is re-parented to it rather than to init, so it
// stays in the command's process tree, where the terminal finds and kills
// it. A shell reaps such adopted children like its own.
func execProgram(path string, argv, env []string) error {
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		return fmt.Errorf("becoming a child subreaper: %w", errno)
	}
	return syscall.Exec(path, argv, env)
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
