package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestTerminalAlwaysAllow: "a" on a command's approval card writes the
// exact command as an allow rule to .tether/settings.json; a new coder
// process runs the same command without asking; /permissions lists the
// rule and removes it, and then the command asks again.
func TestTerminalAlwaysAllow(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("tmux is not installed; .ci/run installs it")
		}
		t.Skip("tmux is not installed; install it (apt-get install -y tmux) to run the terminal test")
	}
	if testing.Short() {
		t.Skip("-short")
	}
	tmp, err := os.MkdirTemp("", "ta") // short: tmux socket paths are limited
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "coder")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	ws, config := filepath.Join(tmp, "ws"), filepath.Join(tmp, "config")
	os.Mkdir(ws, 0o755)
	script := filepath.Join(tmp, "s.jsonl")
	writeFile(t, script, `{"capabilities":{"tools":true}}
{"content":"Stamping.","tool_calls":[{"name":"run_terminal_command","arguments":{"command":"touch stamp.txt"}}]}
{"content":"Stamped. [TASK_COMPLETE]"}
{"content":"Stamping.","tool_calls":[{"name":"run_terminal_command","arguments":{"command":"touch stamp.txt"}}]}
{"content":"Stamped. [TASK_COMPLETE]"}
`) // each process plays it from the start; the second runs two tasks
	cmdline := fmt.Sprintf("HOME=%s XDG_CONFIG_HOME=%s %s -model script:%s -db :memory: -log %s; echo EXITED:$?; sleep 60",
		tmp, config, bin, script, filepath.Join(tmp, "log"))
	tm := &tmux{t: t, sock: filepath.Join(tmp, "s")}
	defer tm.cmd("kill-server")
	tm.cmd("new-session", "-d", "-x", "120", "-y", "30", "-c", ws, cmdline)
	tm.waitFor("Type a task")

	tm.keys("stamp it", "Enter")
	screen := tm.waitFor(`"touch stamp.txt" to .tether/settings.json`)
	tm.keys("a")
	tm.waitFor("Stamped.")
	saved, err := os.ReadFile(filepath.Join(ws, ".tether", "settings.json"))
	if err != nil || !strings.Contains(string(saved), `"touch stamp.txt"`) {
		t.Fatalf("the rule is not in .tether/settings.json (%v):\n%s\nscreen:\n%s", err, saved, screen)
	}
	tm.keys("/quit", "Enter")
	tm.waitFor("EXITED:0")

	// A new process: the saved rule applies, nobody is asked.
	os.Remove(filepath.Join(ws, "stamp.txt"))
	tm.cmd("respawn-pane", "-k", "-c", ws, cmdline)
	tm.waitFor("Type a task")
	tm.keys("stamp it again", "Enter")
	screen = tm.waitFor("Stamped.")
	if strings.Contains(screen, "allow once") {
		t.Errorf("the saved rule did not apply in a new process:\n%s", screen)
	}
	if _, err := os.Stat(filepath.Join(ws, "stamp.txt")); err != nil {
		t.Errorf("the command did not run: %v", err)
	}

	// /permissions lists it and removes it.
	tm.keys("/permissions", "Enter")
	tm.waitFor("1. allow touch stamp.txt")
	tm.keys("/permissions remove 1", "Enter")
	tm.waitFor(`removed allow rule "touch stamp.txt"`)
	if b, _ := os.ReadFile(filepath.Join(ws, ".tether", "settings.json")); strings.Contains(string(b), "touch stamp.txt") {
		t.Errorf("the rule is still in the file:\n%s", b)
	}
	tm.keys("/new", "Enter")
	tm.keys("stamp it a third time", "Enter")
	tm.waitFor("[y] allow once")
	tm.keys("n")
	tm.waitFor("tell the model:")
	tm.keys("Enter")
	tm.keys("/quit", "Enter")
	tm.waitFor("EXITED:0")
}
