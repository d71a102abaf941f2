//go:build linux

package terminal

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// runMarker is the environment variable that labels every process of one
// command: children inherit it across fork, exec, setsid and nohup, so a
// process that left the command's process group and lost its parent is
// still found by reading /proc/PID/environ.
const runMarker = "TETHER_TERMINAL_RUN"

// pollEvery is how often the process tree of a running command is
// recorded. A process that clears its environment (env -i) and detaches
// from its parent within one interval is not seen; everything else is.
const pollEvery = 50 * time.Millisecond

// escapees tracks every process one command starts, by three independent
// marks, so that none of the usual ways out (setsid, a double fork, nohup,
// disown, a test runner that daemonises) survives the command:
//
//   - the process group the command leads (kill(-pgid) reaches it);
//   - the environment marker, inherited by everything it starts;
//   - the parent links seen while it ran: a descendant recorded once is
//     killed even after it was reparented and cleared its environment.
//
// Under the sandbox (Config.Sandbox with safety.Sandbox.Wrap, also with
// BestEffort on a kernel that cannot confine) the shell itself is a child
// subreaper, so an orphan stays the shell's child and
// the recorded tree is complete even for a process that clears its
// environment and detaches faster than pollEvery. The host is never made
// a subreaper: that setting is process-wide, and the orphans of every
// other child the host runs would become zombies os/exec cannot reap.
// Without the sandbox, a process that both runs `env -i` and detaches
// within one poll interval can escape this tracking; the command's cgroup
// (Config.NoCgroup) holds it where one is available. A PID namespace would too, but it changes the
// command's view of process ids: pids read from the host's /proc (pkill,
// kill $(lsof -t -i :3000)) would name other processes inside it.
type escapees struct {
	token     string // runMarker=value, as it appears in environ
	root      int    // the shell's pid, also its process group
	rootStart uint64 // the shell's start time: its pid may be reused once reaped

	mu    sync.Mutex
	seen  map[int]uint64 // pid → start time, to tell a reused pid apart
	found int            // leftovers killed so far, the shell excluded

	// also, when set, ends what else holds the command (its cgroup) as
	// soon as the shell has exited, and says how many it ended.
	also func() int

	stop chan struct{}
	done chan struct{}
}

// newEscapees makes the marker for one command, after prefix
// (markerPrefix); env gets the variable.
func newEscapees(prefix string) (*escapees, string) {
	var b [12]byte
	rand.Read(b[:])
	kv := prefix + hex.EncodeToString(b[:])
	return &escapees{token: kv, seen: map[int]uint64{}}, kv
}

// watch starts recording the descendants of the started shell. Once the
// shell has exited, whatever it left is killed at once: a leftover that
// holds the output pipe would otherwise keep Wait waiting.
func (e *escapees) watch(pid int) {
	e.root = pid
	if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
		if p, ok := parseStat(b); ok {
			e.rootStart = p.start
		}
	}
	e.stop, e.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(e.done)
		t := time.NewTicker(pollEvery)
		defer t.Stop()
		for {
			if !e.record() {
				e.found += e.sweep()
				if e.also != nil {
					e.found += e.also()
				}
				return
			}
			select {
			case <-e.stop:
				return
			case <-t.C:
			}
		}
	}()
}

// snapshot records the shell's descendants now, while it is stopped in its
// report and its children are still its own.
func (e *escapees) snapshot() { e.record() }

// record adds the current descendants of the shell to seen and reports
// whether the shell is still running.
func (e *escapees) record() bool {
	procs := listProcs()
	e.mu.Lock()
	defer e.mu.Unlock()
	for pid, p := range descendants(procs, e.roots(procs)) {
		e.seen[pid] = p.start
	}
	p, ok := procs[e.root]
	return ok && !p.zombie && p.start == e.rootStart
}

// roots returns the processes known to belong to the command: the shell,
// its process group (whose id the kernel does not reuse while a member
// lives) and the pids recorded earlier, each only while its start time
// shows it is the same process. Callers hold mu.
func (e *escapees) roots(procs map[int]procInfo) []int {
	var out []int
	for pid, p := range procs {
		if p.zombie {
			continue
		}
		if pid == e.root && p.start == e.rootStart || p.pgrp == e.root {
			out = append(out, pid)
		} else if st, ok := e.seen[pid]; ok && st == p.start {
			out = append(out, pid)
		}
	}
	return out
}

// kill ends every process left of the command and reports how many it
// found, the shell itself excluded.
func (e *escapees) kill() int {
	if e.stop != nil {
		close(e.stop)
		<-e.done
		e.stop = nil
	}
	e.found += e.sweep()
	return e.found
}

// sweep kills what is left of the command. Processes are stopped before
// they are killed, so that one forking in a loop cannot outrun it.
func (e *escapees) sweep() int {
	stopped := map[int]bool{}
	for round := 0; round < 50; round++ {
		procs := listProcs()
		e.mu.Lock()
		roots := e.roots(procs)
		e.mu.Unlock()
		for pid, p := range procs {
			if !p.zombie && pid != os.Getpid() && hasMarker(pid, e.token) {
				roots = append(roots, pid)
			}
		}
		fresh := 0
		for pid := range descendants(procs, roots) {
			if !stopped[pid] {
				stopped[pid] = true
				syscall.Kill(pid, syscall.SIGSTOP)
				fresh++
			}
		}
		if fresh == 0 {
			break
		}
	}
	found := 0
	for pid := range stopped {
		syscall.Kill(pid, syscall.SIGKILL)
		if pid != e.root {
			found++
		}
	}
	awaitDeath(stopped)
	return found
}

// awaitDeath waits, up to killGrace, until every process of pids is dead
// (gone or a zombie): SIGKILL is delivered asynchronously, and a command
// is not reported done while what it left can still run.
func awaitDeath(pids map[int]bool) {
	deadline := time.Now().Add(killGrace)
	for pause := 100 * time.Microsecond; time.Now().Before(deadline); pause = min(2*pause, 10*time.Millisecond) {
		alive := false
		for pid := range pids {
			b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
			if err != nil {
				delete(pids, pid)
				continue
			}
			if p, ok := parseStat(b); !ok || p.zombie {
				delete(pids, pid)
				continue
			}
			alive = true
		}
		if !alive {
			return
		}
		time.Sleep(pause)
	}
}

// procInfo is what /proc/PID/stat says about one process.
type procInfo struct {
	ppid, pgrp int
	start      uint64
	zombie     bool
}

// listProcs reads every process's parent, group and start time.
func listProcs() map[int]procInfo {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	out := make(map[int]procInfo, len(ents))
	for _, de := range ents {
		pid, err := strconv.Atoi(de.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + de.Name() + "/stat")
		if err != nil {
			continue
		}
		if p, ok := parseStat(b); ok {
			out[pid] = p
		}
	}
	return out
}

// parseStat reads fields 3 (state), 4 (ppid), 5 (pgrp) and 22
// (starttime) of /proc/PID/stat; the command name before them is in
// parentheses and may itself hold spaces and parentheses.
func parseStat(b []byte) (procInfo, bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procInfo{}, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return procInfo{}, false
	}
	ppid, err1 := strconv.Atoi(f[1])
	pgrp, err2 := strconv.Atoi(f[2])
	start, err3 := strconv.ParseUint(f[19], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return procInfo{}, false
	}
	return procInfo{ppid: ppid, pgrp: pgrp, start: start, zombie: f[0] == "Z" || f[0] == "X"}, true
}

// descendants returns roots and everything below them by parent links,
// zombies left out (they are already dead).
func descendants(procs map[int]procInfo, roots []int) map[int]procInfo {
	children := make(map[int][]int, len(procs))
	for pid, p := range procs {
		children[p.ppid] = append(children[p.ppid], pid)
	}
	out := map[int]procInfo{}
	queue := append([]int(nil), roots...)
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		p, ok := procs[pid]
		if _, dup := out[pid]; dup || !ok || p.zombie {
			continue
		}
		out[pid] = p
		queue = append(queue, children[pid]...)
	}
	return out
}

// hasMarker reports whether process pid carries the command's marker.
// Processes of other users cannot be read and are not ours.
func hasMarker(pid int, token string) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	for kv := range bytes.SplitSeq(b, []byte{0}) {
		if string(kv) == token {
			return true
		}
	}
	return false
}
