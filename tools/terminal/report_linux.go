//go:build linux

package terminal

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"github.com/tetherdev/tether/safety"
)

// The shell's state report. When the script ends, the EXIT trap execs a
// program that stops itself, in place of the shell and with the shell's
// pid: the stopped process's /proc/PID/environ is then exactly what the
// shell exported, and /proc/PID/cwd where it was. The terminal, the
// shell's parent, sees the stop, reads both from the kernel and ends the
// process. No descriptor is shared with the script: the only way to shape
// the report is to be the shell, exporting and cd-ing, which is what the
// report describes anyway, and every variable in it is judged before it
// is carried (envLayers.diff).

// Names the trap puts in the report image's environment.
const (
	reportRC   = "__tether_rc"    // the script's exit status
	reportMark = "__tether_state" // says the stop is the report
)

// reportTrap is the EXIT trap, in front of every script. stopper is the
// shell command that execs a self-stopping program.
func reportTrap(stopper string) string {
	return `trap '` + reportRC + `=$?; trap - EXIT; ` + reportRC + `=$` + reportRC + ` ` + reportMark + `=1 exec ` + stopper + `' EXIT` + "\n"
}

// stopperFor returns the trap's stopper: the kill program signalling its
// own pid, or else the shell doing the same with its builtin.
func stopperFor(killPath, shell string) string {
	if killPath != "" {
		return shellQuote(killPath) + ` -STOP $$`
	}
	return shellQuote(shell) + ` -c 'kill -STOP $$'`
}

// shellState is what a report says.
type shellState struct {
	ok  bool     // the shell stopped in its report
	dir string   // its working directory
	env []string // its exported variables
	rc  int      // the script's exit status

	leftover int // processes a kill-domain helper found below it and killed
}

// awaitReport waits until process pid (a child of this process) either
// exits or stops. A stop in the report image is read and the process
// killed; any other stop (the script sent itself SIGSTOP) kills it too,
// since no one would ever continue it. Before the kill, stopped is called:
// the shell's children are still its children then. It never reaps:
// exec.Cmd.Wait does.
func awaitReport(pid int, stopped func()) shellState {
	var info [128]byte // siginfo_t
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, 1 /* P_PID */, uintptr(pid),
			uintptr(unsafe.Pointer(&info[0])), syscall.WSTOPPED|syscall.WEXITED|0x01000000 /* WNOWAIT */, 0, 0)
		if errno == syscall.EINTR {
			continue
		}
		if errno != 0 {
			return shellState{} // reaped already: it exited
		}
		break
	}
	// si_code at offset 8: CLD_STOPPED is 5.
	if code := int32(info[8]) | int32(info[9])<<8 | int32(info[10])<<16 | int32(info[11])<<24; code != 5 {
		return shellState{}
	}
	defer syscall.Kill(pid, syscall.SIGKILL)
	stopped()
	st, err := readReport(pid)
	if err != nil {
		return shellState{}
	}
	return st
}

// readReport reads the report image of stopped process pid.
func readReport(pid int) (shellState, error) {
	p := "/proc/" + strconv.Itoa(pid)
	raw, err := os.ReadFile(p + "/environ")
	if err != nil {
		return shellState{}, err
	}
	dir, err := os.Readlink(p + "/cwd")
	if err != nil {
		return shellState{}, err
	}
	return parseReport(raw, dir)
}

// readDomainReport reads what a kill-domain helper wrote on the report
// descriptor (safety.KillDomainReport) once it exits; nothing means the
// shell never stopped in its report.
func readDomainReport(r io.Reader) shellState {
	b, err := io.ReadAll(io.LimitReader(r, 3*maxStateBytes))
	if err != nil || len(b) == 0 {
		return shellState{}
	}
	var rep safety.KillDomainReport
	if err := rep.UnmarshalText(b); err != nil {
		return shellState{}
	}
	st, err := parseReport(rep.Environ, rep.Dir)
	if err != nil {
		st = shellState{}
	}
	st.leftover = rep.Leftover
	return st
}

// parseReport reads a report image's environment (NUL-separated) and
// directory; the image must carry the trap's mark and status.
func parseReport(raw []byte, dir string) (shellState, error) {
	if len(raw) > maxStateBytes {
		return shellState{}, errors.New("report too large")
	}
	st := shellState{rc: -1, dir: dir}
	marked := false
	for kv := range bytes.SplitSeq(raw, []byte{0}) {
		s := string(kv)
		switch {
		case s == reportMark+"=1":
			marked = true
		case strings.HasPrefix(s, reportRC+"="):
			if rc, err := strconv.Atoi(strings.TrimPrefix(s, reportRC+"=")); err == nil {
				st.rc = rc
			}
		case s != "":
			st.env = append(st.env, s)
		}
	}
	if !marked || st.rc < 0 || dir == "" {
		return shellState{}, errors.New("not a report")
	}
	st.ok = true
	return st, nil
}

// tieToAgent makes the kernel kill the shell when the agent dies. What
// the shell started survives that unless a kill domain (Config.Contain)
// holds it; New's recovery finds it on the next start.
func tieToAgent(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
