package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetherdev/tether/toolcall"
)

const reply = "I'll write the file.\n" +
	`<tool_call>{"name": "write_file", "arguments": {"path": "main.go", "content": "package main\n\nfunc main() { println(\"}</tool_call>\") }\n"}}</tool_call>` +
	"\nDone, then <tool_call>{\"name\": broken}</tool_call> end."

func TestOneShot(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(nil, strings.NewReader(reply), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var r toolcall.Result
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("output is not a Result: %v\n%s", err, out.String())
	}
	if len(r.Calls) != 1 || r.Calls[0].Name != "write_file" {
		t.Fatalf("calls = %+v", r.Calls)
	}
	var args struct{ Path, Content string }
	if err := json.Unmarshal(r.Calls[0].Arguments, &args); err != nil || args.Path != "main.go" || !strings.Contains(args.Content, `"}</tool_call>"`) {
		t.Errorf("arguments = %s (%v)", r.Calls[0].Arguments, err)
	}
	if want := "I'll write the file.\n\nDone, then <tool_call>{\"name\": broken}</tool_call> end."; r.Text != want {
		t.Errorf("text = %q, want %q", r.Text, want)
	}
	if len(r.Failures) != 1 || !strings.Contains(r.Failures[0].Reason, "invalid JSON") {
		t.Errorf("failures = %+v", r.Failures)
	}
}

func TestStreamEvents(t *testing.T) {
	for _, n := range []string{"1", "7", "16", "4096"} {
		var out, errb bytes.Buffer
		if code := run([]string{"-stream", n}, strings.NewReader(reply), &out, &errb); code != 0 {
			t.Fatalf("-stream %s: exit %d: %s", n, code, errb.String())
		}
		var text strings.Builder
		var types []string
		var last map[string]any
		sc := bufio.NewScanner(&out)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var ev map[string]any
			if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
				t.Fatalf("-stream %s: line %q: %v", n, sc.Text(), err)
			}
			typ, _ := ev["type"].(string)
			types = append(types, typ)
			if typ == "text" {
				text.WriteString(ev["text"].(string))
			}
			last = ev
		}
		if last["type"] != "result" {
			t.Fatalf("-stream %s: last line is %v, want the result", n, last["type"])
		}
		if text.String() != last["text"] {
			t.Errorf("-stream %s: streamed text %q != result text %q", n, text.String(), last["text"])
		}
		joined := strings.Join(types, " ")
		for _, want := range []string{"call_start", "call_name", "call_path", "call", "failure"} {
			if !strings.Contains(" "+joined+" ", " "+want+" ") {
				t.Errorf("-stream %s: no %s event in %s", n, want, joined)
			}
		}
	}
}

func TestAllowListAndFlags(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"-tools", "read_file"}, strings.NewReader(reply), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var r toolcall.Result
	json.Unmarshal(out.Bytes(), &r)
	if len(r.Calls) != 0 || len(r.Failures) != 2 {
		t.Errorf("with -tools read_file: %d calls, %d failures; want 0 and 2", len(r.Calls), len(r.Failures))
	}
	for _, bad := range [][]string{{"-stream", "-1"}, {"extra"}, {"-nope"}} {
		errb.Reset()
		if code := run(bad, strings.NewReader(""), &out, &errb); code != 2 || errb.Len() == 0 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a message", bad, code, errb.String())
		}
	}
}

// TestBinary builds the command and runs it as a user would.
func TestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	bin := filepath.Join(t.TempDir(), "toolcall")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "-stream", "5")
	cmd.Stdin = strings.NewReader("[TOOL_CALLS]list_dir[ARGS]{\"path\": \".\"}")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out, []byte(`"type":"call"`)) || !bytes.Contains(out, []byte(`"name":"list_dir"`)) {
		t.Errorf("output lacks the call:\n%s", out)
	}
}
