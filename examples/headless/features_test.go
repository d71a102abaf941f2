package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestFeatureFlags: envelope mode stops after seed 004's 6 rounds, the
// skills, read_pdf and read_webpage are offered, and an attached
// selection reaches the model as already provided.
func TestFeatureFlags(t *testing.T) {
	ws := project(t)
	var script strings.Builder
	script.WriteString(`{"capabilities":{"tools":false}}` + "\n")
	for i := range 7 {
		fmt.Fprintf(&script, `{"content":"Step %d.\n`+"```yips-agent"+`\n{\"actions\":[{\"type\":\"tool\",\"id\":\"t%d\",\"name\":\"read_file\",\"arguments\":{\"path\":\"greet.go\",\"start_line\":%d}}]}\n`+"```"+`"}`+"\n", i, i, 1+i%3)
	}
	script.WriteString(`{"content":"Summary."}` + "\n")
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte(script.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, stderr bytes.Buffer
	in := strings.NewReader(`{"type":"prompt","text":"Read greet.go","attach":["main.go:L3"]}` + "\n")
	code := run(t.Context(), []string{"-workspace", ws, "-model", "script:" + path, "-tool-calling", "envelope",
		"-skills", "todos,fetch,virtual_terminal", "-web-allow", "example.com", "-subagents"}, in, &out, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	evs := parseEvents(t, out.Bytes())
	started := ofType(evs, "run_started")
	if len(started) != 1 || started[0].str("tool_calling") != "envelope" {
		t.Fatalf("run_started: %v", started)
	}
	var offered []string
	for _, n := range started[0]["tools"].([]any) {
		offered = append(offered, n.(string))
	}
	for _, want := range []string{"read_pdf", "read_webpage", "skill__todos", "skill__fetch", "skill__virtual_terminal", "subagent"} {
		if !slices.Contains(offered, want) {
			t.Errorf("%s not offered: %v", want, offered)
		}
	}
	fin := ofType(evs, "run_finished")
	if len(fin) != 1 || fin[0].str("stop_reason") != "max_iterations" || fin[0]["iterations"].(float64) != 6 {
		t.Errorf("run_finished: %v (want max_iterations after 6 rounds)", fin)
	}
}

// TestAttachReachesTheAgent: an attachment that names a missing file is
// refused by the agent's loader, which shows the field is passed through.
func TestAttachReachesTheAgent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte(`{"content":"ok [TASK_COMPLETE]"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, stderr bytes.Buffer
	in := strings.NewReader(`{"type":"prompt","text":"Explain","attach":["nope.go:L1-L2"]}` + "\n" + `{"type":"prompt","text":"Explain","attach":[":L1"]}` + "\n")
	if code := run(t.Context(), []string{"-workspace", project(t), "-model", "script:" + path}, in, &out, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	errs := ofType(parseEvents(t, out.Bytes()), "error")
	if len(errs) != 2 || !strings.Contains(errs[0].str("error"), "nope.go") || !strings.Contains(errs[1].str("error"), "attach") {
		t.Errorf("errors: %v", errs)
	}
}

func TestFeatureFlagErrors(t *testing.T) {
	for _, args := range [][]string{
		{"-tool-calling", "xml"},
		{"-skills", "dance"},
		{"-skills", "fetch"},
		{"-web-allow", "https://example.com/docs"},
		{"-allow", "Bash(npm test)"},
		{"-sandbox", "strict"},
		{"-max-iterations", "-1"},
		{"-mode", "architect"}, // no such mode in the settings
	} {
		var stderr bytes.Buffer
		args = append([]string{"-model", "script:x"}, args...)
		if code := run(t.Context(), args, strings.NewReader(""), io.Discard, &stderr); code != 2 || stderr.Len() == 0 {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr.String())
		}
	}
}

// TestToolProgressEncoded: live progress reaches the host as tool_progress
// lines, like every other event.
func TestToolProgressEncoded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	script := `{"capabilities":{"tools":true}}
{"tool_calls":[{"name":"read_file","arguments":{"path":"greet.go"}}]}
{"content":"Read it. [TASK_COMPLETE]"}
`
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, stderr bytes.Buffer
	in := strings.NewReader(`{"type":"prompt","text":"Read greet.go","mode":"explore"}` + "\n")
	if code := run(t.Context(), []string{"-workspace", project(t), "-model", "script:" + path}, in, &out, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	p := ofType(parseEvents(t, out.Bytes()), "tool_progress")
	if len(p) != 1 || p[0].str("title") != "Reading greet.go lines 1–3" || p[0].str("call_id") == "" {
		t.Errorf("tool_progress: %v", p)
	}
}

// TestPDFProgressEncoded: read_pdf reports each page as a tool_progress
// line with its title and count, between the running and final actions.
func TestPDFProgressEncoded(t *testing.T) {
	ws := project(t)
	pdf, err := os.ReadFile(filepath.Join("..", "..", "tools", "pdftools", "testdata", "twocol.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "paper.pdf"), pdf, 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "s.jsonl")
	script := `{"capabilities":{"tools":true}}
{"tool_calls":[{"name":"read_pdf","arguments":{"path":"paper.pdf","last_page":2}}]}
{"content":"Read it. [TASK_COMPLETE]"}
`
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, stderr bytes.Buffer
	in := strings.NewReader(`{"type":"prompt","text":"Read paper.pdf","mode":"explore"}` + "\n")
	if code := run(t.Context(), []string{"-workspace", ws, "-model", "script:" + path}, in, &out, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var got []string
	for _, p := range ofType(parseEvents(t, out.Bytes()), "tool_progress") {
		got = append(got, fmt.Sprintf("%s %s %v/%v", p.str("tool"), p.str("title"), p["done"], p["total"]))
	}
	want := []string{"read_pdf Reading paper.pdf page 1 of 3 1/2", "read_pdf Reading paper.pdf page 2 of 3 2/2"}
	if !slices.Equal(got, want) {
		t.Errorf("tool_progress:\n%q\nwant\n%q", got, want)
	}
}
