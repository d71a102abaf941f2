// Package procid names a process so that another process can tell, later,
// whether it still runs: its pid and its start time, which tells a reused
// pid from the original.
package procid

import (
	"fmt"
	"os"
	"strings"
	"sync"
)

// Start returns the start time of process pid in clock ticks since boot
// (field 22 of /proc/PID/stat); "" when the process does not exist or
// /proc cannot say.
func Start(pid int) string {
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

// Self is this process as "PID.START" (START is 0 where /proc cannot say).
var Self = sync.OnceValue(func() string {
	pid := os.Getpid()
	start := Start(pid)
	if start == "" {
		start = "0"
	}
	return fmt.Sprintf("%d.%s", pid, start)
})

// Gone reports whether the process named pid and start (as in Self) has
// ended: no process with that pid and start time exists on this machine.
// Without /proc (start "0") it cannot know and says false.
func Gone(pid int, start string) bool {
	if start == "0" || start == "" {
		return false
	}
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		return false
	}
	return Start(pid) != start
}
