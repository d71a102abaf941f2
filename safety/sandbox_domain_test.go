//go:build linux

package safety

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func testDomain() *KillDomain {
	return &KillDomain{Helper: os.Args[0]}
}

// TestKillDomainSweepsAndReports: the helper keeps the report descriptor
// from the command, kills what the command left below it and says how
// many, and exits with the command's status.
func TestKillDomainSweepsAndReports(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command("/bin/sh", "-c", `(setsid sleep 5200.5 >/dev/null 2>&1 </dev/null &); echo hi >&3 2>/dev/null && echo "fd 3 reached"; exit 7`)
	cmd.ExtraFiles = []*os.File{w}
	if err := testDomain().Wrap(cmd); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.Output()
	w.Close()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 7 {
		t.Fatalf("exit: %v (want status 7)", err)
	}
	if strings.Contains(string(out), "fd 3 reached") {
		t.Errorf("the command could write the report descriptor")
	}
	var rep KillDomainReport
	b := make([]byte, 1<<16)
	n, _ := r.Read(b)
	if err := rep.UnmarshalText(b[:n]); err != nil {
		t.Fatalf("report %q: %v", b[:n], err)
	}
	if rep.Leftover != 1 || rep.Dir != "" {
		t.Errorf("report = %+v, want one leftover and no stop", rep)
	}
}

func TestKillDomainRefusesTwoExtraFiles(t *testing.T) {
	cmd := exec.Command("/bin/true")
	cmd.ExtraFiles = []*os.File{os.Stdin, os.Stdin}
	if err := testDomain().Wrap(cmd); err == nil {
		t.Fatal("two extra files accepted")
	}
}

// BenchmarkKillDomain measures what the helper adds to starting a program
// (here the test binary as helper, heavier than a host's main). Beside
// wall time it reports cpu-ns/op, the CPU the started process and what it
// waited for used (user and system), which a loaded machine inflates far
// less than wall time.
func BenchmarkKillDomain(b *testing.B) {
	for _, mode := range []string{"direct", "domain"} {
		b.Run(mode, func(b *testing.B) {
			var cpu time.Duration
			for b.Loop() {
				cmd := exec.Command("/bin/true")
				if mode == "domain" {
					if err := testDomain().Wrap(cmd); err != nil {
						b.Fatal(err)
					}
				}
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
				cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			}
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}
