package faultpoint

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// The test binary re-runs itself as the process to kill.
func TestMain(m *testing.M) {
	if p := os.Getenv("FAULTPOINT_CHILD"); p != "" {
		Reached("other")
		Reached(p)
		Reached(p)
		os.Stdout.WriteString("survived\n")
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// child runs this binary reaching "other" once and point twice, with
// TETHER_FAULT set to armed.
func child(t *testing.T, point, armed string) (out string, killed bool) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "FAULTPOINT_CHILD="+point, "TETHER_FAULT="+armed)
	b, err := cmd.Output()
	if err == nil {
		return string(b), false
	}
	ee, ok := err.(*exec.ExitError)
	if !ok {
		t.Fatal(err)
	}
	ws, _ := ee.Sys().(syscall.WaitStatus)
	return string(b), ws.Signaled() && ws.Signal() == syscall.SIGKILL
}

func TestReached(t *testing.T) {
	for _, tc := range []struct {
		armed    string
		wantKill bool
	}{
		{"p", enabled},
		{"p#2", enabled},
		{"p#3", false}, // reached twice only
		{"q", false},
		{"", false},
	} {
		out, killed := child(t, "p", tc.armed)
		if killed != tc.wantKill {
			t.Errorf("TETHER_FAULT=%q (tag on: %v): killed = %v, want %v", tc.armed, enabled, killed, tc.wantKill)
		}
		if !killed && !strings.Contains(out, "survived") {
			t.Errorf("TETHER_FAULT=%q: the child neither died nor finished: %q", tc.armed, out)
		}
	}
}
