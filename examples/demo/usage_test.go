package main

import (
	"bytes"
	"strings"
	"testing"
)

// -h teaches: what the demo does, its usage, the model strings, exit
// status, examples, and what it writes outside its temporary directory.
func TestHelpTeaches(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(t.Context(), []string{"-h"}, &stdout, &stderr); code != 0 {
		t.Fatalf("-h: exit %d, want 0", code)
	}
	help := stderr.String()
	for _, want := range []string{"usage: demo", "ollama:NAME", "script:FILE", "Exit status", "Examples:", "GOCACHE", "-keep", "-tool-calling"} {
		if !strings.Contains(help, want) {
			t.Errorf("-h does not mention %q", want)
		}
	}
	if stdout.Len() != 0 {
		t.Errorf("-h ran the demo: %q", stdout.String())
	}
}
