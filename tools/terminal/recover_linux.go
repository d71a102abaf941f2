//go:build linux

package terminal

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// A command's marker names its workspace and the agent process that ran
// it: runMarker=<workspace>.<agent pid>.<agent start time>.<random>. When
// the agent dies in the middle of a command, its kill domain ends what
// the command started; where there was none (or it was killed too), the
// next Shell made for the same workspace finds the processes by their
// marker, sees that the agent that ran them is gone, and ends them.

// markerPrefix is runMarker=<workspace>.<this agent>. for root.
func markerPrefix(root string) string {
	sum := sha256.Sum256([]byte(root))
	return runMarker + "=" + hex.EncodeToString(sum[:6]) + "." + selfID() + "."
}

// workspacePrefix is runMarker=<workspace>. for root.
func workspacePrefix(root string) string {
	sum := sha256.Sum256([]byte(root))
	return runMarker + "=" + hex.EncodeToString(sum[:6]) + "."
}

// selfID is this process's pid and start time.
func selfID() string {
	pid := os.Getpid()
	return strconv.Itoa(pid) + "." + strconv.FormatUint(startTime(pid), 10)
}

func startTime(pid int) uint64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	p, _ := parseStat(b)
	return p.start
}

// recoverLeftovers kills the processes of earlier commands in root whose
// agent is no longer running, and describes each ("pid 123 (sleep)").
func recoverLeftovers(root string) []string {
	prefix := workspacePrefix(root)
	procs := listProcs()
	killed := map[int]bool{}
	var out []string
	for pid, p := range procs {
		if p.zombie || pid == os.Getpid() {
			continue
		}
		owner, ok := markerOwner(pid, prefix)
		if !ok || ownerAlive(owner) {
			continue
		}
		if syscall.Kill(pid, syscall.SIGKILL) == nil {
			killed[pid] = true
			comm, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
			out = append(out, fmt.Sprintf("pid %d (%s)", pid, strings.TrimSpace(string(comm))))
		}
	}
	awaitDeath(killed)
	return out
}

// markerOwner returns "<pid>.<start>" of the agent that ran process pid,
// when pid carries a marker of this workspace.
func markerOwner(pid int, prefix string) (string, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return "", false
	}
	for kv := range strings.SplitSeq(string(b), "\x00") {
		if rest, ok := strings.CutPrefix(kv, prefix); ok {
			f := strings.SplitN(rest, ".", 3)
			if len(f) == 3 {
				return f[0] + "." + f[1], true
			}
		}
	}
	return "", false
}

func ownerAlive(owner string) bool {
	pidS, startS, _ := strings.Cut(owner, ".")
	pid, err := strconv.Atoi(pidS)
	if err != nil {
		return false
	}
	return strconv.FormatUint(startTime(pid), 10) == startS && startS != "0"
}
