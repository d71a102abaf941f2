//go:build linux

package safety

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tetherdev/tether/internal/sandboxhelper"
)

// A CommandCgroup is a cgroup v2 of one command's own: every process the
// command starts is born in it and stays in it whatever it does to its
// parent, session, environment or helper, and Kill ends them all with one
// write (cgroup.kill) by the process that made it, which the command
// never controls. It is the strongest kill domain Linux offers to an
// unprivileged program, and needs a cgroup v2 subtree this process may
// write to: its own cgroup delegated to its user (systemd's Delegate=yes,
// a user session's service or a container given its own cgroup
// namespace), or root on a system with cgroup2 mounted.
//
// Guards, strongest first, as the terminal applies them: a CommandCgroup
// where one is available (CgroupAvailable); the KillDomain helper, which
// is the command's child subreaper and so holds everything that stays in
// its process tree; the terminal's own process-group, marker and /proc
// tracking. Each covers what the one before it may miss: a process with
// write access to another cgroup's cgroup.procs (root, or the same user
// inside a delegated subtree) can move itself out of its command's
// cgroup, and is then still below the helper. A sandboxed command cannot:
// Landlock leaves /sys/fs/cgroup read-only to it.
type CommandCgroup struct {
	dir string
	fd  *os.File

	once   sync.Once
	killed int
}

// cgroupPrefix names the cgroups this package makes:
// tether-<pid of the process that made it>-<random>.
const cgroupPrefix = "tether-"

// cgroupParent is this process's own cgroup v2 directory, where command
// cgroups are made, once it is known to accept them.
var cgroupParent = sync.OnceValues(probeCgroups)

// CgroupAvailable reports whether NewCommandCgroup can work here. When
// the system offers no writable cgroup v2 (not mounted, not delegated to
// this user, no cgroup.kill before Linux 5.14) the error wraps
// ErrSandboxUnavailable and says which; any other error is an unexpected
// failure of a system that looked able to.
func CgroupAvailable() error {
	_, err := cgroupParent()
	return err
}

func probeCgroups() (string, error) {
	dir, err := ownCgroup()
	if err != nil {
		if !errors.Is(err, ErrSandboxUnavailable) {
			err = errDomain("reading this process's cgroup: %v", err)
		}
		return "", err
	}
	if err := syscall.Access(dir, 2 /* W_OK */); err != nil {
		return "", errDomain("this process's cgroup %s is not writable (not delegated to this user)", dir)
	}
	probe := filepath.Join(dir, cgroupPrefix+strconv.Itoa(os.Getpid())+"-probe")
	if err := os.Mkdir(probe, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) {
			return "", errDomain("cannot make a cgroup in %s: %v", dir, err)
		}
		return "", fmt.Errorf("making a cgroup in %s: %w", dir, err)
	}
	defer os.Remove(probe)
	if _, err := os.Stat(filepath.Join(probe, "cgroup.kill")); err != nil {
		return "", errDomain("cgroup v2 has no cgroup.kill here (needs Linux 5.14)")
	}
	return dir, nil
}

// NewCommandCgroup makes an empty cgroup for one command below this
// process's own. The error wraps ErrSandboxUnavailable when the system
// has none to give (CgroupAvailable).
//
// The first call also starts this process's cgroup watchdog: the host's
// executable re-executed (any program that imports safety is one), in a
// process group of its own, which ends every command cgroup this process
// made when this process exits, however it exits; a later call starts
// another if that one has died. Without it (it could not start), the
// cgroups of a killed agent are ended by EndStaleCgroups when the next
// one starts.
func NewCommandCgroup() (*CommandCgroup, error) {
	parent, err := cgroupParent()
	if err != nil {
		return nil, err
	}
	watchdog.ensure(parent)
	var b [6]byte
	rand.Read(b[:])
	dir := filepath.Join(parent, cgroupPrefix+strconv.Itoa(os.Getpid())+"-"+hex.EncodeToString(b[:]))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("safety: making the command's cgroup: %w", err)
	}
	fd, err := os.Open(dir)
	if err != nil {
		os.Remove(dir)
		return nil, fmt.Errorf("safety: opening the command's cgroup: %w", err)
	}
	return &CommandCgroup{dir: dir, fd: fd}, nil
}

// Dir is the cgroup's directory.
func (c *CommandCgroup) Dir() string { return c.dir }

// Place makes cmd, which must not have been started, start inside the
// cgroup (clone3 with CLONE_INTO_CGROUP): it is in it from its first
// instruction, so nothing it starts is ever outside.
func (c *CommandCgroup) Place(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.UseCgroupFD = true
	cmd.SysProcAttr.CgroupFD = int(c.fd.Fd())
}

// Kill ends every process in the cgroup with cgroup.kill, waits until it
// is empty (up to five seconds) and removes it, and says how many
// processes were still in it. Later calls do nothing and return the same
// count. Killed processes are reaped by their parents, or by the
// subreaper or init that adopted them.
func (c *CommandCgroup) Kill() int {
	c.once.Do(func() {
		defer c.fd.Close()
		c.killed = len(strings.Fields(readCgroupFile(c.dir, "cgroup.procs")))
		if c.killed > 0 {
			os.WriteFile(filepath.Join(c.dir, "cgroup.kill"), []byte("1"), 0)
		}
		deadline := time.Now().Add(5 * time.Second)
		for pause := 50 * time.Microsecond; ; pause = min(2*pause, 10*time.Millisecond) {
			err := os.Remove(c.dir)
			if err == nil || errors.Is(err, fs.ErrNotExist) || time.Now().After(deadline) {
				return
			}
			if !errors.Is(err, syscall.EBUSY) {
				return
			}
			// Still populated: SIGKILL is delivered asynchronously, and a
			// process forked during the kill is killed as it starts.
			os.WriteFile(filepath.Join(c.dir, "cgroup.kill"), []byte("1"), 0)
			time.Sleep(pause)
		}
	})
	return c.killed
}

func readCgroupFile(dir, name string) string {
	b, _ := os.ReadFile(filepath.Join(dir, name))
	return string(b)
}

// EndStaleCgroups kills and removes the command cgroups that processes
// no longer running left below this process's cgroup (an agent killed in
// the middle of a command), and says how many processes it ended.
func EndStaleCgroups() int {
	parent, err := cgroupParent()
	if err != nil {
		return 0
	}
	ents, err := os.ReadDir(parent)
	if err != nil {
		return 0
	}
	n := 0
	for _, de := range ents {
		rest, ok := strings.CutPrefix(de.Name(), cgroupPrefix)
		if !ok || !de.IsDir() {
			continue
		}
		pidS, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidS)
		if err != nil || pid == os.Getpid() || !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
			continue // its maker still runs
		}
		dir := filepath.Join(parent, de.Name())
		fd, err := os.Open(dir)
		if err != nil {
			continue
		}
		n += (&CommandCgroup{dir: dir, fd: fd}).Kill()
	}
	return n
}

// watchdog is this process's cgroup watchdog.
var watchdog cgroupWatchdog

// cgroupWatchdog keeps one watchdog process running. Its descriptor 3 is
// the reading end of a pipe whose writing end only this process holds
// (close-on-exec, so no command inherits it): the pipe reads end of file
// exactly when this process is gone.
type cgroupWatchdog struct {
	mu   sync.Mutex
	r, w *os.File
	pid  int // the running watchdog; 0 before the first
}

// ensure starts a watchdog unless one runs. Whether it still runs is
// asked of the kernel without blocking (which also reaps one that died),
// so no goroutine waits on it.
func (d *cgroupWatchdog) ensure(parent string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.pid != 0 {
		if wpid, err := syscall.Wait4(d.pid, nil, syscall.WNOHANG, nil); wpid == 0 && err == nil {
			return
		}
		d.pid = 0
	}
	exe, err := os.Executable()
	if err != nil {
		return
	}
	if d.r == nil {
		if d.r, d.w, err = os.Pipe(); err != nil {
			d.r, d.w = nil, nil
			return
		}
	}
	req := sandboxhelper.Request{Watch: true, CgroupDir: parent, CgroupPrefix: cgroupPrefix + strconv.Itoa(os.Getpid()) + "-"}
	cmd := exec.Command(exe)
	cmd.Dir = "/"
	cmd.Env = []string{sandboxEnv + "=" + req.Encode()}
	cmd.ExtraFiles = []*os.File{d.r}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return
	}
	d.pid = cmd.Process.Pid
}
