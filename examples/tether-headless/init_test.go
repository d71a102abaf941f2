package main

import (
	"bufio"
	"bytes"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/tetherdev/tether/safety"
)

// TestHelperStartIsCheap holds the property that keeps the kill-domain
// helper cheap: the host binary is re-executed for every command
// (safety.SandboxMain), so no package of this module may do real work
// when the program starts. Package-level variables are trivial values;
// tables, compiled expressions and schemas are built on first use
// (internal/lazyregexp, sync.OnceValue, safety's option models).
//
// The measure is allocations, which do not depend on the machine's load:
// the runtime's init trace (GODEBUG=inittrace=1) of the helper running
// one command lists every package's.
func TestHelperStartIsCheap(t *testing.T) {
	const module = "github.com/tetherdev/tether"
	// safety's remaining allocations (about 760) are its static map
	// literals and option groups (the concern tables), which the compiler
	// builds at start-up, about 0.4 ms; wrapping them is left for when
	// the concern code is not being rewritten.
	bound := map[string]int{module + "/safety": 1024}
	const defaultBound = 64

	cmd := exec.Command("/bin/true")
	if err := (&safety.KillDomain{Helper: binary}).Wrap(cmd); err != nil {
		t.Skipf("no kill domain here: %v", err)
	}
	cmd.Env = append(cmd.Env, "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("helper: %v\n%s", err, stderr.String())
	}
	trace := stderr.String()
	seen := 0
	sc := bufio.NewScanner(strings.NewReader(trace))
	for sc.Scan() {
		// init PKG @0.1 ms, 0.2 ms clock, 1024 bytes, 12 allocs
		f := strings.Fields(sc.Text())
		if len(f) != 11 || f[0] != "init" || f[10] != "allocs" {
			continue
		}
		pkg := f[1]
		if pkg != module && !strings.HasPrefix(pkg, module+"/") {
			continue
		}
		seen++
		allocs, err := strconv.Atoi(f[9])
		if err != nil {
			t.Fatalf("init trace line %q: %v", sc.Text(), err)
		}
		max, ok := bound[pkg]
		if !ok {
			max = defaultBound
		}
		if allocs > max {
			t.Errorf("%s allocates %d times when the program starts (bound %d): build its tables on first use\n%s", pkg, allocs, max, sc.Text())
		}
	}
	if seen == 0 {
		t.Fatalf("no init trace of this module's packages in the helper's stderr:\n%s", trace)
	}
}
