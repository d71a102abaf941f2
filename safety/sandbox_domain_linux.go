//go:build linux

package safety

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
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

// domainGrace is how long a command signalled with SIGTERM may take to
// exit before everything below the helper is killed; shorter than the
// terminal's two seconds between SIGTERM and SIGKILL.
const domainGrace = time.Second

// runDomain is the kill-domain helper: it starts the command as its child
// and returns the exit status to leave with once nothing is left below it.
// args is the helper's own argv (the command's from req.ArgvStart).
//
// The helper itself is never confined. Landlock confines the thread that
// asks, and a Go program has many: a helper confining itself would leave
// its threads in different domains, and a domain may only signal its own
// descendants, so its kill of the stopped shell would fail whenever the
// goroutine ran on another thread than the fork did. A confined command
// is instead started through a second helper that confines itself and
// execs the command, below this one, which stays outside the domain and
// may signal and read everything in it.
func runDomain(req sandboxRequest, args, env []string) int {
	path, argv := req.Path, args[req.ArgvStart:]
	if !req.Unconfined {
		inner := req
		inner.Domain, inner.Report = false, false
		b, err := json.Marshal(inner)
		if err != nil {
			return 126
		}
		exe, err := os.Executable()
		if err != nil {
			os.Stderr.WriteString("tether kill domain: cannot find the helper: " + err.Error() + "\n")
			return 126
		}
		path, argv = exe, args
		env = append(slices.Clip(env), sandboxEnv+"="+string(b))
	}
	var report *os.File
	if req.Report {
		syscall.CloseOnExec(3)
		report = os.NewFile(3, "report")
	}
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		os.Stderr.WriteString("tether kill domain: becoming a child subreaper: " + errno.Error() + "\n")
		return 126
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{Env: env, Files: []uintptr{0, 1, 2}})
	if err != nil {
		os.Stderr.WriteString("tether kill domain: cannot run " + path + ": " + err.Error() + "\n")
		return 126
	}
	var rep KillDomainReport
	done := make(chan syscall.WaitStatus, 1)
	go func() {
		for {
			var ws syscall.WaitStatus
			_, err := syscall.Wait4(pid, &ws, syscall.WUNTRACED, nil)
			if err == syscall.EINTR {
				continue
			}
			if err != nil {
				done <- syscall.WaitStatus(1 << 8)
				return
			}
			if ws.Stopped() {
				if report != nil {
					rep.Dir, rep.Environ = readStopped(pid)
				}
				syscall.Kill(pid, syscall.SIGKILL)
				continue
			}
			done <- ws
			return
		}
	}()
	var ws syscall.WaitStatus
	select {
	case ws = <-done:
	case <-sigs:
		// A timeout, a cancellation or the agent's death: the command's
		// group got the signal too (or gets it now); give it a moment.
		syscall.Kill(pid, syscall.SIGTERM)
		select {
		case ws = <-done:
		case <-time.After(domainGrace):
			syscall.Kill(pid, syscall.SIGKILL)
			ws = <-done
		}
	}
	rep.Leftover = sweepBelow()
	if report != nil {
		if b, err := json.Marshal(rep); err == nil {
			report.Write(b)
		}
		report.Close()
	}
	switch {
	case ws.Signaled():
		sig := ws.Signal()
		signal.Reset(sig)
		syscall.Kill(os.Getpid(), sig)
		return 128 + int(sig)
	case ws.Exited():
		return ws.ExitStatus()
	}
	return 1
}

// readStopped reads the stopped process's directory and environment.
func readStopped(pid int) (string, []byte) {
	p := "/proc/" + strconv.Itoa(pid)
	env, err := os.ReadFile(p + "/environ")
	if err != nil {
		return "", nil
	}
	dir, err := os.Readlink(p + "/cwd")
	if err != nil {
		return "", nil
	}
	return dir, env
}

// sweepBelow kills every process below this one and reaps them, until it
// has no children left, and says how many it killed. As the child
// subreaper, every orphan of the command is its child, so killing the
// tree level by level ends it all; and when it has no child at all (the
// usual case, checked first) nothing is below it and /proc is not read.
func sweepBelow() int {
	self := os.Getpid()
	deadline := time.Now().Add(2 * time.Second)
	killed := map[int]bool{}
	for {
		for {
			wpid, err := syscall.Wait4(-1, nil, syscall.WNOHANG, nil)
			if err == syscall.ECHILD {
				return len(killed)
			}
			if err != nil || wpid <= 0 {
				break
			}
		}
		for _, pid := range descendantsOf(self) {
			if syscall.Kill(pid, syscall.SIGKILL) == nil {
				killed[pid] = true
			}
		}
		if time.Now().After(deadline) {
			return len(killed)
		}
		time.Sleep(time.Millisecond)
	}
}

// descendantsOf lists the processes below pid, by the kernel's lists of
// each process's children (/proc/PID/task/TID/children), so only the
// subtree is read, not every process on the system.
func descendantsOf(pid int) []int {
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range childrenOf(p) {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// childrenOf reads the children of every thread of pid.
func childrenOf(pid int) []int {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile(dir + "/" + t.Name() + "/children")
		if err != nil {
			continue
		}
		for f := range strings.FieldsSeq(string(b)) {
			if c, err := strconv.Atoi(f); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}
