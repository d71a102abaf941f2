//go:build !linux

package terminal

// Without /proc the shell's state cannot be read from the kernel, and the
// terminal does not trust a report the script could write: each command
// starts at the directory it is given (or the root) with the environment
// the host composed, and nothing a command exports is carried.
import (
	"io"
	"os/exec"
)

const (
	reportRC   = "__tether_rc"
	reportMark = "__tether_state"
)

func reportTrap(string) string { return "" }

func stopperFor(string, string) string { return "" }

type shellState struct {
	ok  bool
	dir string
	env []string
	rc  int

	leftover int
}

func awaitReport(int, func()) shellState { return shellState{} }

func readDomainReport(io.Reader) shellState { return shellState{} }

func tieToAgent(*exec.Cmd) {}
