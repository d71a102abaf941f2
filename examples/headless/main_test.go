package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tetherdev/tether/examples/internal/mcpmount/mcpmounttest"
)

// These tests build the real binary and drive it through its standard
// input and output, as a host would, then check the events it wrote and
// the files on disk.

var binary string

func TestMain(m *testing.M) {
	mcpmounttest.ServeIfAsked() // this binary is also the tests' MCP server
	dir, err := os.MkdirTemp("", "headless-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// The user's own settings stay out of the tests.
	os.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	binary = filepath.Join(dir, "headless")
	if out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building headless: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

const (
	greetGo = "package main\n\nfunc Greet(n string) string { return \"hi \" + n }\n"
	mainGo  = "package main\n\nfunc main() { println(Greet(\"world\")) }\n"
)

// project makes a small workspace.
func project(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range map[string]string{"greet.go": greetGo, "main.go": mainGo} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// wireLine is one decoded JSON line of the gateway's output.
type wireLine map[string]any

func (e wireLine) str(k string) string { s, _ := e[k].(string); return s }

// session runs the binary with the script and the request lines and
// returns its events.
func session(t *testing.T, ws, script string, requests ...string) []wireLine {
	t.Helper()
	cmd := exec.Command(binary, "-workspace", ws, "-model", "script:"+filepath.Join("testdata", script))
	cmd.Stdin = strings.NewReader(strings.Join(requests, "\n") + "\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("headless: %v\nstderr:\n%s", err, stderr.String())
	}
	return parseEvents(t, out)
}

func parseEvents(t *testing.T, out []byte) []wireLine {
	t.Helper()
	var evs []wireLine
	for _, line := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
		var e wireLine
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatalf("output line is not JSON: %q: %v", line, err)
		}
		if e.str("type") == "" {
			t.Fatalf("event without a type: %s", line)
		}
		evs = append(evs, e)
	}
	return evs
}

func ofType(evs []wireLine, typ string) []wireLine {
	var out []wireLine
	for _, e := range evs {
		if e.str("type") == typ {
			out = append(out, e)
		}
	}
	return out
}

// finalActions returns the tool_action events with a final status.
func finalActions(evs []wireLine) []wireLine {
	var out []wireLine
	for _, e := range ofType(evs, "tool_action") {
		if s := e.str("status"); s != "running" && s != "pending" {
			out = append(out, e)
		}
	}
	return out
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestRefusesRmRfHome(t *testing.T) {
	home := t.TempDir()
	canary := filepath.Join(home, "canary")
	if err := os.WriteFile(canary, []byte("still here"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws := project(t)
	cmd := exec.Command(binary, "-workspace", ws, "-model", "script:testdata/rm_home.jsonl")
	cmd.Env = append(os.Environ(), "HOME="+home)
	cmd.Stdin = strings.NewReader(`{"type":"prompt","text":"clean up the disk"}` + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("headless: %v", err)
	}
	evs := parseEvents(t, out)
	acts := finalActions(evs)
	if len(acts) != 1 || acts[0].str("status") != "denied" || !strings.Contains(acts[0].str("detail"), "critical") {
		t.Fatalf("want one denied critical command, got %v", acts)
	}
	if len(ofType(evs, "approval_requested")) != 0 {
		t.Error("a gateway with no human must not ask")
	}
	if got := readFile(t, canary); got != "still here" {
		t.Errorf("canary in HOME = %q", got)
	}
	if f := ofType(evs, "run_finished"); len(f) != 1 || f[0].str("stop_reason") != "completed" {
		t.Errorf("run_finished = %v", f)
	}
}

func TestRefusesWriteToDotEnv(t *testing.T) {
	ws := project(t)
	evs := session(t, ws, "env_write.jsonl", `{"type":"prompt","text":"add my API key to .env"}`)
	acts := finalActions(evs)
	if len(acts) != 1 || acts[0].str("tool") != "write_file" || acts[0].str("status") != "denied" || !strings.Contains(acts[0].str("detail"), ".env") {
		t.Fatalf("want the .env write denied, got %v", acts)
	}
	if _, err := os.Stat(filepath.Join(ws, ".env")); !os.IsNotExist(err) {
		t.Errorf(".env exists after a refused write (stat: %v)", err)
	}
	if len(ofType(evs, "files_changed")) != 0 {
		t.Error("files_changed reported for a refused write")
	}
}

func TestMultiFileEditAndUndo(t *testing.T) {
	ws := project(t)
	evs := session(t, ws, "multi_edit.jsonl", `{"type":"prompt","text":"rename Greet to Hello"}`)
	final := ofType(evs, "files_changed")
	if len(final) == 0 || final[len(final)-1]["final"] != true {
		t.Fatalf("no final files_changed in %v", evs)
	}
	fc := final[len(final)-1]
	if fc["added"] != 3.0 || fc["removed"] != 2.0 || len(fc["files"].([]any)) != 3 {
		t.Errorf("files_changed = %v, want 3 files +3 −2", fc)
	}
	id := fc.str("checkpoint_id")
	if !strings.Contains(readFile(t, filepath.Join(ws, "greet.go")), "func Hello(") ||
		!strings.Contains(readFile(t, filepath.Join(ws, "main.go")), `Hello("world")`) ||
		readFile(t, filepath.Join(ws, "NOTES.md")) != "Greet is now Hello.\n" {
		t.Fatal("the edits are not on disk")
	}

	// A new gateway process cannot undo an in-memory checkpoint of another:
	// it must say so, not pretend.
	evs = session(t, ws, "multi_edit.jsonl", `{"type":"undo","checkpoint":"`+id+`"}`)
	if errs := ofType(evs, "error"); len(errs) != 1 || errs[0]["line"] != 1.0 {
		t.Fatalf("undo of an unknown checkpoint: %v", evs)
	}

	// Edit and undo in one session, by id.
	ws = project(t)
	evs = session(t, ws, "multi_edit.jsonl", `{"type":"prompt","text":"rename Greet to Hello"}`)
	id = ofType(evs, "run_finished")[0].str("checkpoint_id")
	if id == "" {
		t.Fatal("run_finished has no checkpoint_id")
	}
	// Replay the same session with the undo appended.
	ws = project(t)
	evs = session(t, ws, "multi_edit.jsonl", `{"type":"prompt","text":"rename Greet to Hello"}`, `{"type":"undo"}`)
	undo := ofType(evs, "undo_finished")
	if len(undo) != 1 || undo[0].str("error") != "" {
		t.Fatalf("undo_finished = %v", undo)
	}
	if r := fmt.Sprint(undo[0]["restored"], undo[0]["removed"]); r != "[main.go greet.go] [NOTES.md]" && r != "[greet.go main.go] [NOTES.md]" {
		t.Errorf("undo restored/removed = %s", r)
	}
	if readFile(t, filepath.Join(ws, "greet.go")) != greetGo || readFile(t, filepath.Join(ws, "main.go")) != mainGo {
		t.Error("files not restored")
	}
	if _, err := os.Stat(filepath.Join(ws, "NOTES.md")); !os.IsNotExist(err) {
		t.Error("NOTES.md, created by the run, survived the undo")
	}
}

func TestPersistentCheckpointsUndoAcrossRestarts(t *testing.T) {
	ws := project(t)
	db := filepath.Join(t.TempDir(), "cp.db")
	run := func(req string) []wireLine {
		cmd := exec.Command(binary, "-workspace", ws, "-model", "script:testdata/multi_edit.jsonl", "-db", db)
		cmd.Stdin = strings.NewReader(req + "\n")
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		return parseEvents(t, out)
	}
	id := ofType(run(`{"type":"prompt","text":"rename Greet to Hello"}`), "run_finished")[0].str("checkpoint_id")
	evs := run(`{"type":"undo","checkpoint":"` + id + `"}`)
	if u := ofType(evs, "undo_finished"); len(u) != 1 || u[0].str("error") != "" {
		t.Fatalf("undo after restart: %v", evs)
	}
	if readFile(t, filepath.Join(ws, "greet.go")) != greetGo {
		t.Error("greet.go not restored")
	}
}

func TestReadOnlyPlan(t *testing.T) {
	ws := project(t)
	evs := session(t, ws, "plan.jsonl", `{"type":"prompt","text":"plan renaming Greet","mode":"plan"}`)
	start := ofType(evs, "run_started")
	if len(start) != 1 || start[0].str("mode") != "plan" {
		t.Fatalf("run_started = %v", start)
	}
	for _, tool := range start[0]["tools"].([]any) {
		if tool == "write_file" || tool == "run_terminal_command" {
			t.Errorf("plan mode offers %v", tool)
		}
	}
	acts := finalActions(evs)
	if len(acts) != 2 || acts[0].str("status") != "success" || acts[1].str("status") != "denied" {
		t.Fatalf("want the read to succeed and the write refused: %v", acts)
	}
	if readFile(t, filepath.Join(ws, "greet.go")) != greetGo {
		t.Error("plan mode changed greet.go")
	}
	fm := ofType(evs, "final_message")
	if len(fm) != 1 || !strings.HasPrefix(fm[0].str("text"), "Plan:") {
		t.Errorf("final_message = %v", fm)
	}
	if len(ofType(evs, "files_changed")) != 0 {
		t.Error("a plan changed files")
	}
}

// TestHostAnswersApprovals plays a host over pipes: it waits for each
// approval_requested, allows the first command and denies the second.
func TestHostAnswersApprovals(t *testing.T) {
	ws := project(t)
	cmd := exec.Command(binary, "-workspace", ws, "-model", "script:testdata/approve.jsonl", "-approvals", "stdin")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	io.WriteString(in, `{"type":"prompt","text":"run the tests, then clean up"}`+"\n")

	var evs []wireLine
	sc := bufio.NewScanner(outPipe)
	sc.Buffer(nil, 1<<20)
	asked := 0
	timer := time.AfterFunc(30*time.Second, func() { cmd.Process.Kill() })
	defer timer.Stop()
	for sc.Scan() {
		var e wireLine
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("bad line %q", sc.Text())
		}
		evs = append(evs, e)
		switch e.str("type") {
		case "approval_requested":
			asked++
			decision := "allow"
			if asked == 2 {
				decision = "deny"
			}
			d := e["display"].(map[string]any)
			if d["kind"] != "command" || !strings.HasPrefix(d["subject"].(string), "echo ") {
				t.Errorf("approval display = %v", d)
			}
			fmt.Fprintf(in, `{"type":"approve","id":%q,"decision":%q}`+"\n", e.str("id"), decision)
			// A wrong id gets an error event, not a crash.
			io.WriteString(in, `{"type":"approve","id":"req_nope","decision":"allow"}`+"\n")
		case "run_finished":
			in.Close()
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit: %v", err)
	}
	if asked != 2 {
		t.Fatalf("asked %d times, want 2", asked)
	}
	res := ofType(evs, "approval_resolved")
	if len(res) != 2 || res[0].str("choice") != "allow_once" || res[1].str("choice") != "deny" {
		t.Errorf("approval_resolved = %v", res)
	}
	if len(ofType(evs, "error")) != 2 {
		t.Errorf("want an error event per unknown approval id, got %v", ofType(evs, "error"))
	}
	if readFile(t, filepath.Join(ws, "ran.txt")) != "tests-ran\n" {
		t.Error("the allowed command did not run")
	}
	if _, err := os.Stat(filepath.Join(ws, "cleaned.txt")); !os.IsNotExist(err) {
		t.Error("the denied command ran")
	}
}

// TestApprovalsDeniedWhenInputEnds: a host that stops writing leaves no
// run hanging; the pending approval is denied and the process exits 0.
func TestApprovalsDeniedWhenInputEnds(t *testing.T) {
	ws := project(t)
	cmd := exec.Command(binary, "-workspace", ws, "-model", "script:testdata/approve.jsonl", "-approvals", "stdin")
	cmd.Stdin = strings.NewReader(`{"type":"prompt","text":"run the tests, then clean up"}` + "\n")
	done := make(chan struct{})
	var out []byte
	var err error
	go func() { out, err = cmd.Output(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("headless hung with a pending approval after input ended")
	}
	if err != nil {
		t.Fatal(err)
	}
	evs := parseEvents(t, out)
	for _, r := range ofType(evs, "approval_resolved") {
		if r.str("choice") != "deny" {
			t.Errorf("resolved %v after input ended", r)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, "ran.txt")); !os.IsNotExist(err) {
		t.Error("a command ran with nobody to approve it")
	}
}

func TestBadRequests(t *testing.T) {
	ws := project(t)
	evs := session(t, ws, "plan.jsonl",
		`not json`,
		`{"type":"prompt","prompt":"typo in the field name"}`,
		`{"type":"dance"}`,
		`{"type":"prompt","text":"x","mode":"yolo"}`,
		`{"type":"prompt","text":""}`,
		`{"type":"undo"}`,
		`{"type":"approve","id":"req_1","decision":"allow"}`,
	)
	errs := ofType(evs, "error")
	if len(errs) != 7 {
		t.Fatalf("want 7 error events, got %d: %v", len(errs), evs)
	}
	// Approvals are answered by the reader, the rest in order by the
	// worker: match errors to their lines.
	byLine := map[float64]string{}
	for _, e := range errs {
		byLine[e["line"].(float64)] = e.str("error")
	}
	for i, want := range []string{"not a request", "unknown field", "unknown request type", "mode \"yolo\"", "empty", "no checkpoint", "-approvals stdin"} {
		if got := byLine[float64(i+1)]; !strings.Contains(got, want) {
			t.Errorf("error for line %d = %q, want it to mention %q", i+1, got, want)
		}
	}
	if len(ofType(evs, "run_started")) != 0 {
		t.Error("a bad request started a run")
	}
}

func TestFlags(t *testing.T) {
	for _, args := range [][]string{
		{}, // no -model
		{"-model", "script:x", "-approvals", "ask"}, // bad -approvals
		{"-model", "script:x", "extra"},             // stray argument
	} {
		var stderr bytes.Buffer
		if code := run(t.Context(), args, strings.NewReader(""), io.Discard, &stderr); code != 2 || stderr.Len() == 0 {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr.String())
		}
	}
	var stderr bytes.Buffer
	if code := run(t.Context(), []string{"-model", "script:testdata/missing.jsonl", "-workspace", t.TempDir()}, strings.NewReader(""), io.Discard, &stderr); code != 1 || !strings.Contains(stderr.String(), "missing.jsonl") {
		t.Errorf("missing script: exit %d, stderr %q", code, stderr.String())
	}
}

// TestSessionGrantCoversExactCommandOnly: "allow_session" lets the same
// command run again without asking, and nothing else.
func TestSessionGrantCoversExactCommandOnly(t *testing.T) {
	ws := project(t)
	cmd := exec.Command(binary, "-workspace", ws, "-model", "script:testdata/session_grant.jsonl", "-approvals", "stdin")
	in, _ := cmd.StdinPipe()
	outPipe, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	timer := time.AfterFunc(30*time.Second, func() { cmd.Process.Kill() })
	defer timer.Stop()
	io.WriteString(in, `{"type":"prompt","text":"count"}`+"\n")
	var asked []string
	sc := bufio.NewScanner(outPipe)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e wireLine
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("bad line %q", sc.Text())
		}
		switch e.str("type") {
		case "approval_requested":
			subject := e["display"].(map[string]any)["subject"].(string)
			asked = append(asked, subject)
			fmt.Fprintf(in, `{"type":"approve","id":%q,"decision":"allow_session"}`+"\n", e.str("id"))
		case "run_finished":
			in.Close()
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if want := []string{"echo one >> log.txt", "echo two >> log.txt"}; fmt.Sprint(asked) != fmt.Sprint(want) {
		t.Errorf("asked about %q, want %q (the repeat is covered by the grant)", asked, want)
	}
	if got := readFile(t, filepath.Join(ws, "log.txt")); got != "one\none\ntwo\n" {
		t.Errorf("log.txt = %q", got)
	}
}

// TestApprovalTimeout: a host that never answers gets a deny after
// -approval-timeout, and the run carries on.
func TestApprovalTimeout(t *testing.T) {
	ws := project(t)
	cmd := exec.Command(binary, "-workspace", ws, "-model", "script:testdata/approve.jsonl", "-approvals", "stdin", "-approval-timeout", "200ms")
	in, _ := cmd.StdinPipe()
	outPipe, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	timer := time.AfterFunc(30*time.Second, func() { cmd.Process.Kill() })
	defer timer.Stop()
	io.WriteString(in, `{"type":"prompt","text":"run the tests, then clean up"}`+"\n")
	var resolved []wireLine
	sc := bufio.NewScanner(outPipe)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e wireLine
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("bad line %q", sc.Text())
		}
		switch e.str("type") {
		case "approval_resolved":
			resolved = append(resolved, e)
		case "run_finished":
			in.Close()
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if len(resolved) != 2 {
		t.Fatalf("resolved = %v", resolved)
	}
	for _, r := range resolved {
		if r.str("choice") != "deny" || !strings.Contains(r.str("reason"), "200ms") {
			t.Errorf("resolved %v, want a deny for the timeout", r)
		}
	}
	if _, err := os.Stat(filepath.Join(ws, "ran.txt")); !os.IsNotExist(err) {
		t.Error("an unanswered command ran")
	}
}

// TestUndoKeepsTheUsersLaterEdits: a file the user changed after the run
// is left alone by undo and reported; the others are restored.
func TestUndoKeepsTheUsersLaterEdits(t *testing.T) {
	ws := project(t)
	cmd := exec.Command(binary, "-workspace", ws, "-model", "script:testdata/multi_edit.jsonl")
	in, _ := cmd.StdinPipe()
	outPipe, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	timer := time.AfterFunc(30*time.Second, func() { cmd.Process.Kill() })
	defer timer.Stop()
	io.WriteString(in, `{"type":"prompt","text":"rename Greet to Hello"}`+"\n")
	mine := "package main\n\n// my own edit\nfunc Hello(n string) string { return \"hey \" + n }\n"
	var undo wireLine
	sc := bufio.NewScanner(outPipe)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e wireLine
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("bad line %q", sc.Text())
		}
		switch e.str("type") {
		case "run_finished":
			if err := os.WriteFile(filepath.Join(ws, "greet.go"), []byte(mine), 0o644); err != nil {
				t.Fatal(err)
			}
			io.WriteString(in, `{"type":"undo","checkpoint":"`+e.str("checkpoint_id")+`"}`+"\n")
			in.Close()
		case "undo_finished":
			undo = e
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if undo == nil || !strings.Contains(undo.str("error"), "greet.go") || len(undo["skipped"].([]any)) != 1 {
		t.Fatalf("undo_finished = %v, want greet.go skipped with an error", undo)
	}
	if readFile(t, filepath.Join(ws, "greet.go")) != mine {
		t.Error("undo overwrote the user's later edit")
	}
	if readFile(t, filepath.Join(ws, "main.go")) != mainGo {
		t.Error("main.go not restored")
	}
	if _, err := os.Stat(filepath.Join(ws, "NOTES.md")); !os.IsNotExist(err) {
		t.Error("NOTES.md not removed")
	}
}
