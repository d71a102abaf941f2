package checkpoint

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/tetherdev/tether/internal/procid"
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

// procStart returns the start time of process pid (procid.Start).
func procStart(pid int) string { return procid.Start(pid) }
