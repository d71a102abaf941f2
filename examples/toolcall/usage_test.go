package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tetherdev/tether/toolcall"
)

// -h teaches: usage, every syntax and stream event type by name, exit
// status and examples, and exits 0.
func TestHelpTeaches(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-h"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("-h: exit %d, want 0", code)
	}
	help := stderr.String()
	want := []string{"usage: toolcall", "Exit status", "Examples:", "-stream N", `{"type":"result"`}
	want = append(want, strings.Split(toolcall.AllFormats.String(), "|")...)
	for k := toolcall.EventText; k <= toolcall.EventWarning; k++ {
		want = append(want, k.String())
	}
	for _, w := range want {
		if !strings.Contains(help, w) {
			t.Errorf("-h does not mention %q", w)
		}
	}
	if strings.Contains(help, "EventKind(") {
		t.Error("-h names an event kind that has no name")
	}
}
