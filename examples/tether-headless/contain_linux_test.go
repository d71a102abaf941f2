//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestContainEndToEnd runs commands that try to outlive themselves through
// the built binary, sandbox on and off, and proves from /proc that nothing
// does: after a command that exits at once (a daemon with an empty
// environment detached by setsid -f, issue 24 class 3), and after the
// agent itself is killed with SIGKILL in the middle of a command (issue
// 32: commands die with the agent).
func TestContainEndToEnd(t *testing.T) {
	for _, sandbox := range []string{"off", "auto"} {
		t.Run("sandbox "+sandbox+"/exits", func(t *testing.T) {
			secs := uniqueSecs(1)
			ws := project(t)
			script := writeScript(t, `env -i /bin/sh -c 'setsid -f sleep `+secs+` >/dev/null 2>&1 </dev/null'`)
			cmd := exec.Command(binary, "-workspace", ws, "-model", "script:"+script, "-sandbox", sandbox, "-allow", "env,setsid,sleep")
			cmd.Stdin = strings.NewReader(`{"type":"prompt","text":"go"}` + "\n")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("headless: %v\n%s", err, stderr.String())
			}
			if !bytes.Contains(out, []byte("processes the command left running were killed")) {
				t.Errorf("the tool result does not say leftovers were killed:\n%s\nstderr:\n%s", out, stderr.String())
			}
			if pids := alive("sleep", secs); len(pids) > 0 {
				t.Errorf("a detached process outlived its command: %v", pids)
				killAll(pids)
			}
		})
		t.Run("sandbox "+sandbox+"/agent killed", func(t *testing.T) {
			secs, inner := uniqueSecs(2), uniqueSecs(3)
			ws := project(t)
			script := writeScript(t, `setsid -f sleep `+secs+` >/dev/null 2>&1 </dev/null; sleep `+inner)
			cmd := exec.Command(binary, "-workspace", ws, "-model", "script:"+script, "-sandbox", sandbox, "-allow", "setsid,sleep")
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintln(stdin, `{"type":"prompt","text":"go"}`)
			deadline := time.Now().Add(30 * time.Second)
			for len(alive("sleep", secs)) == 0 || len(alive("sleep", inner)) == 0 {
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					cmd.Wait()
					t.Fatal("the command never started")
				}
				time.Sleep(20 * time.Millisecond)
			}
			cmd.Process.Kill() // SIGKILL: the agent gets no chance to clean up
			cmd.Wait()
			deadline = time.Now().Add(15 * time.Second)
			for len(alive("sleep", secs))+len(alive("sleep", inner)) > 0 {
				if time.Now().After(deadline) {
					pids := append(alive("sleep", secs), alive("sleep", inner)...)
					killAll(pids)
					t.Fatalf("processes of the command outlived the agent: %v", pids)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

func uniqueSecs(n int) string {
	return fmt.Sprintf("%d.%06d", 5100+n, time.Now().UnixNano()%1e6)
}

// writeScript writes a scripted model that runs command once and then
// finishes.
func writeScript(t *testing.T, command string) string {
	t.Helper()
	q := strconv.Quote(command)
	body := `{"capabilities":{"tools":true}}` + "\n" +
		`{"content":"Running it.","tool_calls":[{"name":"run_terminal_command","arguments":{"command":` + q + `,"timeout":120}}]}` + "\n" +
		`{"content":"Done."}` + "\n"
	p := filepath.Join(t.TempDir(), "script.jsonl")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// alive lists the live (non-zombie) processes whose argv is name arg.
func alive(name, arg string) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, de := range ents {
		pid, err := strconv.Atoi(de.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + de.Name() + "/cmdline")
		if err != nil || string(b) != name+"\x00"+arg+"\x00" {
			continue
		}
		if st, _ := os.ReadFile("/proc/" + de.Name() + "/stat"); strings.Contains(string(st), ") Z ") {
			continue
		}
		out = append(out, pid)
	}
	return out
}

func killAll(pids []int) {
	for _, p := range pids {
		if pr, err := os.FindProcess(p); err == nil {
			pr.Kill()
		}
	}
}
