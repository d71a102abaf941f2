package terminal

import (
	"os"
	"testing"

	"github.com/tetherdev/tether/safety"
)

// TestMain lets the test binary serve as the sandbox helper: a sandboxed
// command re-executes it, and SandboxMain confines and execs the command.
func TestMain(m *testing.M) {
	safety.SandboxMain()
	os.Exit(m.Run())
}
