package sandboxhelper

import (
	"errors"
	"os"
	"strconv"
	"syscall"
	"unsafe"
)

// The Landlock system calls (the same numbers on every architecture) and
// the constants of <linux/landlock.h> this package uses.
const (
	sysCreateRuleset = 444
	sysAddRule       = 445
	sysRestrictSelf  = 446

	createRulesetVersion = 1 << 0
	rulePathBeneath      = 1

	prSetNoNewPrivs     = 38
	prSetChildSubreaper = 36

	oPath = 0x200000 // O_PATH, the same on every architecture
)

// File-system access rights, in the kernel's bit order; the comment
// names the ABI that introduced the right when it is not 1.
const (
	fsExecute = 1 << iota
	fsWriteFile
	fsReadFile
	fsReadDir
	fsRemoveDir
	fsRemoveFile
	fsMakeChar
	fsMakeDir
	fsMakeReg
	fsMakeSock
	fsMakeFifo
	fsMakeBlock
	fsMakeSym
	fsRefer       // 2
	fsTruncate    // 3
	fsIoctlDev    // 5
	fsResolveUnix // 9

	fsRead  = fsExecute | fsReadFile | fsReadDir
	fsWrite = fsWriteFile | fsRemoveDir | fsRemoveFile | fsMakeChar | fsMakeDir | fsMakeReg |
		fsMakeSock | fsMakeFifo | fsMakeBlock | fsMakeSym | fsTruncate
	// fsFile are the rights a rule on a file (not a directory) may grant.
	fsFile = fsExecute | fsWriteFile | fsReadFile | fsTruncate | fsIoctlDev
)

// Network rights (TCP from ABI 4, UDP from 10) and scopes (ABI 6).
const (
	netBindTCP = 1 << iota
	netConnectTCP
	netBindUDP
	netConnectSendUDP

	scopeAbstractUnix = 1 << 0
	scopeSignal       = 1 << 1
)

// handled returns the rights a ruleset handles at ABI abi: everything
// that ABI can restrict (network rights only when asked to).
func handled(abi int, network bool) (fs, net, scoped uint64) {
	switch {
	case abi >= 9:
		fs = 1<<17 - 1
	case abi >= 5:
		fs = 1<<16 - 1
	case abi >= 3:
		fs = 1<<15 - 1
	case abi == 2:
		fs = 1<<14 - 1
	default:
		fs = 1<<13 - 1
	}
	if network {
		switch {
		case abi >= 10:
			net = netBindTCP | netConnectTCP | netBindUDP | netConnectSendUDP
		case abi >= 4:
			net = netBindTCP | netConnectTCP
		}
	}
	if abi >= 6 {
		scoped = scopeAbstractUnix | scopeSignal
	}
	return fs, net, scoped
}

// LandlockABI returns the kernel's Landlock ABI version, or an error
// (ENOSYS: not built in; EOPNOTSUPP: built in but disabled).
func LandlockABI() (int, error) {
	v, _, errno := syscall.RawSyscall(sysCreateRuleset, 0, 0, createRulesetVersion)
	if errno != 0 {
		return 0, errno
	}
	return int(v), nil
}

// rulesetAttr is struct landlock_ruleset_attr up to the scopes (ABI 6);
// older kernels accept it as long as what they do not know is zero.
type rulesetAttr struct {
	fs, net, scoped uint64
}

// pathBeneathAttr is struct landlock_path_beneath_attr, which the kernel
// declares packed: 12 bytes, the descriptor right after the rights.
type pathBeneathAttr struct {
	allowed uint64
	fd      int32
	_       int32
}

// devices commands commonly open for writing: harmless sinks and sources,
// and the controlling terminal.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty"}

// Confine restricts the calling thread, and every process it starts or
// execs afterwards, with the request's rules, for good: the caller must
// hold its goroutine on the thread (runtime.LockOSThread) and let the
// thread end with the goroutine. Landlock confines the thread that asks;
// the helper asks from package initialisation, which runs on the main
// thread with the goroutine locked to it, and execs from that same
// thread, so the command is confined whatever the runtime's other threads
// are.
//
// It handles everything the kernel's ABI can restrict. Only what a
// newer ABI would add is lost on an older kernel (safety's Missing says
// what), except that ABI 1 cannot let a command move a file between
// directories at all and the network needs ABI 4: both are refused
// unless the request says BestEffort.
func Confine(req Request) error {
	abi, err := LandlockABI()
	if err != nil || abi < 1 {
		return errors.New("this kernel cannot confine commands (Landlock unavailable): " + errText(err))
	}
	if !req.BestEffort {
		if abi < 2 {
			return errors.New("Landlock ABI 1 would forbid moving files between directories everywhere, the writable ones included (needs ABI 2, Linux 5.19)")
		}
		if req.DenyNetwork && abi < 4 {
			return errors.New("Landlock ABI " + strconv.Itoa(abi) + " cannot restrict the network (needs ABI 4, Linux 6.7)")
		}
	}
	fs, net, scoped := handled(abi, req.DenyNetwork)
	var write uint64 = fsRead | fsWrite | fsRefer | fsResolveUnix
	if abi < 2 {
		// Without the refer right no rule can allow a move between
		// directories; restricting writes would break every build.
		fs, write = 0, 0
	}
	attr := rulesetAttr{fs: fs, net: net, scoped: scoped}
	if attr == (rulesetAttr{}) {
		return nil
	}
	rfd, _, errno := syscall.RawSyscall(sysCreateRuleset, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		return errors.New("landlock_create_ruleset: " + errno.Error())
	}
	defer syscall.Close(int(rfd))
	add := func(paths []string, access uint64, mustExist bool) error {
		if access &= fs; access == 0 {
			return nil
		}
		for _, p := range paths {
			if err := addPath(int(rfd), p, access); err != nil {
				if !mustExist && errors.Is(err, syscall.ENOENT) {
					continue
				}
				return err
			}
		}
		return nil
	}
	readDirs := req.ReadDirs
	if len(req.ListDirs)+len(req.ReadDirs)+len(req.ReadFiles) == 0 {
		readDirs = []string{"/"}
	}
	for _, r := range []struct {
		paths     []string
		access    uint64
		mustExist bool
	}{
		// Entries listed before the command started may have gone
		// since: a missing one grants nothing and hides nothing.
		{req.ListDirs, fsReadDir, false},
		{readDirs, fsRead, false},
		{req.ReadFiles, fsRead & fsFile, false},
		// Unix sockets in the writable directories may be connected
		// to (a test's own server); a docker or tmux socket elsewhere
		// may not.
		{req.Writable, write, true},
		{devices, fsFile, false},
	} {
		if err := add(r.paths, r.access, r.mustExist); err != nil {
			return err
		}
	}
	if _, _, errno := syscall.RawSyscall6(syscall.SYS_PRCTL, prSetNoNewPrivs, 1, 0, 0, 0, 0); errno != 0 {
		return errors.New("prctl(PR_SET_NO_NEW_PRIVS): " + errno.Error())
	}
	if _, _, errno := syscall.RawSyscall(sysRestrictSelf, rfd, 0, 0); errno != 0 {
		return errors.New("landlock_restrict_self: " + errno.Error())
	}
	return nil
}

// addPath grants access below path (or to the file path).
func addPath(ruleset int, path string, access uint64) error {
	fd, err := syscall.Open(path, oPath|syscall.O_CLOEXEC, 0)
	if err != nil {
		return &os.PathError{Op: "granting access to", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err == nil && st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
		access &= fsFile
	}
	attr := pathBeneathAttr{allowed: access, fd: int32(fd)}
	if _, _, errno := syscall.RawSyscall6(sysAddRule, uintptr(ruleset), rulePathBeneath, uintptr(unsafe.Pointer(&attr)), 0, 0, 0); errno != 0 {
		return &os.PathError{Op: "landlock_add_rule for", Path: path, Err: errno}
	}
	return nil
}

// becomeSubreaper makes this process the child subreaper of what it
// starts (the setting survives exec): a descendant orphaned by a double
// fork or setsid is re-parented to it rather than to init, so it stays in
// the command's process tree, where it can be found and killed.
func becomeSubreaper() error {
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		return errors.New("becoming a child subreaper: " + errno.Error())
	}
	return nil
}

// execProgram replaces this process with path, as a child subreaper; a
// shell reaps such adopted children like its own.
func execProgram(path string, argv, env []string) error {
	if err := becomeSubreaper(); err != nil {
		return err
	}
	return syscall.Exec(path, argv, env)
}

func errText(err error) string {
	if err == nil {
		return "no error, ABI 0"
	}
	return err.Error()
}
