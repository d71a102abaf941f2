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

// TestNewSessionFreshShell: a `cd` in one session does not carry into the
// next: /new starts in the workspace root.
func TestNewSessionFreshShell(t *testing.T) {
	ws := t.TempDir()
	os.Mkdir(filepath.Join(ws, "sub"), 0o755)
	script := filepath.Join(t.TempDir(), "s.jsonl")
	writeFile(t, script, `{"capabilities":{"tools":true}}
{"tool_calls":[{"name":"run_terminal_command","arguments":{"command":"cd sub"}}]}
{"content":"In sub now. [TASK_COMPLETE]"}
{"tool_calls":[{"name":"run_terminal_command","arguments":{"command":"touch here.txt"}}]}
{"content":"Touched. [TASK_COMPLETE]"}
`)
	var out, stderr bytes.Buffer
	in := strings.NewReader("go to sub\n/new\ntouch a file\n")
	args := []string{"-workspace", ws, "-model", "script:" + script, "-db", ":memory:", "-log", "", "-allow", "cd,touch"}
	if code := run(args, in, &out, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(ws, "here.txt")); err != nil {
		t.Errorf("the new session did not start in the workspace root (sub/here.txt exists: %v):\n%s", exists(filepath.Join(ws, "sub", "here.txt")), out.String())
	}
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

// TestUntrustedSettingsSaid: a project's allow rule is not applied until
// the workspace is trusted, and the coder says so at start; -trust
// applies it.
func TestUntrustedSettingsSaid(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	ws := t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".tether"), 0o755)
	writeFile(t, filepath.Join(ws, ".tether", "settings.json"), `{"permissions": {"allow": ["touch"]}}`)
	script := filepath.Join(t.TempDir(), "s.jsonl")
	writeFile(t, script, `{"capabilities":{"tools":true}}
{"tool_calls":[{"name":"run_terminal_command","arguments":{"command":"touch t.txt"}}]}
{"content":"Done. [TASK_COMPLETE]"}
`)
	for _, trust := range []bool{false, true} {
		args := []string{"-workspace", ws, "-model", "script:" + script, "-db", ":memory:", "-log", ""}
		if trust {
			args = append(args, "-trust")
		}
		var out, stderr bytes.Buffer
		if code := run(args, strings.NewReader("touch it\nn\n"), &out, &stderr); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
		said := strings.Contains(out.String(), "not applied until you trust") && strings.Contains(out.String(), "permissions.allow")
		if said == trust || exists(filepath.Join(ws, "t.txt")) != trust {
			t.Errorf("trust=%v: said=%v, ran=%v:\n%s", trust, said, exists(filepath.Join(ws, "t.txt")), out.String())
		}
	}
}

// TestAttachSelection: @file:L5-L9 attaches those lines; @file the whole
// file; a reference to no file stays text.
func TestAttachSelection(t *testing.T) {
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "main.go"), "package main\n")
	script := filepath.Join(t.TempDir(), "s.jsonl")
	writeFile(t, script, `{"content":"ok [TASK_COMPLETE]"}`+"\n")
	o, err := parseFlags([]string{"-workspace", ws, "-model", "script:" + script, "-db", ":memory:", "-log", ""}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := openApp(t.Context(), o, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.close()
	got := a.attachments("explain @main.go:L5-L9, and @main.go then @nope.go:L1 and @main.go:L5-L9")
	if len(got) != 2 || got[0].Path != "main.go" || got[0].StartLine != 5 || got[0].EndLine != 9 || got[1].StartLine != 0 {
		t.Errorf("attachments = %+v", got)
	}
}
