// Package clitest holds checks shared by the example commands' tests.
package clitest

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// Help runs a command's -h through run (which gets standard output and
// standard error and returns the exit status) and checks that it exited 0
// and that its output mentions every one of want, so that what a user
// needs to drive the command (usage, protocol, exit status, examples)
// cannot silently drop out of it. It returns the output, for further
// checks.
func Help(t testing.TB, run func(stdout, stderr io.Writer) int, want ...string) (stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	if code := run(&o, &e); code != 0 {
		t.Errorf("-h: exit %d, want 0", code)
	}
	help := o.String() + e.String()
	for _, w := range want {
		if !strings.Contains(help, w) {
			t.Errorf("-h does not mention %q", w)
		}
	}
	return o.String(), e.String()
}
