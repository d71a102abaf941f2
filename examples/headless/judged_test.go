package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// files makes a workspace holding files.
func files(t *testing.T, fs map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range fs {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// run starts the binary with flags and plays a host over pipes: first is
// written at once, and on sees every event with the input to answer on.
// Input is closed after the last run_finished or when on returns true.
func interact(t *testing.T, flags []string, first string, on func(e wireLine, in io.Writer) (done bool)) []wireLine {
	t.Helper()
	cmd := exec.Command(binary, flags...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	timer := time.AfterFunc(60*time.Second, func() { cmd.Process.Kill() })
	defer timer.Stop()
	io.WriteString(in, first+"\n")
	var evs []wireLine
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 1<<20)
	closed := false
	for sc.Scan() {
		var e wireLine
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("bad line %q", sc.Text())
		}
		evs = append(evs, e)
		if !closed && on(e, in) {
			in.Close()
			closed = true
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit: %v\nstderr:\n%s", err, stderr.String())
	}
	return evs
}

// The two-key write: a write_file naming notes.md under one key
// and .env under another is refused whole; .env is untouched.
func TestTwoKeyWriteRefused(t *testing.T) {
	ws := files(t, map[string]string{".env": "API_KEY=mine\n", "notes.md": "notes\n"})
	evs := session(t, ws, "two_key_write.jsonl", `{"type":"prompt","text":"save my notes"}`)
	acts := finalActions(evs)
	if len(acts) != 1 || acts[0].str("status") != "error" || !strings.Contains(acts[0].str("output"), "path given twice: notes.md (target_file) and .env (fileName)") {
		t.Fatalf("want the call refused for naming its file twice, got %v", acts)
	}
	if got := readFile(t, filepath.Join(ws, ".env")); got != "API_KEY=mine\n" {
		t.Errorf(".env = %q", got)
	}
	if got := readFile(t, filepath.Join(ws, "notes.md")); got != "notes\n" {
		t.Errorf("notes.md = %q", got)
	}
	if len(ofType(evs, "files_changed")) != 0 {
		t.Error("files_changed reported for a refused call")
	}
}

// After `cd sub`, a command's writes are judged and snapshotted where the
// shell really is: files_changed lists sub/a.txt and sub/new.txt, and
// undo, in a new process reading the SQLite checkpoints, restores both.
func TestCdSubThenWriteUndone(t *testing.T) {
	ws := files(t, map[string]string{"sub/a.txt": "alpha\n", "a.txt": "root alpha\n"})
	db := filepath.Join(t.TempDir(), "cp.db")
	run := func(req string) []wireLine {
		cmd := exec.Command(binary, "-workspace", ws, "-model", "script:testdata/cd_sub.jsonl", "-db", db, "-allow", "cd,touch,sed -i")
		cmd.Stdin = strings.NewReader(req + "\n")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%v\n%s", err, stderr.String())
		}
		return parseEvents(t, out)
	}
	evs := run(`{"type":"prompt","text":"replace alpha with beta in sub"}`)
	if got := readFile(t, filepath.Join(ws, "sub/a.txt")); got != "beta\n" {
		t.Fatalf("the command did not run in sub: sub/a.txt = %q; events %v", got, finalActions(evs))
	}
	fc := ofType(evs, "files_changed")
	if len(fc) == 0 {
		t.Fatal("no files_changed")
	}
	var paths []string
	for _, f := range fc[len(fc)-1]["files"].([]any) {
		paths = append(paths, f.(map[string]any)["path"].(string))
	}
	slices.Sort(paths)
	if !slices.Equal(paths, []string{"sub/a.txt", "sub/new.txt"}) {
		t.Fatalf("files_changed lists %v, want sub/a.txt and sub/new.txt", paths)
	}
	id := ofType(evs, "run_finished")[0].str("checkpoint_id")

	u := ofType(run(`{"type":"undo","checkpoint":"`+id+`"}`), "undo_finished")
	if len(u) != 1 || u[0].str("error") != "" {
		t.Fatalf("undo after restart: %v", u)
	}
	if got := readFile(t, filepath.Join(ws, "sub/a.txt")); got != "alpha\n" {
		t.Errorf("sub/a.txt after undo = %q", got)
	}
	if _, err := os.Stat(filepath.Join(ws, "sub/new.txt")); !os.IsNotExist(err) {
		t.Error("sub/new.txt left behind after undo")
	}
	if got := readFile(t, filepath.Join(ws, "a.txt")); got != "root alpha\n" {
		t.Errorf("a.txt at the root = %q", got)
	}
}

// newSides reconstructs, from a unified diff covering whole small files,
// each file's new content: its context and added lines.
func newSides(diff string) map[string]string {
	out := map[string]string{}
	var cur string
	inHunk := false
	for _, l := range strings.SplitAfter(diff, "\n") {
		switch {
		case strings.HasPrefix(l, "--- "):
			inHunk = false
		case strings.HasPrefix(l, "+++ "):
			cur = strings.TrimPrefix(strings.TrimSpace(strings.TrimPrefix(l, "+++ ")), "b/")
			out[cur] = ""
			inHunk = false
		case strings.HasPrefix(l, "@@"):
			inHunk = true
		case inHunk && (strings.HasPrefix(l, " ") || strings.HasPrefix(l, "+")):
			out[cur] += l[1:]
		}
	}
	delete(out, "/dev/null")
	return out
}

// Every file tool's approval card shows the diff of exactly the bytes
// that end up on disk.
func TestApprovalPreviewIsWhatIsWritten(t *testing.T) {
	ws := files(t, map[string]string{
		".env.write": "A=1\n", ".env.edit": "A=1\nB=old\nC=1\n", ".env.lines": "A=1\nB=2\n",
		".env.patch": "A=1\nB=2\n", "notes.txt": "renamed content\n",
	})
	shown := map[string]string{}
	evs := interact(t, []string{"-workspace", ws, "-model", "script:testdata/previews.jsonl", "-approvals", "stdin"},
		`{"type":"prompt","text":"update the env files"}`,
		func(e wireLine, in io.Writer) bool {
			switch e.str("type") {
			case "approval_requested":
				d := e["display"].(map[string]any)
				diff, _ := d["diff"].(string)
				for p, content := range newSides(diff) {
					shown[p] = content
				}
				fmt.Fprintf(in, `{"type":"approve","id":%q,"decision":"allow"}`+"\n", e.str("id"))
			case "run_finished":
				return true
			}
			return false
		})
	for _, a := range finalActions(evs) {
		if a.str("status") != "success" {
			t.Errorf("%s: %s: %s", a.str("tool"), a.str("status"), a.str("output"))
		}
	}
	want := []string{".env.write", ".env.create", ".env.edit", ".env.lines", ".env.patch", ".env.renamed"}
	for _, p := range want {
		content, ok := shown[p]
		if !ok {
			t.Errorf("no approval showed %s (shown: %v)", p, shown)
			continue
		}
		if got := readFile(t, filepath.Join(ws, p)); got != content {
			t.Errorf("%s: approved %q, on disk %q", p, content, got)
		}
	}
}

var tokenRE = regexp.MustCompile(`chg_[0-9a-f]{32}`)

// Staging mode: the file tools stage, nothing is written until the host
// applies a token; a token works once, and one staged against a file
// that has since changed is refused.
func TestStagingTokens(t *testing.T) {
	ws := files(t, map[string]string{".env": "API_KEY=old\n"})
	env := filepath.Join(ws, ".env")
	var tokens []string
	step := 0
	evs := interact(t, []string{"-workspace", ws, "-model", "script:testdata/staged.jsonl", "-staging"},
		`{"type":"prompt","text":"set the API key"}`,
		func(e wireLine, in io.Writer) bool {
			switch e.str("type") {
			case "tool_action":
				if e.str("status") == "success" {
					tokens = append(tokens, tokenRE.FindString(e.str("output")))
				}
			case "run_finished":
				if got := readFile(t, env); got != "API_KEY=old\n" {
					t.Errorf("staging wrote .env: %q", got)
				}
				if len(tokens) != 2 || tokens[0] == "" || tokens[1] == "" {
					t.Fatalf("want two tokens, got %q", tokens)
				}
				fmt.Fprintf(in, `{"type":"apply","token":%q}`+"\n", tokens[0])
			case "change_applied", "error":
				step++
				switch step {
				case 1: // the token again: used
					fmt.Fprintf(in, `{"type":"apply","token":%q}`+"\n", tokens[0])
				case 2: // the other version, staged against the old file
					fmt.Fprintf(in, `{"type":"apply","token":%q}`+"\n", tokens[1])
				case 3:
					return true
				}
			}
			return false
		})
	results := slices.DeleteFunc(slices.Clone(evs), func(e wireLine) bool { t := e.str("type"); return t != "change_applied" && t != "error" })
	if len(results) != 3 {
		t.Fatalf("want three apply results, got %v", results)
	}
	if results[0].str("type") != "change_applied" || results[0].str("path") != ".env" {
		t.Errorf("first apply: %v", results[0])
	}
	if results[1].str("type") != "error" || !strings.Contains(results[1].str("error"), "already used") {
		t.Errorf("second apply of the same token: %v", results[1])
	}
	if results[2].str("type") != "error" || !strings.Contains(results[2].str("error"), "changed since the preview") {
		t.Errorf("apply after the file changed: %v", results[2])
	}
	if got := readFile(t, env); got != "API_KEY=first\n" {
		t.Errorf(".env = %q, want the first staged version", got)
	}
}
