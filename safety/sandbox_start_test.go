//go:build linux

package safety

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// startRun starts cmd with sb.Start (no helper) and reports its exit
// status and stderr.
func startRun(t *testing.T, sb *Sandbox, cmd *exec.Cmd) (int, string) {
	t.Helper()
	return runStarted(t, cmd, func() error { return sb.Start(cmd) })
}

// TestSandboxStartConfines: a command started by Sandbox.Start, from a
// thread that confined itself, is held as one started through the
// helper: writes outside, the hidden logins, the network and signals to
// the host are refused, and ordinary work goes on.
func TestSandboxStartConfines(t *testing.T) {
	requireLandlock(t, false)
	home := t.TempDir()
	ws, outside := filepath.Join(home, "ws"), filepath.Join(home, "outside")
	for _, d := range []string{ws, outside, filepath.Join(home, ".ssh")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(home, ".ssh", "id_ed25519"), []byte("sekrit key"), 0o600); err != nil {
		t.Fatal(err)
	}
	sb := &Sandbox{Writable: []string{ws}, Unreadable: HomeLogins(home)}
	sh := func(script string) *exec.Cmd {
		cmd := exec.Command("/bin/sh", "-c", script)
		cmd.Dir = ws
		cmd.Env = append(os.Environ(), "HOME="+home)
		return cmd
	}

	if code, errOut := startRun(t, sb, sh(`echo hi > inside.txt && cat inside.txt >/dev/null && ls "$HOME" >/dev/null && mkdir -p d && mv inside.txt d/`)); code != 0 {
		t.Fatalf("ordinary work inside the workspace failed (%d): %s", code, errOut)
	}
	if code, _ := startRun(t, sb, sh(`echo x > "`+outside+`/escape.txt"`)); code == 0 {
		t.Error("a write outside the workspace succeeded")
	}
	if _, err := os.Stat(filepath.Join(outside, "escape.txt")); err == nil {
		t.Error("the file outside the workspace exists")
	}
	for _, script := range []string{`cat "$HOME/.ssh/id_ed25519"`, `cat "/proc/self/root$HOME/.ssh/id_ed25519"`, `ln -s "$HOME/.ssh/id_ed25519" k && cat k`} {
		cmd := sh(script)
		var out strings.Builder
		cmd.Stdout = &out
		startRun(t, sb, cmd)
		if strings.Contains(out.String(), "sekrit") {
			t.Errorf("%s printed the hidden key", script)
		}
	}
	if abi, _ := landlockABI(); abi >= 6 {
		if code, errOut := startRun(t, sb, childCmd(t, "signal:"+strconv.Itoa(os.Getpid()))); code != 3 || !strings.Contains(errOut, "operation not permitted") {
			t.Errorf("kill(host, 0) from a started command: exit %d, %q; want operation not permitted", code, errOut)
		}
	}
	if sandboxSupported(true) == nil {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		nb := &Sandbox{Writable: []string{ws}, DenyNetwork: true}
		if code, _ := startRun(t, nb, childCmd(t, "dial:"+l.Addr().String())); code != 3 {
			t.Errorf("a started command with DenyNetwork connected (exit %d)", code)
		}
	}
}

// TestSandboxStartLeavesHostFree: the thread that confined itself ends
// with its start; the host's own threads, whichever runs the goroutine
// next, can still write anywhere after many starts, and the process does
// not keep a thread per start.
func TestSandboxStartLeavesHostFree(t *testing.T) {
	requireLandlock(t, false)
	threads := func() int {
		b, _ := os.ReadFile("/proc/self/status")
		for line := range strings.SplitSeq(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "Threads:"); ok {
				n, _ := strconv.Atoi(strings.TrimSpace(v))
				return n
			}
		}
		return 0
	}
	before := threads()
	ws, outside := t.TempDir(), t.TempDir()
	sb := &Sandbox{Writable: []string{ws}}
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command("/bin/true")
			if err := sb.Start(cmd); err != nil {
				t.Error(err)
				return
			}
			cmd.Wait()
			if err := os.WriteFile(filepath.Join(outside, strconv.Itoa(i)), nil, 0o644); err != nil {
				t.Errorf("the host could not write outside the sandbox after a start: %v", err)
			}
		}()
	}
	wg.Wait()
	if after := threads(); after > before+20 {
		t.Errorf("%d threads before 40 starts, %d after: the confined threads were kept", before, after)
	}
}

func TestSandboxStartRefusesDeathSignal(t *testing.T) {
	requireLandlock(t, false)
	cmd := exec.Command("/bin/true")
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := (&Sandbox{Writable: []string{t.TempDir()}}).Start(cmd); err == nil || !strings.Contains(err.Error(), "parent-death") {
		cmd.Wait()
		t.Fatalf("Start with Pdeathsig = %v, want a refusal", err)
	}
}
