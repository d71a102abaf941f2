package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// -h teaches what the page does, the scripted model's format, where
// sessions are kept, exit status and examples.
func TestHelpTeaches(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"-h"}, &stdout, &stderr); code != 0 {
		t.Fatalf("-h: exit %d, want 0", code)
	}
	for _, want := range []string{"approval cards", `"tool_calls":`, "-db", "Exit status", "Examples:", "-approval-timeout"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("-h does not mention %q", want)
		}
	}
}
