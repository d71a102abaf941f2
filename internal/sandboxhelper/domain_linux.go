package sandboxhelper

import (
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"syscall"
	"time"
)

// domainGrace is how long a command signalled with SIGTERM may take to
// exit before everything below the helper is killed; shorter than the
// terminal's two seconds between SIGTERM and SIGKILL.
const domainGrace = time.Second

// runDomain is the kill-domain helper: it starts the command as its child
// and returns the exit status to leave with once nothing is left below it.
// args is the helper's own argv (the command's from req.ArgvStart).
//
// The helper itself stays unconfined, so it may signal and read
// everything in the command's domain. A confined command is started from
// a thread set aside for it, which confines itself (Landlock confines the
// thread that asks, and what it starts), forks the command and ends.
func runDomain(req Request, args, env []string) int {
	path, argv := req.Path, args[req.ArgvStart:]
	var report *os.File
	if req.Report {
		syscall.CloseOnExec(3)
		report = os.NewFile(3, "report")
	}
	if err := becomeSubreaper(); err != nil {
		return fail("tether kill domain: " + err.Error())
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	attr := &syscall.ProcAttr{Env: env, Files: []uintptr{0, 1, 2}}
	var pid int
	var err error
	if req.Unconfined {
		pid, err = syscall.ForkExec(path, argv, attr)
	} else {
		pid, err = forkConfined(req, path, argv, attr)
	}
	if err != nil {
		return fail("tether kill domain: cannot run " + path + ": " + err.Error())
	}
	var rep Report
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
		report.Write(rep.Encode())
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
		// "12 345 " : decimal numbers, each followed by a space.
		n, digits := 0, false
		for _, c := range b {
			if '0' <= c && c <= '9' {
				n, digits = n*10+int(c-'0'), true
				continue
			}
			if digits {
				out = append(out, n)
			}
			n, digits = 0, false
		}
		if digits {
			out = append(out, n)
		}
	}
	return out
}

// forkConfined starts path from a new thread that confines itself with
// req first; the goroutine never unlocks the thread, so the runtime ends
// the thread with it and no other goroutine ever runs confined.
func forkConfined(req Request, path string, argv []string, attr *syscall.ProcAttr) (int, error) {
	type started struct {
		pid int
		err error
	}
	ch := make(chan started, 1)
	go func() {
		runtime.LockOSThread()
		if err := Confine(req); err != nil {
			ch <- started{0, err}
			return
		}
		pid, err := syscall.ForkExec(path, argv, attr)
		ch <- started{pid, err}
	}()
	s := <-ch
	return s.pid, s.err
}
