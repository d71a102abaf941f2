package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// sleepers returns the pids of processes running `sleep arg`.
func sleepers(t *testing.T, arg string) []string {
	t.Helper()
	want := []byte("sleep\x00" + arg + "\x00")
	cmdlines, err := filepath.Glob("/proc/[0-9]*/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	var pids []string
	for _, p := range cmdlines {
		b, err := os.ReadFile(p)
		if err == nil && bytes.HasSuffix(b, want) {
			if stat, err := os.ReadFile(filepath.Join(filepath.Dir(p), "stat")); err == nil && strings.Contains(string(stat), ") Z ") {
				continue // a zombie has already died
			}
			pids = append(pids, filepath.Base(filepath.Dir(p)))
		}
	}
	return pids
}

// waitFor polls cond for up to 10 seconds.
func waitFor(cond func() bool) bool {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return cond()
}

// A cancel request ends the running prompt and the command it started
// (the sleep process dies), drops the prompt queued behind it, and leaves
// the gateway serving: the prompt sent after the cancel runs.
func TestCancelEndsTheRunningPrompt(t *testing.T) {
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip("needs /proc to see the command's process")
	}
	const arg = "297" // the script's `sleep 297`, unlikely to run elsewhere
	ws := project(t)
	flags := []string{"-workspace", ws, "-model", "script:testdata/cancel.jsonl", "-allow", "sleep"}
	sleeping := false
	finished := 0
	evs := interact(t, flags, `{"type":"prompt","text":"do the slow step"}`, func(e wireLine, in io.Writer) bool {
		switch e.str("type") {
		case "tool_action":
			if sleeping || e.str("status") != "running" {
				return false
			}
			if !waitFor(func() bool { return len(sleepers(t, arg)) > 0 }) {
				t.Error("the command's sleep process never started")
				return true
			}
			sleeping = true
			io.WriteString(in, `{"type":"prompt","text":"queued before the cancel"}`+"\n")
			io.WriteString(in, `{"type":"cancel"}`+"\n")
			io.WriteString(in, `{"type":"prompt","text":"after the cancel"}`+"\n")
		case "run_finished":
			finished++
			return finished == 2
		}
		return false
	})
	if !sleeping {
		t.Fatal("the command never ran")
	}
	if !waitFor(func() bool { return len(sleepers(t, arg)) == 0 }) {
		t.Errorf("sleep %s still running after the cancel: pids %v", arg, sleepers(t, arg))
	}
	runs := ofType(evs, "run_finished")
	if len(runs) != 2 {
		t.Fatalf("run_finished events = %v, want 2 (the cancelled prompt and the one after)", runs)
	}
	if runs[0].str("stop_reason") != "canceled" || !strings.Contains(runs[0].str("error"), "cancel request on line 3") {
		t.Errorf("cancelled run finished with %v, want stop_reason canceled naming the cancel's line", runs[0])
	}
	if runs[1].str("stop_reason") == "canceled" {
		t.Errorf("the prompt sent after the cancel was cancelled too: %v", runs[1])
	}
	errs := ofType(evs, "error")
	if len(errs) != 1 || errs[0]["line"] != float64(2) || !strings.Contains(errs[0].str("error"), "not run") {
		t.Errorf("error events = %v, want one saying the prompt on line 2 was not run", errs)
	}
}

// A cancel with nothing to cancel is an error event, and the gateway goes on.
func TestCancelWithNothingRunning(t *testing.T) {
	evs := session(t, project(t), "approve.jsonl", `{"type":"cancel"}`)
	errs := ofType(evs, "error")
	if len(errs) != 1 || !strings.Contains(errs[0].str("error"), "no prompt is running or waiting") {
		t.Errorf("error events = %v", errs)
	}
}
