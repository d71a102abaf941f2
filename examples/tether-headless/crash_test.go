package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The agent process is killed (SIGKILL) while an approved command that
// deletes, chmods and creates files is still running. A restart on the
// same checkpoint database settles the interrupted command, and a bare
// undo (the interrupted run is the last one) brings the workspace back
// byte for byte, modes included.
func TestKilledMidCommandIsUndoneAfterRestart(t *testing.T) {
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip("needs /proc to see the command's process")
	}
	const arg = "296" // the script's `sleep 296`
	ws := project(t)
	os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("untouched\n"), 0o600)
	before := snapshotTree(t, ws)
	db := filepath.Join(t.TempDir(), "cp.db")
	flags := []string{"-workspace", ws, "-model", "script:testdata/crash.jsonl", "-db", db, "-approvals", "stdin"}

	cmd := exec.Command(binary, flags...)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		for _, pid := range sleepers(t, arg) {
			if n, err := strconv.Atoi(pid); err == nil {
				syscall.Kill(n, syscall.SIGKILL)
			}
		}
	})
	timer := time.AfterFunc(60*time.Second, func() { cmd.Process.Kill() })
	defer timer.Stop()
	io.WriteString(in, `{"type":"prompt","text":"clean up"}`+"\n")
	killed := false
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() && !killed {
		var e wireLine
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("bad line %q", sc.Text())
		}
		if e.str("type") == "approval_requested" {
			fmt.Fprintf(in, `{"type":"approve","id":%q,"decision":"allow"}`+"\n", e.str("id"))
			if !waitFor(func() bool { return len(sleepers(t, arg)) > 0 }) {
				t.Fatal("the command's sleep never started")
			}
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			killed = true
		}
	}
	cmd.Wait()
	if !killed {
		t.Fatal("the command never ran")
	}
	if _, err := os.Stat(filepath.Join(ws, "greet.go")); !os.IsNotExist(err) {
		t.Fatalf("the command had not deleted greet.go when the agent was killed (err %v)", err)
	}

	restart := exec.Command(binary, "-workspace", ws, "-model", "script:testdata/crash.jsonl", "-db", db)
	restart.Stdin = strings.NewReader(`{"type":"undo","checkpoint":""}` + "\n")
	var stderr strings.Builder
	restart.Stderr = &stderr
	res, err := restart.Output()
	if err != nil {
		t.Fatalf("restart: %v\n%s", err, stderr.String())
	}
	u := ofType(parseEvents(t, res), "undo_finished")
	if len(u) != 1 || u[0].str("error") != "" {
		t.Fatalf("undo after restart = %v\nstderr:\n%s", u, stderr.String())
	}
	if after := snapshotTree(t, ws); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("workspace after undo differs:\n got %v\nwant %v", after, before)
	}
}

// snapshotTree reads every file of dir with its mode.
func snapshotTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		fi, _ := d.Info()
		b, _ := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = fmt.Sprintf("%v %q", fi.Mode(), b)
		return nil
	})
	return out
}
