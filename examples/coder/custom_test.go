package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCustomCommand: /NAME runs the prompt of .tether/commands/NAME.md
// with the arguments typed after it, and /help lists it.
func TestCustomCommand(t *testing.T) {
	ws := t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".tether", "commands"), 0o755)
	writeFile(t, filepath.Join(ws, ".tether", "commands", "where.md"), "---\ndescription: Say where a symbol is defined\nargument-hint: SYMBOL\n---\nWhere is $1 defined?\n")
	script := filepath.Join(t.TempDir(), "s.jsonl")
	writeFile(t, script, `{"content":"In main.go. [TASK_COMPLETE]"}`+"\n")
	var out, stderr bytes.Buffer
	in := strings.NewReader("/help\n/where parseFlags\n")
	if code := run([]string{"-workspace", ws, "-model", "script:" + script, "-db", ":memory:", "-log", ""}, in, &out, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, want := range []string{"/where", "Say where a symbol is defined", "Where is parseFlags defined?", "In main.go."} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
