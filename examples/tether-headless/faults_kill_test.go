package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tetherdev/tether/internal/faultpoint"
)

// Crash consistency of a whole run, by SIGKILL of the built headless
// binary at named points (internal/faultpoint, active only in a binary
// built with the tetherfault tag). Each case kills the agent at one point
// of one run (a file write followed by a command that deletes, chmods,
// appends, creates a directory tree and a link), restarts it on the same
// checkpoint database, undoes the run and checks the workspace byte for
// byte: content, permission bits, symlink targets and directories. No
// process of the killed run may survive it.
//
// The expectations were written before the runs, from these sources:
//   - SQLite, "Atomic Commit In SQLite" §2 and "How To Corrupt An SQLite
//     Database File" §3: a crash at any instant between two writes must
//     leave either the old state or the new, and a restart must roll a
//     half-done change forward or back (here: the workspace and the
//     checkpoint together).
//   - T. S. Pillai et al., "All File Systems Are Not Created Equal: On the
//     Complexity of Crafting Crash-Consistent Applications" (OSDI 2014),
//     and Dan Luu, "Files are hard" (2015): the unsafe windows of an
//     atomic-replace protocol are after the temporary file is written and
//     before the rename, and after the rename before the log is updated;
//     the application's recovery must handle both, and remove what a torn
//     update left.
//   - Editors' atomic save (vim's 'backupcopy' help, Sublime Text's
//     atomic_save setting): a save interrupted by a crash must not leave
//     a stray temporary file beside the user's file, nor lose the file's
//     mode or turn a symlink into a copy.
//   - Undo interrupted by the crash it exists to repair: ALICE's
//     "recovery must itself be crash-consistent" (the interrupted
//     recovery is run again).

// faultBin builds the headless binary with the fault points active.
var faultBin = sync.OnceValues(func() (string, error) {
	out := filepath.Join(filepath.Dir(binary), "headless-fault")
	b, err := exec.Command("go", "build", "-tags", "tetherfault", "-o", out, ".").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("building with -tags tetherfault: %v\n%s", err, b)
	}
	return out, nil
})

// faultWorkspace makes a workspace with modes, links and directories,
// the things a byte-exact undo can get wrong.
func faultWorkspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	for _, f := range []struct {
		name, body string
		mode       fs.FileMode
	}{
		{"greet.go", greetGo, 0o644},
		{"main.go", mainGo, 0o644},
		{"run.sh", "#!/bin/sh\necho hi\n", 0o755},
		{"secret.txt", "only mine\n", 0o600},
		{"sub/a.txt", "alpha\n", 0o640},
	} {
		p := filepath.Join(ws, f.name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(f.body), f.mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, f.mode); err != nil { // past the umask
			t.Fatal(err)
		}
	}
	must(t, os.Symlink("greet.go", filepath.Join(ws, "link.go")))
	must(t, os.Symlink("nowhere", filepath.Join(ws, "dangling")))
	must(t, os.Mkdir(filepath.Join(ws, "emptydir"), 0o700))
	return ws
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// treeState describes every entry under dir (but .git): type and
// permission bits, and a file's content or a link's target.
func treeState(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == "." {
			return nil
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		line := fmt.Sprintf("%s %v", rel, fi.Mode())
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			line += " -> " + target
		case fi.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			line += fmt.Sprintf(" %q", b)
		}
		out = append(out, line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// diffState lists the lines only in a or only in b.
func diffState(a, b []string) string {
	var d []string
	for _, l := range a {
		if !slices.Contains(b, l) {
			d = append(d, "- "+l)
		}
	}
	for _, l := range b {
		if !slices.Contains(a, l) {
			d = append(d, "+ "+l)
		}
	}
	return strings.Join(d, "\n")
}

// processesWith returns the live (not zombie) processes whose command
// line holds token.
func processesWith(t *testing.T, token string) []string {
	t.Helper()
	cmdlines, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range cmdlines {
		b, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(b, []byte(token)) {
			continue
		}
		if stat, err := os.ReadFile(filepath.Join(filepath.Dir(p), "stat")); err == nil && strings.Contains(string(stat), ") Z ") {
			continue
		}
		out = append(out, filepath.Base(filepath.Dir(p))+": "+strings.ReplaceAll(string(b), "\x00", " "))
	}
	return out
}

// faultScript writes the run's script: a write_file, then one command
// touching every kind of entry but a link it would delete (undo never
// takes a link as a pre-image, crash or not: `rm link` is not undone, see
// the report of issue 32). The command's shell carries token in its
// command line, and with sleep it ends in `sleep token`, to be killed in.
func faultScript(t *testing.T, token string, sleep bool) string {
	t.Helper()
	command := "rm greet.go && chmod 600 run.sh && chmod 755 sub/a.txt && echo more >> sub/a.txt && " +
		"mkdir -p out/deep && echo made > out/deep/new.txt && ln -s sub/a.txt newlink && : " + token
	if sleep {
		command += " && sleep " + token
	}
	lines := []any{
		map[string]any{"capabilities": map[string]any{"tools": true}},
		map[string]any{"content": "Rewriting main.", "tool_calls": []any{map[string]any{"name": "write_file",
			"arguments": map[string]any{"path": "main.go", "content": "package main\n\nfunc main() { println(\"rewritten\") }\n"}}}},
		map[string]any{"content": "Cleaning up.", "tool_calls": []any{map[string]any{"name": "run_terminal_command",
			"arguments": map[string]any{"command": command}}}},
		map[string]any{"content": "Done. [TASK_COMPLETE]"},
	}
	var b bytes.Buffer
	for _, l := range lines {
		j, _ := json.Marshal(l)
		b.Write(append(j, '\n'))
	}
	p := filepath.Join(t.TempDir(), "faults.jsonl")
	must(t, os.WriteFile(p, b.Bytes(), 0o644))
	return p
}

// hostRun drives one process of bin: it writes first, approves every
// approval request, calls on for each event, and returns the events,
// standard error and how the process ended. on returning true kills the
// process (SIGKILL). Input is closed after run_finished or undo_finished.
type hostRun struct {
	evs    []wireLine
	stderr string
	state  *os.ProcessState
}

func (r hostRun) killed() bool {
	ws, ok := r.state.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
}

// checkpointID returns the first checkpoint id the run reported.
func (r hostRun) checkpointID() string {
	for _, e := range r.evs {
		if id := e.str("checkpoint_id"); id != "" {
			return id
		}
		if id := e.str("checkpoint"); id != "" {
			return id
		}
	}
	return ""
}

func drive(t *testing.T, bin string, env []string, flags []string, first string, on func(e wireLine) (kill bool)) hostRun {
	t.Helper()
	cmd := exec.Command(bin, flags...)
	cmd.Env = append(os.Environ(), env...)
	in, err := cmd.StdinPipe()
	must(t, err)
	out, err := cmd.StdoutPipe()
	must(t, err)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	must(t, cmd.Start())
	defer cmd.Process.Kill()
	timer := time.AfterFunc(2*time.Minute, func() { cmd.Process.Kill() })
	defer timer.Stop()
	io.WriteString(in, first+"\n")
	var r hostRun
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e wireLine
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("bad line %q", sc.Text())
		}
		r.evs = append(r.evs, e)
		switch e.str("type") {
		case "approval_requested":
			fmt.Fprintf(in, `{"type":"approve","id":%q,"decision":"allow"}`+"\n", e.str("id"))
		case "run_finished", "undo_finished", "error":
			in.Close()
		}
		if on != nil && on(e) {
			cmd.Process.Signal(syscall.SIGKILL)
		}
	}
	cmd.Wait()
	r.stderr, r.state = stderr.String(), cmd.ProcessState
	return r
}

// faultCase is one kill point of the run or of its undo.
type faultCase struct {
	name string
	// point is the armed fault point; "" with killOn for a kill from
	// outside.
	point string
	// inUndo: the run completes, and its undo is the process killed.
	inUndo bool
	// sleep: the command ends with a sleep, to be killed in.
	sleep bool
	// killOn, when set, SIGKILLs the agent from outside at that event.
	killOn func(t *testing.T, e wireLine) bool
	// midState checks the disk between the kill and the restart.
	midState func(t *testing.T, ws string)
}

func faultCases(token string) []faultCase {
	hasTemp := func(t *testing.T, ws string) {
		if m, _ := filepath.Glob(filepath.Join(ws, ".tether-*.tmp")); len(m) == 0 {
			t.Errorf("the kill did not land between the temporary file and the rename: no temporary file beside main.go")
		}
	}
	return []faultCase{
		{name: "write logged, file not written", point: faultpoint.ChangeLogged},
		{name: "write between temp and rename", point: faultpoint.WriteRenaming, midState: hasTemp},
		{name: "write renamed, not confirmed", point: faultpoint.ChangeApplied},
		{name: "command approved, nothing snapshotted", point: faultpoint.CommandApproved},
		{name: "command snapshotted, not started", point: faultpoint.CommandSnapshotted},
		{name: "during the command", sleep: true, killOn: func(t *testing.T, e wireLine) bool {
			if e.str("type") != "approval_requested" || e.str("kind") == "file" {
				return false
			}
			// The approval was just sent; wait until the command runs.
			if !waitFor(func() bool { return len(processesWith(t, "sleep\x00"+token)) > 0 }) {
				t.Fatal("the command's sleep never started")
			}
			return true
		}},
		{name: "command exited, not recorded", point: faultpoint.CommandExited},
		{name: "undo after one file restored", point: faultpoint.UndoRestored, inUndo: true},
		{name: "undo between temp and rename", point: faultpoint.WriteRenaming, inUndo: true},
		{name: "undo at its third restored file", point: faultpoint.UndoRestored + "#3", inUndo: true},
	}
}

func TestKilledAtEachPointIsUndoneAfterRestart(t *testing.T) {
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip("needs /proc to see the run's processes")
	}
	bin, err := faultBin()
	if err != nil {
		t.Fatal(err)
	}
	for i, tc := range faultCases("") {
		token := fmt.Sprint(29300 + i) // a sleep no other test runs
		tc = faultCases(token)[i]
		t.Run(tc.name, func(t *testing.T) {
			ws := faultWorkspace(t)
			before := treeState(t, ws)
			db := filepath.Join(t.TempDir(), "cp.db")
			flags := []string{"-workspace", ws, "-model", "script:" + faultScript(t, token, tc.sleep), "-db", db, "-approvals", "stdin"}
			prompt := `{"type":"prompt","text":"rewrite and clean up"}`
			t.Cleanup(func() {
				for _, p := range processesWith(t, "sleep\x00"+token) {
					var pid int
					fmt.Sscan(p, &pid)
					syscall.Kill(pid, syscall.SIGKILL)
				}
			})

			var env []string
			if tc.point != "" && !tc.inUndo {
				env = []string{"TETHER_FAULT=" + tc.point}
			}
			var on func(wireLine) bool
			if tc.killOn != nil {
				on = func(e wireLine) bool { return tc.killOn(t, e) }
			}
			run := drive(t, bin, env, flags, prompt, on)
			id := run.checkpointID()
			if !tc.inUndo {
				if !run.killed() {
					t.Fatalf("the agent was not killed (%v); stderr:\n%s", run.state, run.stderr)
				}
				if tc.point != "" && !strings.Contains(run.stderr, "faultpoint: "+tc.point) {
					t.Fatalf("killed, but not at %s; stderr:\n%s", tc.point, run.stderr)
				}
				if tc.midState != nil {
					tc.midState(t, ws)
				}
			} else {
				if !run.state.Success() || len(ofType(run.evs, "run_finished")) != 1 {
					t.Fatalf("the run to undo did not finish: %v\nstderr:\n%s", run.state, run.stderr)
				}
				if id == "" {
					t.Fatal("the run reported no checkpoint")
				}
				undo := drive(t, bin, []string{"TETHER_FAULT=" + tc.point}, flags, fmt.Sprintf(`{"type":"undo","checkpoint":%q}`, id), nil)
				if !undo.killed() || !strings.Contains(undo.stderr, "faultpoint: "+strings.Split(tc.point, "#")[0]) {
					t.Fatalf("the undo was not killed at %s (%v); stderr:\n%s", tc.point, undo.state, undo.stderr)
				}
			}
			// The command's processes die with the agent, but the kernel
			// delivers that death to them asynchronously: wait for it,
			// generously.
			gone := func() bool { return len(processesWith(t, token)) == 0 }
			for deadline := time.Now().Add(time.Minute); !gone() && time.Now().Before(deadline); {
				time.Sleep(50 * time.Millisecond)
			}
			if left := processesWith(t, token); len(left) > 0 {
				t.Errorf("processes of the killed run survive it by a minute: %v", left)
			}

			undo := drive(t, bin, nil, flags, fmt.Sprintf(`{"type":"undo","checkpoint":%q}`, id), nil)
			u := ofType(undo.evs, "undo_finished")
			if !undo.state.Success() || len(u) != 1 || u[0].str("error") != "" {
				t.Fatalf("undo after the restart: %v, events %v\nstderr:\n%s", undo.state, undo.evs, undo.stderr)
			}
			if d := diffState(before, treeState(t, ws)); d != "" {
				t.Errorf("workspace after undo differs from before the run:\n%s\nundo: %v", d, u[0])
			}
		})
	}
}

// A command that removes symbolic links: the checkpoint holds what a link
// points to, never the link, so the model is told that undo will not put
// the links back (rather than an undo that reports success without them).
func TestRemovedLinksAreNamedNotCovered(t *testing.T) {
	ws := faultWorkspace(t)
	script := turnsScript(t, []any{call("run_terminal_command", map[string]any{"command": "rm dangling link.go"})})
	run := drive(t, binary, nil, []string{"-workspace", ws, "-model", "script:" + script, "-approvals", "stdin"}, `{"type":"prompt","text":"tidy"}`, nil)
	outs := outputs(run.evs)
	if len(outs) != 1 {
		t.Fatalf("want one tool result, got %q\nstderr:\n%s", outs, run.stderr)
	}
	for _, link := range []string{"dangling", "link.go"} {
		if !strings.Contains(outs[0], link+" (a symbolic link: undo restores what it points to, never the link itself)") {
			t.Errorf("the model is not told that %s will not come back: %q", link, outs[0])
		}
	}
}
