package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetherdev/tether/internal/tmpfstest"
)

// A full disk, on real small file systems (a tmpfs of a fixed size, filled
// with a filler file), under the workspace and under the checkpoint store.
// The expectations were written before the runs, from these sources:
//   - SQLite, "How SQLite Is Tested" §4 (I/O error and disk-full testing):
//     when a write fails for want of space, the database is left as it was
//     before the transaction and stays usable once space returns.
//   - PostgreSQL's fsync error handling (the 2018 "fsyncgate" thread,
//     "PostgreSQL's handling of fsync() errors is unsafe and risks data
//     loss"): an error from the storage must stop the operation that
//     depends on it, never be retried into a claimed success.
//   - Dan Luu, "Files are hard", and editors' atomic save (vim's
//     'backupcopy', Sublime Text's atomic_save): a save that fails for
//     want of space leaves the old file whole, creates no empty file and
//     leaves no partial temporary file.
//   - Issue 32: nothing may change a file out of undo's reach; a command
//     whose pre-image cannot be saved does not run.

// bigBody returns n bytes that do not compress, different per seed.
func bigBody(seed uint64, n int) string {
	r := rand.New(rand.NewPCG(seed, seed))
	const letters = "abcdefghijklmnopqrstuvwxyz0123456789\n"
	b := make([]byte, n)
	for i := range b {
		b[i] = letters[r.IntN(len(letters))]
	}
	return string(b)
}

// turnsScript writes a script of turns, each a list of tool calls (name,
// arguments), ending with a final message.
func turnsScript(t *testing.T, turns ...[]any) string {
	t.Helper()
	var b bytes.Buffer
	line := func(v any) {
		j, _ := json.Marshal(v)
		b.Write(append(j, '\n'))
	}
	line(map[string]any{"capabilities": map[string]any{"tools": true}})
	for i, calls := range turns {
		line(map[string]any{"content": fmt.Sprintf("Step %d.", i+1), "tool_calls": calls})
	}
	line(map[string]any{"content": "Done. [TASK_COMPLETE]"})
	p := filepath.Join(t.TempDir(), "script.jsonl")
	must(t, os.WriteFile(p, b.Bytes(), 0o644))
	return p
}

func call(name string, args map[string]any) map[string]any {
	return map[string]any{"name": name, "arguments": args}
}

// tempsIn lists the temporary files of atomic writes under dir.
func tempsIn(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".tether-") {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// finalOf returns the final tool_action of each call, by call order.
func outputs(evs []wireLine) []string {
	var out []string
	for _, e := range finalActions(evs) {
		out = append(out, e.str("status")+": "+e.str("output"))
	}
	return out
}

// The workspace's disk fills: a write that does not fit leaves the file
// byte for byte as it was, creates nothing and leaves no temporary file;
// the model is told the disk is full, and the run goes on to its end.
func TestWorkspaceDiskFull(t *testing.T) {
	for _, tc := range []struct {
		name  string
		leave int64 // bytes left free
	}{
		{"no space at all", 0},
		{"room for part of the write", 16 << 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := tmpfstest.Mount(t, 512<<10)
			must(t, os.WriteFile(filepath.Join(ws, "main.go"), []byte(mainGo), 0o644))
			must(t, os.WriteFile(filepath.Join(ws, "run.sh"), []byte("#!/bin/sh\n"), 0o755))
			free := tmpfstest.Fill(t, ws, tc.leave)
			before := treeState(t, ws)
			script := turnsScript(t,
				[]any{call("write_file", map[string]any{"path": "main.go", "content": bigBody(1, 96<<10)})},
				[]any{call("write_file", map[string]any{"path": "new/big.txt", "content": bigBody(2, 96<<10)})},
				[]any{call("write_file", map[string]any{"path": "run.sh", "content": bigBody(3, 96<<10)})},
			)
			db := filepath.Join(t.TempDir(), "cp.db")
			run := drive(t, binary, nil, []string{"-workspace", ws, "-model", "script:" + script, "-db", db}, `{"type":"prompt","text":"write"}`, nil)
			if !run.state.Success() || len(ofType(run.evs, "run_finished")) != 1 {
				t.Fatalf("the run did not go on to its end: %v\nstderr:\n%s", run.state, run.stderr)
			}
			outs := outputs(run.evs)
			if len(outs) != 3 {
				t.Fatalf("want 3 tool results, got %q", outs)
			}
			for _, o := range outs {
				if !strings.HasPrefix(o, "error: ") || !strings.Contains(o, "no space left on device") {
					t.Errorf("the model is not told the disk is full: %q", o)
				}
			}
			if d := diffState(before, treeState(t, ws)); d != "" {
				t.Errorf("the workspace changed:\n%s", d)
			}
			if tmp := tempsIn(t, ws); len(tmp) > 0 {
				t.Errorf("temporary files left: %v", tmp)
			}
			// Space returns: the same run's writes now succeed.
			free()
			again := drive(t, binary, nil, []string{"-workspace", ws, "-model", "script:" + script, "-db", db}, `{"type":"prompt","text":"write"}`, nil)
			for _, o := range outputs(again.evs) {
				if strings.HasPrefix(o, "error") {
					t.Errorf("after space returned a write still failed: %q", o)
				}
			}
		})
	}
}

// A command writing a file fails halfway for want of space and leaves it
// truncated; undo, refused while the disk is full, leaves it as it is
// with a clear error, and restores it byte for byte once space returns.
func TestWorkspaceDiskFullCommandIsUndone(t *testing.T) {
	ws := tmpfstest.Mount(t, 512<<10)
	must(t, os.WriteFile(filepath.Join(ws, "main.go"), []byte(mainGo), 0o644))
	src := t.TempDir() // the command's input, off the small disk
	must(t, os.WriteFile(filepath.Join(src, "big.txt"), []byte(bigBody(4, 256<<10)), 0o644))
	before := treeState(t, ws)
	free := tmpfstest.Fill(t, ws, 32<<10)
	script := turnsScript(t, []any{call("run_terminal_command", map[string]any{"command": "cat " + filepath.Join(src, "big.txt") + " > main.go"})})
	db := filepath.Join(t.TempDir(), "cp.db")
	flags := []string{"-workspace", ws, "-model", "script:" + script, "-db", db, "-approvals", "stdin"}
	run := drive(t, binary, nil, flags, `{"type":"prompt","text":"copy"}`, nil)
	if !run.state.Success() || len(ofType(run.evs, "run_finished")) != 1 {
		t.Fatalf("the run did not finish: %v\nstderr:\n%s", run.state, run.stderr)
	}
	id := run.checkpointID()
	if got := readFile(t, filepath.Join(ws, "main.go")); got == mainGo || len(got) >= 256<<10 {
		t.Fatalf("the command did not fail halfway (main.go is %d bytes)", len(got))
	}
	truncated := treeState(t, ws)

	undo := drive(t, binary, nil, flags, fmt.Sprintf(`{"type":"undo","checkpoint":%q}`, id), nil)
	u := append(ofType(undo.evs, "undo_finished"), ofType(undo.evs, "error")...)
	if len(u) != 1 || !strings.Contains(fmt.Sprint(u[0]), "no space left on device") {
		t.Errorf("undo on the full disk: want a clear error naming the full disk, got %v", undo.evs)
	}
	if d := diffState(truncated, treeState(t, ws)); d != "" {
		t.Errorf("the failed undo changed the workspace:\n%s", d)
	}
	free()
	undo = drive(t, binary, nil, flags, fmt.Sprintf(`{"type":"undo","checkpoint":%q}`, id), nil)
	if u := ofType(undo.evs, "undo_finished"); len(u) != 1 || u[0].str("error") != "" {
		t.Fatalf("undo once space returned: %v\nstderr:\n%s", undo.evs, undo.stderr)
	}
	if d := diffState(before, treeState(t, ws)); d != "" {
		t.Errorf("workspace after undo differs from before the run:\n%s", d)
	}
}

// The checkpoint store's disk fills in the middle of a run. A command
// whose pre-image cannot be saved does not run, a file write whose
// pre-image cannot be saved is refused, the model is told why each time,
// and the run goes on to its end. Once space returns the store works
// (it was not left broken) and undo takes the run back byte for byte.
func TestStoreDiskFull(t *testing.T) {
	store := tmpfstest.Mount(t, 4<<20)
	ws := project(t)
	// Larger than all the store held before the disk filled: its
	// pre-image cannot fit in space SQLite already has (free pages, a WAL
	// file it reuses), so the full disk is what refuses it, whenever
	// SQLite checkpoints.
	data := bigBody(5, 1<<20)
	must(t, os.WriteFile(filepath.Join(ws, "data.txt"), []byte(data), 0o644))
	before := treeState(t, ws)
	script := turnsScript(t,
		[]any{call("write_file", map[string]any{"path": "note.txt", "content": "started\n"})},
		[]any{call("run_terminal_command", map[string]any{"command": "echo changed > data.txt && echo ran > ran.txt"})},
		[]any{call("write_file", map[string]any{"path": "data.txt", "content": "rewritten\n"})},
	)
	db := filepath.Join(store, "cp.db")
	flags := []string{"-workspace", ws, "-model", "script:" + script, "-db", db, "-approvals", "stdin"}
	var free func()
	run := drive(t, binary, nil, flags, `{"type":"prompt","text":"go"}`, func(e wireLine) bool {
		// The store fills after the first write, as the command waits
		// for its approval (answered just after this).
		if e.str("type") == "approval_requested" && free == nil {
			free = tmpfstest.Fill(t, store, 0)
		}
		return false
	})
	if free == nil {
		t.Fatal("the command was never submitted for approval")
	}
	if !run.state.Success() || len(ofType(run.evs, "run_finished")) != 1 {
		t.Fatalf("the run did not go on to its end: %v\nstderr:\n%s", run.state, run.stderr)
	}
	outs := outputs(run.evs)
	if len(outs) != 3 {
		t.Fatalf("want 3 tool results, got %q", outs)
	}
	if !strings.HasPrefix(outs[1], "error: Not run:") || !strings.Contains(outs[1], "data.txt") {
		t.Errorf("the command whose pre-image could not be saved: %q", outs[1])
	}
	if !strings.HasPrefix(outs[2], "error: Not changed:") || !strings.Contains(outs[2], "data.txt") {
		t.Errorf("the write whose pre-image could not be saved: %q", outs[2])
	}
	if _, err := os.Stat(filepath.Join(ws, "ran.txt")); err == nil {
		t.Error("the command ran")
	}
	if got := readFile(t, filepath.Join(ws, "data.txt")); got != data {
		t.Errorf("data.txt changed (%d bytes)", len(got))
	}
	id := run.checkpointID()
	if id == "" {
		t.Fatal("the first write reported no checkpoint")
	}

	free()
	undo := drive(t, binary, nil, flags, fmt.Sprintf(`{"type":"undo","checkpoint":%q}`, id), nil)
	if u := ofType(undo.evs, "undo_finished"); len(u) != 1 || u[0].str("error") != "" {
		t.Fatalf("undo once space returned: %v\nstderr:\n%s", undo.evs, undo.stderr)
	}
	if d := diffState(before, treeState(t, ws)); d != "" {
		t.Errorf("workspace after undo differs from before the run:\n%s", d)
	}
	// The store takes new work.
	again := drive(t, binary, nil, flags, `{"type":"prompt","text":"go"}`, nil)
	if outs := outputs(again.evs); len(outs) != 3 || !strings.HasPrefix(outs[2], "success") {
		t.Errorf("after space returned: %q\nstderr:\n%s", outs, again.stderr)
	}
}

// The store's disk is full when the agent starts on an existing store:
// it either serves (nothing needed writing) or stops with an error naming
// the store; it never hangs or runs a change outside undo.
func TestStoreDiskFullAtStart(t *testing.T) {
	store := tmpfstest.Mount(t, 512<<10)
	ws := project(t)
	db := filepath.Join(store, "cp.db")
	script := turnsScript(t, []any{call("write_file", map[string]any{"path": "note.txt", "content": "x\n"})})
	flags := []string{"-workspace", ws, "-model", "script:" + script, "-db", db}
	first := drive(t, binary, nil, flags, `{"type":"undo","checkpoint":"none"}`, nil)
	if !first.state.Success() {
		t.Fatalf("creating the store: %v\n%s", first.state, first.stderr)
	}
	tmpfstest.Fill(t, store, 0)
	before := treeState(t, ws)
	run := drive(t, binary, nil, flags, `{"type":"prompt","text":"go"}`, nil)
	if !run.state.Success() {
		if !strings.Contains(run.stderr, "checkpoint") {
			t.Errorf("stopped without naming the store: %v\n%s", run.state, run.stderr)
		}
		return
	}
	outs := outputs(run.evs)
	if len(outs) != 1 || !strings.HasPrefix(outs[0], "error: Not changed:") {
		t.Errorf("a write with a full store: %q", outs)
	}
	if d := diffState(before, treeState(t, ws)); d != "" {
		t.Errorf("the workspace changed outside undo:\n%s", d)
	}
}
