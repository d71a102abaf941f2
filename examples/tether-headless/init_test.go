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

// TestHelperSkipsTheHostsInitialisation holds what keeps the kill-domain
// and sandbox helper cheap: the host binary is re-executed as the helper,
// and the helper's package runs while the program initialises, right
// after the few standard packages it needs and before the host's. The
// runtime's init trace (GODEBUG=inittrace=1) of the built binary running
// one command as a helper must show no package of this module but the
// helper's own, and little work in all: before the helper ran first, the
// trace listed 175 packages and 3,707 allocations, now about 20 and 40.
// An import of the helper's that sorts late (strings, encoding/json,
// golang.org/x/sys) would make it wait for the host again. Allocations
// are counted, not time, so the load of the machine does not matter.
func TestHelperSkipsTheHostsInitialisation(t *testing.T) {
	const module, helperPkg = "github.com/tetherdev/tether", "github.com/tetherdev/tether/internal/sandboxhelper"
	const maxAllocs = 200

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
	pkgs, allocs := 0, 0
	sc := bufio.NewScanner(strings.NewReader(trace))
	for sc.Scan() {
		// init PKG @0.1 ms, 0.2 ms clock, 1024 bytes, 12 allocs
		f := strings.Fields(sc.Text())
		if len(f) != 11 || f[0] != "init" || f[10] != "allocs" {
			continue
		}
		pkgs++
		n, err := strconv.Atoi(f[9])
		if err != nil {
			t.Fatalf("init trace line %q: %v", sc.Text(), err)
		}
		allocs += n
		if pkg := f[1]; pkg != helperPkg && (pkg == module || strings.HasPrefix(pkg, module+"/")) {
			t.Errorf("the helper waited for this module's %s: %s", pkg, sc.Text())
		}
	}
	if pkgs == 0 {
		t.Fatalf("no init trace in the helper's stderr:\n%s", trace)
	}
	if allocs > maxAllocs {
		t.Errorf("the %d packages initialised before the helper allocated %d times (bound %d): the helper waits for the host's initialisation\n%s", pkgs, allocs, maxAllocs, trace)
	}
}
