package main

import (
	"bytes"
	"strings"
	"testing"
)

// -h teaches beyond the flags (what serve refuses, exit status, examples),
// and a subcommand's -h is an answer, not a usage error.
func TestHelpTeaches(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(t.Context(), []string{"-h"}, &stdout, &stderr); code != 0 {
		t.Fatalf("-h: exit %d, want 0", code)
	}
	for _, want := range []string{"usage:", "Exit status", "Examples:", "mcp serve -workspace", "-yes", "refused"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("-h does not mention %q", want)
		}
	}
	for _, name := range subcommandNames {
		stdout.Reset()
		stderr.Reset()
		if code := run(t.Context(), []string{name, "-h"}, &stdout, &stderr); code != 0 || !strings.Contains(stderr.String(), "-") {
			t.Errorf("%s -h: exit %d, output %q; want 0 and its flags", name, code, stderr.String())
		}
	}
}
