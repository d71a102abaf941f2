package main

import (
	"io"
	"strings"
	"testing"

	"github.com/tetherdev/tether/internal/clitest"
	"github.com/tetherdev/tether/toolcall"
)

// -h teaches: usage, every syntax and stream event type by name, exit
// status and examples, and exits 0.
func TestHelpTeaches(t *testing.T) {
	want := []string{"usage: tether-toolcall", "Exit status", "Examples:", "-stream N", `{"type":"result"`}
	want = append(want, strings.Split(toolcall.AllFormats.String(), "|")...)
	for k := toolcall.EventText; k <= toolcall.EventWarning; k++ {
		want = append(want, k.String())
	}
	_, help := clitest.Help(t, func(stdout, stderr io.Writer) int { return run([]string{"-h"}, strings.NewReader(""), stdout, stderr) }, want...)
	if strings.Contains(help, "EventKind(") {
		t.Error("-h names an event kind that has no name")
	}
}
