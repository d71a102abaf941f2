package main

import (
	"io"
	"testing"

	"github.com/tetherdev/tether/internal/clitest"
)

// -h teaches: what the demo does, its usage, the model strings, exit
// status, examples, and what it writes outside its temporary directory.
func TestHelpTeaches(t *testing.T) {
	stdout, _ := clitest.Help(t, func(stdout, stderr io.Writer) int { return run(t.Context(), []string{"-h"}, stdout, stderr) },
		"usage: demo", "ollama:NAME", "script:FILE", "Exit status", "Examples:", "GOCACHE", "-keep", "-tool-calling")
	if stdout != "" {
		t.Errorf("-h ran the demo: %q", stdout)
	}
}
