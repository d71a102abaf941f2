//go:build !linux

package terminal

// escapees, without /proc, tracks the command's process group only: a
// process that calls setsid can outlive the command here.
type escapees struct {
	root int
	also func() int
}

func newEscapees(prefix string) (*escapees, string) { return &escapees{}, prefix + "1" }

const runMarker = "TETHER_TERMINAL_RUN"

func (e *escapees) watch(pid int) { e.root = pid }

func (e *escapees) snapshot() {}

// kill ends the process group and reports whether anything was left in it.
func (e *escapees) kill() int {
	if groupAlive(e.root) {
		killGroup(e.root)
		return 1
	}
	return 0
}
