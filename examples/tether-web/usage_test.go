package main

import (
	"context"
	"io"
	"testing"

	"github.com/tetherdev/tether/internal/clitest"
)

// -h teaches what the page does, the scripted model's format, where
// sessions are kept, exit status and examples.
func TestHelpTeaches(t *testing.T) {
	clitest.Help(t, func(stdout, stderr io.Writer) int { return run(context.Background(), []string{"-h"}, stdout, stderr) },
		"approval cards", `"tool_calls":`, "-db", "Exit status", "Examples:", "-approval-timeout")
}
