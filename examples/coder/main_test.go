package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
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
		{"a", approval.AllowSession, "", true},
		{"always", approval.AllowSession, "", true},
		{"", approval.Deny, "", true},
		{"n", approval.Deny, "", true},
		{"n: use make test", approval.Deny, "use make test", true},
		{"no:  why ", approval.Deny, "why", true},
		{"y: sure", 0, "", false}, // an allow carries no message: ask again
		{"yep", 0, "", false},
		{"rm -rf /", 0, "", false},
	} {
		resp, ok := parseAnswer(tc.in)
		if ok != tc.ok || (ok && (resp.Choice != tc.choice || resp.Message != tc.msg)) {
			t.Errorf("parseAnswer(%q) = %+v, %v", tc.in, resp, ok)
		}
	}
}

func TestInputDropsTypeAhead(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	in := newInput(r)
	// "y" is typed before any question: it must not answer the next one.
	fmt.Fprintln(w, "y")
	time.Sleep(50 * time.Millisecond) // let the reader pick it up
	shown := make(chan struct{})
	go func() {
		<-shown
		fmt.Fprintln(w, "n")
	}()
	var dropped []string
	got, err := in.answer(context.Background(), func() { close(shown) }, func(s string) { dropped = append(dropped, s) })
	if err != nil || got != "n" || len(dropped) != 1 || dropped[0] != "y" {
		t.Fatalf("answer = %q, %v, dropped %q; want the line typed after the question", got, err, dropped)
	}
	// A prompt keeps type-ahead: a task typed while the agent worked.
	fmt.Fprintln(w, "next task")
	time.Sleep(50 * time.Millisecond)
	if got, err := in.next(context.Background(), nil); err != nil || got != "next task" {
		t.Fatalf("next = %q, %v", got, err)
	}
	w.Close()
	if _, err := in.next(context.Background(), nil); err != errInputClosed {
		t.Fatalf("after EOF: %v", err)
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
	say("fix the greeting", "[n]o (n: tell the model why) ›")
	say("y", "wants to change a file")
	say("n", "Fixed the greeting")
	say("/keep", "kept")
	say("/undo", "nothing to undo: the changes of")
	say("/compact", "nothing to compact yet")
	say("/sessions", "/sessions ID switches")
	say("/mode review", "review ›")
	say("/bogus", "unknown command /bogus")
	fmt.Fprintln(w, "/quit")
	if code := <-done; code != 0 {
		t.Fatalf("exit %d", code)
	}
	if strings.Contains(out.String(), "\x1b[") {
		t.Error("escape sequences written to a pipe")
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "hello.txt")); string(b) != "Hello, world\n" {
		t.Errorf("hello.txt = %q after /keep", b)
	}
}

// pkgDir is the package directory, captured before tests change it.
var pkgDir, _ = os.Getwd()

func testdataDir(*testing.T) string { return filepath.Join(pkgDir, "testdata") }

func waitOut(t *testing.T, out *syncBuffer, s string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), s) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q in:\n%s", s, out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestTmux uses the coder as a person would: in a real terminal (tmux),
// typing keys and reading the screen. It checks the approval card (escaped
// command, severity, reasons, diff), /diff, a restart that resumes the
// session and undoes its checkpoint from the database, Ctrl-C cancelling
// a running command without leaving the program, /mode, /sessions, /quit.
func TestTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed; install it (apt-get install -y tmux) to run the terminal test")
	}
	if testing.Short() {
		t.Skip("-short")
	}
	tmp, err := os.MkdirTemp("", "tx") // short: tmux socket paths are limited
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "coder")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	ws := filepath.Join(tmp, "ws")
	os.Mkdir(ws, 0o755)
	if err := os.WriteFile(filepath.Join(ws, "hello.txt"), []byte("Helo, world\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(pkgDir, "testdata", "session.jsonl")
	db := filepath.Join(tmp, "coder.db")
	cmdline := func(extra string) string {
		return fmt.Sprintf("%s -model script:%s -db %s -log %s %s; echo EXITED:$?; sleep 60", bin, script, db, filepath.Join(tmp, "log"), extra)
	}
	tm := &tmux{t: t, sock: filepath.Join(tmp, "s")}
	defer tm.cmd("kill-server")

	tm.cmd("new-session", "-d", "-x", "180", "-y", "60", "-c", ws, cmdline(""))
	tm.waitFor("agent ›")
	tm.keys("fix the greeting", "Enter")
	screen := tm.waitFor("[n]o (n: tell the model why) ›")
	for _, want := range []string{"thinking", "✓ Edited hello.txt +1 −1", "run_terminal_command wants to run a command  [medium]", "│   echo checked > checked.txt", "redirects output into checked.txt"} {
		if !strings.Contains(screen, want) {
			t.Errorf("screen lacks %q:\n%s", want, screen)
		}
	}
	tm.keys("y", "Enter")
	screen = tm.waitFor("wants to change a file")
	for _, want := range []string{"✓ Ran `echo checked > checked.txt`", "write_file wants to change a file +1 −0  [high]", "may hold secrets", "+TOKEN=abc"} {
		if !strings.Contains(screen, want) {
			t.Errorf("screen lacks %q:\n%s", want, screen)
		}
	}
	tm.keys("n: no secrets in files", "Enter")
	tm.waitFor("── completed")
	if _, err := os.Stat(filepath.Join(ws, ".env")); err == nil {
		t.Error(".env written after a refusal")
	}
	tm.keys("/diff", "Enter")
	screen = tm.waitFor("2 file(s), +2 −1")
	if !strings.Contains(screen, "+Hello, world") || !strings.Contains(screen, "-Helo, world") {
		t.Errorf("diff:\n%s", screen)
	}
	tm.keys("/sessions", "Enter")
	id := regexp.MustCompile(`▸ (ses_[0-9a-f]+)`).FindStringSubmatch(tm.waitFor("/sessions ID switches"))
	if id == nil {
		t.Fatalf("no current session in:\n%s", tm.capture())
	}
	tm.keys("/quit", "Enter")
	tm.waitFor("EXITED:0")

	// Restart: resume the session and undo its checkpoint from the database.
	script = filepath.Join(pkgDir, "testdata", "resume.jsonl") // a new process plays its model from the start
	tm.cmd("respawn-pane", "-k", "-c", ws, cmdline("-session "+id[1]))
	tm.waitFor("session " + id[1])
	tm.keys("/undo", "Enter")
	tm.waitFor("undone cp_")
	if b, _ := os.ReadFile(filepath.Join(ws, "hello.txt")); string(b) != "Helo, world\n" {
		t.Errorf("hello.txt after /undo = %q", b)
	}
	if _, err := os.Stat(filepath.Join(ws, "checked.txt")); !os.IsNotExist(err) {
		t.Error("checked.txt, created by the approved command, survived /undo")
	}

	// A command hiding control characters is shown escaped, with a warning.
	tm.keys("say hi", "Enter")
	screen = tm.waitFor("[n]o (n: tell the model why) ›")
	for _, want := range []string{`│   echo hi \x1b[2K\u202etxt.exe`, "WARNING: hidden or control characters"} {
		if !strings.Contains(screen, want) {
			t.Errorf("screen lacks %q:\n%s", want, screen)
		}
	}
	tm.keys("n", "Enter")
	tm.waitFor("You declined")

	// Ctrl-C cancels the running command, not the program.
	tm.keys("wait for the build", "Enter")
	tm.waitFor("Running `sleep 30`")
	start := time.Now()
	tm.keys("C-c")
	tm.waitFor("task cancelled")
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("cancelling took %v", d)
	}
	tm.keys("/mode plan", "Enter")
	tm.waitFor("plan ›")
	tm.keys("C-c")
	tm.waitFor("(Ctrl-C cancels a running task")
	tm.keys("/quit", "Enter")
	tm.waitFor("EXITED:0")
}

type tmux struct {
	t    *testing.T
	sock string
}

func (x *tmux) cmd(args ...string) string {
	cmd := exec.Command("tmux", append([]string{"-S", x.sock}, args...)...)
	// Our own server on our own socket, even when the tests run inside tmux.
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "TMUX=") })
	out, err := cmd.CombinedOutput()
	if err != nil && args[0] != "kill-server" {
		x.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func (x *tmux) keys(keys ...string) { x.cmd(append([]string{"send-keys", "-t", "0"}, keys...)...) }

func (x *tmux) capture() string { return x.cmd("capture-pane", "-p", "-J", "-S", "-500", "-t", "0") }

// waitFor polls the screen until it shows s and returns it.
func (x *tmux) waitFor(s string) string {
	x.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		screen := x.capture()
		if strings.Contains(screen, s) {
			return screen
		}
		if time.Now().After(deadline) {
			x.t.Fatalf("the screen never showed %q:\n%s", s, screen)
		}
		time.Sleep(50 * time.Millisecond)
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
