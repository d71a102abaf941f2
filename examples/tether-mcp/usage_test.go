package main

import (
	"io"
	"testing"

	"github.com/tetherdev/tether/internal/clitest"
)

// -h teaches beyond the flags (what serve refuses, exit status, examples),
// and a subcommand's -h is an answer, not a usage error.
func TestHelpTeaches(t *testing.T) {
	clitest.Help(t, func(stdout, stderr io.Writer) int { return run(t.Context(), []string{"-h"}, stdout, stderr) },
		"usage:", "Exit status", "Examples:", "mcp serve -workspace", "-yes", "refused")
	for _, name := range subcommandNames {
		t.Run(name, func(t *testing.T) {
			clitest.Help(t, func(stdout, stderr io.Writer) int { return run(t.Context(), []string{name, "-h"}, stdout, stderr) }, "  -")
		})
	}
}
