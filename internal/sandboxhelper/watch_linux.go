package sandboxhelper

import (
	"os"
	"os/signal"
	"syscall"
	"time"
)

// watchCgroups is the watchdog of an agent's command cgroups: it waits
// until descriptor 3, a pipe whose writing end only the agent holds,
// reads end of file, which happens when the agent exits in any way,
// SIGKILL included; then it kills every process in the cgroups below dir
// named with prefix and removes them. Signals from the agent's terminal
// (SIGINT, SIGHUP) are ignored: the watchdog ends with the agent, not
// before.
func watchCgroups(dir, prefix string) int {
	if dir == "" || prefix == "" {
		return fail("tether cgroup watchdog: no cgroup directory or prefix")
	}
	signal.Ignore(syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT)
	var b [64]byte
	for {
		n, err := syscall.Read(3, b[:])
		if err == syscall.EINTR {
			continue
		}
		if n <= 0 {
			break
		}
	}
	endCgroups(dir, prefix)
	return 0
}

// endCgroups kills what is in each cgroup below dir whose name starts
// with prefix, and removes the cgroups (waiting up to five seconds for
// the kills to land).
func endCgroups(dir, prefix string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	var left []string
	for _, e := range entries {
		if !e.IsDir() || len(e.Name()) < len(prefix) || e.Name()[:len(prefix)] != prefix {
			continue
		}
		p := dir + "/" + e.Name()
		os.WriteFile(p+"/cgroup.kill", []byte("1"), 0)
		left = append(left, p)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(left) > 0 && time.Now().Before(deadline) {
		var busy []string
		for _, p := range left {
			if err := syscall.Rmdir(p); err == syscall.EBUSY {
				os.WriteFile(p+"/cgroup.kill", []byte("1"), 0)
				busy = append(busy, p)
			}
		}
		left = busy
		if len(left) > 0 {
			time.Sleep(5 * time.Millisecond)
		}
	}
}
