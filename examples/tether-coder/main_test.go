package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tetherdev/tether/approval"
)

func TestParseAnswer(t *testing.T) {
	for _, tc := range []struct {
		in     string
		choice approval.Choice
		msg    string
		ok     bool
	}{
		{"y", approval.AllowOnce, "", true},
		{" YES ", approval.AllowOnce, "", true},
		{"s", approval.AllowSession, "", true},
		{"session", approval.AllowSession, "", true},
		{"", approval.Deny, "", true},
		{"n", approval.Deny, "", true},
		{"n: use make test", approval.Deny, "use make test", true},
		{"no:  why ", approval.Deny, "why", true},
		{"y: sure", 0, "", false}, // an allow carries no message: ask again
		{"yep", 0, "", false},
		{"rm -rf /", 0, "", false},
	} {
		resp, ok := parseAnswer(tc.in, false)
		if ok != tc.ok || (ok && (resp.Choice != tc.choice || resp.Message != tc.msg)) {
			t.Errorf("parseAnswer(%q) = %+v, %v", tc.in, resp, ok)
		}
	}
}

func TestFlags(t *testing.T) {
	for _, args := range [][]string{{}, {"-model", "script:x", "-mode", "yolo"}, {"-model", "script:x", "dir"}} {
		var stderr bytes.Buffer
		if code := run(args, strings.NewReader(""), &bytes.Buffer{}, &stderr); code != 2 || stderr.Len() == 0 {
			t.Errorf("%v: exit %d, %q", args, code, stderr.String())
		}
	}
	var stderr bytes.Buffer
	if code := run([]string{"-model", "script:testdata/none.jsonl", "-db", ":memory:", "-log", ""}, strings.NewReader(""), &bytes.Buffer{}, &stderr); code != 1 || !strings.Contains(stderr.String(), "none.jsonl") {
		t.Errorf("missing script: exit %d, %q", code, stderr.String())
	}
}

// TestPiped drives the coder through a pipe (no terminal): no colours, no
// spinner frames, and the whole flow still works.
func TestPiped(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "hello.txt"), []byte("Helo, world\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(ws)
	script, _ := filepath.Abs(filepath.Join(testdataDir(t), "session.jsonl"))
	r, w, _ := os.Pipe()
	var out syncBuffer
	done := make(chan int)
	go func() {
		done <- run([]string{"-model", "script:" + script, "-db", ":memory:", "-log", ""}, r, &out, &out)
	}()
	say := func(line, waitFor string) {
		t.Helper()
		fmt.Fprintln(w, line)
		deadline := time.Now().Add(10 * time.Second)
		for !strings.Contains(out.String(), waitFor) {
			if time.Now().After(deadline) {
				t.Fatalf("after %q, no %q in:\n%s", line, waitFor, out.String())
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	waitOut(t, &out, "agent ›")
	say("fix the greeting", "y / s / n[: why] ›")
	say("y", "wants to change a file")
	say("n: no secrets", "Fixed the greeting")
	say("/review", "Review · file 1/2 hello.txt")
	say("a", "Review · file 1/1 checked.txt")
	say("R", "review: 1 accepted, 1 rejected")
	say("/keep", "kept")
	say("/undo", "/undo N or /undo ID undoes one")
	say("/undo 1", "nothing to undo: the changes of")
	say("/compact", "nothing to compact yet")
	say("/sessions", "/resume ID opens")
	say("/mode review", "mode review")
	say("/bogus", "unknown command /bogus")
	fmt.Fprintln(w, "/quit")
	if code := <-done; code != 0 {
		t.Fatalf("exit %d", code)
	}
	if strings.Contains(out.String(), "\x1b[") {
		t.Error("escape sequences written to a pipe")
	}
	// Typed lines have no arrows and no Esc: no card or list offers them.
	for _, key := range []string{"esc", "↑/↓"} {
		if strings.Contains(out.String(), key) {
			t.Errorf("plain output offers %q, a key that does nothing there:\n%s", key, out.String())
		}
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "hello.txt")); string(b) != "Hello, world\n" {
		t.Errorf("hello.txt = %q after its hunk was accepted", b)
	}
	if _, err := os.Stat(filepath.Join(ws, "checked.txt")); !os.IsNotExist(err) {
		t.Error("checked.txt survived being rejected in the review")
	}
}

// pkgDir is the package directory, captured before tests change it.
var pkgDir, _ = os.Getwd()

func testdataDir(*testing.T) string { return filepath.Join(pkgDir, "testdata") }

func waitOut(t *testing.T, out *syncBuffer, s string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(out.String(), s) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q in:\n%s", s, out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// syncBuffer is a bytes.Buffer safe for the coder and the test at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
