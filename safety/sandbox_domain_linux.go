//go:build linux

package safety

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

func domainSupported() error { return nil }

// setDeathSignal asks the kernel to send the helper SIGTERM when the
// thread that started it dies. Go starts processes from ordinary
// goroutines, whose threads live as long as the process, so in practice
// that is the agent's death.
func setDeathSignal(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGTERM
}

// domainMissing says which guard holds a command that kills its own
// helper: a CommandCgroup where this process may make one, else nothing.
func domainMissing() []string {
	if err := CgroupAvailable(); err != nil {
		return []string{"a cgroup v2 kill domain (" + err.Error() + "): the helper's subreaper is the guard, and a command that kills its own helper can leave processes running"}
	}
	return nil
}

// ownCgroup finds this process's cgroup v2 directory.
func ownCgroup() (string, error) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	var rel string
	for line := range strings.SplitSeq(string(b), "\n") {
		if r, ok := strings.CutPrefix(line, "0::"); ok {
			rel = r
		}
	}
	if rel == "" {
		return "", errDomain("no cgroup v2 hierarchy in /proc/self/cgroup")
	}
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		for i, fl := range fields {
			if fl == "-" && i+1 < len(fields) && fields[i+1] == "cgroup2" && len(fields) > 4 {
				return filepath.Join(fields[4], rel), nil
			}
		}
	}
	return "", errDomain("cgroup2 is not mounted")
}
