package checkpoint

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// The process that took an in-flight marker is named in the marker
// ("host/pid/start"), so that a process opening the checkpoint can tell a
// call that is still running elsewhere (another process of a fleet that
// shares the store) from one whose process died. Only a marker whose
// owner is known to be gone is settled from the disk; one of another
// host, or of a live process, is left to its owner.

// processOwner names this process.
func processOwner() string {
	host, _ := os.Hostname()
	pid := os.Getpid()
	return fmt.Sprintf("%s/%d/%s", host, pid, procStart(pid))
}

// ownerGone reports whether the process named by owner has ended: it ran
// on this host and no process with its pid and start time exists now.
func ownerGone(owner string) bool {
	parts := strings.Split(owner, "/")
	if len(parts) != 3 {
		return true // a marker without an owner: nobody can be running it
	}
	host, _ := os.Hostname()
	if parts[0] != host {
		return false
	}
	pid, err := strconv.Atoi(parts[1])
	if err != nil {
		return true
	}
	start := procStart(pid)
	return start == "" || start != parts[2]
}

// procStart returns the start time of process pid in clock ticks since
// boot (field 22 of /proc/PID/stat), which tells a reused pid from the
// original; "" when the process does not exist or /proc cannot say.
func procStart(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	s := string(b)
	// The command name (field 2) may hold spaces and parentheses; the
	// fields after it start after its last ')'.
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return ""
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return ""
	}
	return f[19]
}
