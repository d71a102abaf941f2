package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// updating reports -update, the flag teatest's golden package defines
// (this package's tests import it), which also rewrites our screens.
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// TestTerminal uses the built coder as a person would, in a real terminal
// (tmux, 100×30), typing keys and reading the screen: a streamed Markdown
// answer, an approval allowed and one refused with a message, @file
// completion, a per-hunk review that keeps one hunk and rejects another,
// /undo of the earlier of two checkpoints, Esc cancelling a long command
// (no process left) after showing its output live, two Ctrl-C quitting, and the session resumed with its
// transcript after a restart. The screens that matter are golden files.
func TestTerminal(t *testing.T) {
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
	list, _ := os.ReadFile(filepath.Join(pkgDir, "testdata", "list.txt"))
	writeFile(t, filepath.Join(ws, "hello.txt"), "Helo, world\n")
	writeFile(t, filepath.Join(ws, "list.txt"), string(list))
	script := filepath.Join(pkgDir, "testdata", "e2e.jsonl")
	db := filepath.Join(tmp, "coder.db")
	cmdline := func(extra string) string {
		// HOME=tmp: the status line shows the workspace as ~/ws, whatever TMPDIR is.
		return fmt.Sprintf("HOME=%s %s -model script:%s -db %s -log %s %s; echo EXITED:$?; sleep 60", tmp, bin, script, db, filepath.Join(tmp, "log"), extra)
	}
	tm := &tmux{t: t, sock: filepath.Join(tmp, "s"), masks: []string{tmp}}
	defer tm.cmd("kill-server")
	tm.cmd("new-session", "-d", "-x", "100", "-y", "30", "-c", ws, cmdline(""))
	tm.waitFor("Type a task")

	// A task: the command is allowed once, the secret file refused with a
	// message, and the answer streams in as Markdown.
	tm.keys("fix the greeting", "Enter")
	tm.golden("approval_command", tm.waitSettled("[y] allow once"))
	tm.keys("y")
	screen := tm.waitFor("write_file wants to change a file")
	for _, want := range []string{"severity high", "may hold secrets", "+TOKEN=abc", "[s] allow for this session"} {
		if !strings.Contains(screen, want) {
			t.Errorf("file card lacks %q:\n%s", want, screen)
		}
	}
	tm.keys("n")
	tm.waitFor("tell the model:")
	tm.keys("no secrets in files", "Enter")
	screen = tm.waitSettled("── completed")
	tm.golden("answer", screen)
	if strings.Contains(screen, "**") || !strings.Contains(screen, "Fixed the greeting in") {
		t.Errorf("the answer is not rendered Markdown:\n%s", screen)
	}
	if _, err := os.Stat(filepath.Join(ws, ".env")); err == nil {
		t.Error(".env written after a refusal")
	}
	if _, err := os.Stat(filepath.Join(ws, "checked.txt")); err != nil {
		t.Errorf("the allowed command did not run: %v", err)
	}

	// A second task with an @file attachment completed by Tab.
	tm.keys("tidy the list @li")
	tm.waitFor("@list.txt")
	tm.keys("Tab")
	tm.waitFor("tidy the list @list.txt")
	tm.keys("Enter")
	tm.waitFor("Spelled out two items")

	// Review: keep the first hunk of list.txt, reject the second.
	tm.keys("/review", "Enter")
	tm.waitFor("Review · file 1/3")
	tm.keys("Right", "Right")
	tm.golden("review", tm.waitSettled("file 3/3 list.txt"))
	tm.keys("a")
	tm.waitFor("hunk 1/1")
	tm.keys("r")
	tm.waitFor("file 2/2")
	tm.keys("Escape")
	tm.waitFor("review: 1 accepted, 1 rejected")
	got, _ := os.ReadFile(filepath.Join(ws, "list.txt"))
	if want := strings.Replace(string(list), "item 2\n", "item two\n", 1); string(got) != want {
		t.Errorf("list.txt after the review:\n%s\nwant:\n%s", got, want)
	}

	// Undo the earlier checkpoint only: the greeting task.
	tm.keys("/undo", "Enter")
	tm.golden("undo", tm.waitSettled("Undo · checkpoints"))
	tm.keys("Up", "Enter")
	tm.waitFor("undone cp_")
	if b, _ := os.ReadFile(filepath.Join(ws, "hello.txt")); string(b) != "Helo, world\n" {
		t.Errorf("hello.txt after /undo = %q", b)
	}
	if _, err := os.Stat(filepath.Join(ws, "checked.txt")); !os.IsNotExist(err) {
		t.Error("checked.txt, created by the allowed command, survived /undo")
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "list.txt")); !strings.Contains(string(b), "item two") {
		t.Error("/undo of the earlier checkpoint reverted the later one")
	}

	// Esc cancels a long command and kills it.
	tm.keys("wait for the build", "Enter")
	tm.waitFor("│ started") // its output, live
	waitUntil(t, "the command to start", func() bool { return processes(ws, "sleep 37$") != "" })
	start := time.Now()
	tm.keys("Escape")
	tm.waitFor("task cancelled")
	if d := time.Since(start); d > 30*time.Second { // the command sleeps 37 s
		t.Errorf("cancelling took %v", d)
	}
	waitUntil(t, "the command's processes to die", func() bool { return processes(ws, "sleep 37$") == "" })

	// Two Ctrl-C on an empty prompt quit; the session resumes with its transcript.
	id := regexp.MustCompile(`ses_[0-9a-f]+`).FindString(tm.capture())
	if id == "" {
		t.Fatalf("no session id on the status line:\n%s", tm.capture())
	}
	tm.keys("C-c")
	tm.waitFor("press Ctrl-C again to quit")
	tm.keys("C-c")
	tm.waitFor("EXITED:0")
	tm.cmd("respawn-pane", "-k", "-c", ws, cmdline("-session "+id))
	screen = tm.waitFor("resumed session " + id)
	for _, want := range []string{"› wait for the build", "cancelled: the command and its child processes were killed", "› tidy the list @list.txt"} {
		if !strings.Contains(screen, want) {
			t.Errorf("resumed transcript lacks %q:\n%s", want, screen)
		}
	}
	tm.keys("PageUp", "PageUp")
	tm.waitFor("› fix the greeting")
	tm.keys("/quit", "Enter")
	tm.waitFor("EXITED:0")
}

func writeFile(t *testing.T, name, content string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// processes lists the processes whose command line matches pattern,
// from /proc (Linux, like tmux here), so no pgrep is needed.
// processes lists the processes running in dir (or below it) whose
// command line matches pattern. Matching on the directory keeps other
// test runs on the same machine, which run the same commands, out.
func processes(dir, pattern string) string {
	re := regexp.MustCompile(pattern)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	var found []string
	files, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, f := range files {
		cwd, err := os.Readlink(filepath.Join(filepath.Dir(f), "cwd"))
		if err != nil || (cwd != dir && !strings.HasPrefix(cwd, dir+string(filepath.Separator))) {
			continue
		}
		b, err := os.ReadFile(f)
		if cmd := strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " ")); err == nil && re.MatchString(cmd) {
			found = append(found, filepath.Base(filepath.Dir(f))+" "+cmd)
		}
	}
	return strings.Join(found, "\n")
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

type tmux struct {
	t     *testing.T
	sock  string
	masks []string // paths replaced by $TMP in golden screens
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

func (x *tmux) capture() string { return x.cmd("capture-pane", "-p", "-t", "0") }

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

// waitSettled is waitFor for a screen compared with a golden file: it
// returns once the screen shows s and two captures 150 ms apart are the
// same, so a frame still being drawn (the line that shows s comes before
// the spinner's line goes) is never what is compared.
func (x *tmux) waitSettled(s string) string {
	x.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	prev := ""
	for {
		screen := x.capture()
		if strings.Contains(screen, s) && screen == prev {
			return screen
		}
		if time.Now().After(deadline) {
			x.t.Fatalf("the screen never settled showing %q:\n%s", s, screen)
		}
		prev = screen
		time.Sleep(150 * time.Millisecond)
	}
}

// unstable are the parts of a screen that change from run to run.
var unstable = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`ses_[0-9a-f]+`), "ses_ID"},
	{regexp.MustCompile(`cp_[0-9a-f]+`), "cp_ID"},
	{regexp.MustCompile(`[0-9.]+k? tok(ens)?`), "N tok$1"},
	{regexp.MustCompile(`in (\d+m)?\d+s *`), "in Ns "}, // and the padding, whose width varies with it
	{regexp.MustCompile(`thought for ([0-9.]+m?s|a moment)`), "thought for Ns"},
}

// golden compares a screen with testdata/screens/name.golden after
// masking paths, ids, token counts and durations; -update rewrites it.
func (x *tmux) golden(name, screen string) {
	x.t.Helper()
	for _, m := range x.masks {
		screen = strings.ReplaceAll(screen, m, "$TMP")
	}
	for _, u := range unstable {
		screen = u.re.ReplaceAllString(screen, u.with)
	}
	// A masked line may be shorter or longer than the box it sits in.
	lines := strings.Split(screen, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	screen = strings.Join(lines, "\n")
	file := filepath.Join(pkgDir, "testdata", "screens", name+".golden")
	if updating() {
		os.MkdirAll(filepath.Dir(file), 0o755)
		if err := os.WriteFile(file, []byte(screen), 0o644); err != nil {
			x.t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		x.t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(want) != screen {
		x.t.Errorf("screen %s differs from %s:\n--- got\n%s\n--- want\n%s", name, file, screen, want)
	}
}
