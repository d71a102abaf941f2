package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFolderFlagRoots: with -folder, the model reads and edits a further
// root by its name, an attachment reaches into it, a path that climbs out
// of it is refused, and undo restores the folder's file on disk.
func TestFolderFlagRoots(t *testing.T) {
	base := t.TempDir()
	app := filepath.Join(base, "app")
	lib := filepath.Join(base, "shared-lib")
	for dir, fs := range map[string]map[string]string{
		app: {"main.go": mainGo},
		lib: {"util.go": "package lib\n\nfunc Util() int { return 1 }\n"},
	} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, body := range fs {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.WriteFile(filepath.Join(base, "secret.txt"), []byte("TOP-SECRET-CONTENT"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := `{"capabilities":{"tools":true}}
{"tool_calls":[{"name":"read_file","arguments":{"path":"lib/util.go"}},{"name":"read_file","arguments":{"path":"lib/../secret.txt"}}]}
{"tool_calls":[{"name":"edit_file","arguments":{"path":"lib/util.go","old_text":"return 1","new_text":"return 2"}}]}
{"content":"Util returns 2 now. [TASK_COMPLETE]"}
{"content":"Seen it. [TASK_COMPLETE]"}
`
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	in := strings.Join([]string{
		`{"type":"prompt","text":"Make Util return 2"}`,
		`{"type":"undo","checkpoint":""}`,
		`{"type":"prompt","text":"Look","attach":["lib/util.go:L3"]}`,
		`{"type":"prompt","text":"Look","attach":["lib/nope.go"]}`,
	}, "\n") + "\n"
	var out, stderr bytes.Buffer
	code := run(t.Context(), []string{"-workspace", app, "-folder", "lib=" + lib, "-sandbox", "off", "-model", "script:" + path},
		strings.NewReader(in), &out, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	evs := parseEvents(t, out.Bytes())

	acts := finalActions(evs)
	if len(acts) != 3 {
		t.Fatalf("want 3 finished tool actions, got %v", acts)
	}
	if acts[0].str("status") != "success" || !strings.Contains(acts[0].str("output"), "func Util") {
		t.Errorf("read_file lib/util.go: %v", acts[0])
	}
	if acts[1].str("status") == "success" || strings.Contains(acts[1].str("output"), "TOP-SECRET") {
		t.Errorf("lib/../secret.txt left the folder: %v", acts[1])
	}
	if acts[2].str("status") != "success" {
		t.Errorf("edit_file lib/util.go: %v", acts[2])
	}
	fc := ofType(evs, "files_changed")
	if len(fc) == 0 || !strings.Contains(fmtAny(fc[len(fc)-1]["files"]), "lib/util.go") {
		t.Errorf("files_changed does not name lib/util.go: %v", fc)
	}
	undo := ofType(evs, "undo_finished")
	if len(undo) != 1 || !strings.Contains(fmtAny(undo[0]["restored"]), "lib/util.go") {
		t.Errorf("undo_finished: %v", undo)
	}
	if got := readFile(t, filepath.Join(lib, "util.go")); !strings.Contains(got, "return 1") {
		t.Errorf("after undo lib/util.go = %q", got)
	}
	errs := ofType(evs, "error")
	if len(errs) != 1 || !strings.Contains(errs[0].str("error"), "nope.go") {
		t.Errorf("want only the missing attachment refused, got %v", errs)
	}
	if f := ofType(evs, "run_finished"); len(f) != 2 {
		t.Errorf("want two runs (the attachment in lib loads), got %v", f)
	}
}

func fmtAny(v any) string {
	var b strings.Builder
	if l, ok := v.([]any); ok {
		for _, x := range l {
			if m, ok := x.(map[string]any); ok {
				for _, k := range []string{"path", "name"} {
					if s, ok := m[k].(string); ok {
						b.WriteString(s + " ")
					}
				}
				continue
			}
			if s, ok := x.(string); ok {
				b.WriteString(s + " ")
			}
		}
	}
	return b.String()
}

// TestFolderFlagErrors: a bad -folder is refused at start with the reason.
func TestFolderFlagErrors(t *testing.T) {
	base := t.TempDir()
	file := filepath.Join(base, "f.txt")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	inside := filepath.Join(base, "ws", "sub")
	if err := os.MkdirAll(inside, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-folder", filepath.Join(base, "gone")}, 2, "no such file"},
		{[]string{"-folder", file}, 2, "not a directory"},
		{[]string{"-folder", "a/b=" + base}, 2, "single path segment"},
		{[]string{"-folder", "x=" + base, "-folder", "x=" + inside}, 2, "already named"},
		{[]string{"-folder", "sub=" + inside}, 1, "overlaps"},
	} {
		var stderr bytes.Buffer
		args := append([]string{"-model", "script:testdata/plan.jsonl", "-workspace", filepath.Join(base, "ws")}, c.args...)
		code := run(t.Context(), args, strings.NewReader(""), io.Discard, &stderr)
		if code != c.code || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", c.args, code, stderr.String(), c.code, c.want)
		}
	}
}
