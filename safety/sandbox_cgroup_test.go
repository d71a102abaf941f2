//go:build linux

package safety

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// needCgroup skips when the machine gives no cgroup of a command's own;
// under CI it fails only when the machine looked able to and then failed.
func needCgroup(t *testing.T) {
	t.Helper()
	err := CgroupAvailable()
	if err == nil {
		return
	}
	if os.Getenv("CI") == "true" && !errors.Is(err, ErrSandboxUnavailable) {
		t.Fatalf("cgroups failed unexpectedly: %v", err)
	}
	t.Skipf("no cgroup of a command's own here: %v", err)
}

// TestCommandCgroupEndsWhatLeftTheTree: a daemon that left its session,
// cleared its environment and lost its parent is still in the command's
// cgroup, and Kill ends it and removes the cgroup.
func TestCommandCgroupEndsWhatLeftTheTree(t *testing.T) {
	needCgroup(t)
	cg, err := NewCommandCgroup()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/bin/sh", "-c", `env -i setsid -f /bin/sh -c 'echo $$; exec sleep 5301.5 >/dev/null' </dev/null 2>/dev/null`)
	cmd.WaitDelay = 10 * time.Second // should the daemon keep the pipe after all
	cg.Place(cmd)
	out, err := cmd.Output()
	if err != nil {
		cg.Kill()
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		cg.Kill()
		t.Fatalf("daemon pid %q: %v", out, err)
	}
	if n := cg.Kill(); n != 1 {
		t.Errorf("Kill ended %d processes, want the one daemon", n)
	}
	if st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil && !strings.Contains(string(st), ") Z ") {
		t.Errorf("the daemon %d outlived the cgroup's kill: %s", pid, st)
	}
	if _, err := os.Stat(cg.Dir()); !os.IsNotExist(err) {
		t.Errorf("the cgroup %s was not removed: %v", cg.Dir(), err)
	}
	if cg.Kill() != 1 {
		t.Error("a second Kill changed the count")
	}
}

// TestKillDomainMissingNamesTheGuard: Missing says the helper is the
// guard exactly when no cgroup can be made.
func TestKillDomainMissingNamesTheGuard(t *testing.T) {
	missing := (&KillDomain{}).Missing()
	if CgroupAvailable() == nil {
		if len(missing) != 0 {
			t.Errorf("cgroups are available, yet Missing = %q", missing)
		}
		return
	}
	if len(missing) == 0 || !strings.Contains(missing[0], "subreaper is the guard") {
		t.Errorf("Missing = %q, want the cgroup named and the helper as the guard", missing)
	}
}
