package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/tetherdev/tether/llm/llmtest"
	"github.com/tetherdev/tether/llm/ollama"
)

var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "demo-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "demo")
	if out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building demo: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// TestDemoBinary runs the demo as a user does and checks, independently
// of the demo's own checks, that the project on disk is the original.
func TestDemoBinary(t *testing.T) {
	cmd := exec.Command(binary, "-keep")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("demo failed: %v\nstdout:\n%s\nstderr:\n%s", err, out, stderr.String())
	}
	text := string(out)
	for _, want := range []string{
		"tool calling text",
		"parser: the write_file call was cut off before its closing brackets; repaired",
		"wants to run a command [critical]:\n        rm -rf ~/.cache",
		"rm -rf ~/.cache` (denied)",
		"3 file(s) changed, +24 −2",
		"restored README.md, stats.go; removed median.go",
		"✓ the tree is byte-for-byte the original again",
		"All demo checks passed.",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q\n%s", want, text)
		}
	}
	if strings.Contains(text, "\x1b[") {
		t.Error("colour escapes in output that is not a terminal")
	}
	m := regexp.MustCompile(`Project kept in (\S+)`).FindStringSubmatch(text)
	if m == nil {
		t.Fatal("no kept directory in the output")
	}
	dir := m[1]
	defer os.RemoveAll(dir)
	want, err := copySample(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if same, why := sameTree(dir, want); !same {
		t.Errorf("project on disk after the demo is not the original%s", why)
	}
}

// TestDemoFailsLoudly: a run that breaks must not end in "All checks
// passed".
func TestDemoFailsLoudly(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"-model", "script:testdata/exhausted.jsonl"}, &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "script has 1 response") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
	if strings.Contains(stdout.String(), "All demo checks passed") {
		t.Error("claimed success")
	}
	for _, args := range [][]string{{"-model", "nope"}, {"extra"}, {"-bogus"}} {
		stderr.Reset()
		if code := run(t.Context(), args, &stdout, &stderr); code == 0 || stderr.Len() == 0 {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr.String())
		}
	}
}

// TestSampleIsBroken keeps the demo honest: the sample's test fails before
// the agent's fix.
func TestSampleIsBroken(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go not on PATH")
	}
	dir := t.TempDir()
	if _, err := copySample(dir); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "test", "./...")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "Mean([1 2 3]) = 3, want 2") {
		t.Errorf("the sample should fail its test before the fix: %v\n%s", err, out)
	}
}

// TestDemoAgainstOllama runs the -model ollama:NAME path end to end over
// HTTP, against a fake Ollama server playing the same recorded session:
// capabilities from /api/show pick text tool calling, and the demo's
// undo check still holds.
func TestDemoAgainstOllama(t *testing.T) {
	s, err := llmtest.ParseScript(bytes.NewReader(session))
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewFakeOllama(s)
	defer srv.Close()
	cmd := exec.Command(binary, "-model", "ollama:qwen3:8b")
	cmd.Env = append(os.Environ(), "OLLAMA_HOST="+srv.URL)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("demo against Ollama: %v\n%s\n%s", err, out, stderr.String())
	}
	for _, want := range []string{"model: ollama:qwen3:8b", "tool calling text", "rm -rf ~/.cache` (denied)", "3 file(s) changed, +24 −2", "byte-for-byte the original", "All demo checks passed."} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q\n%s", want, out)
		}
	}
	if n := srv.Served(); n != len(s.Turns) {
		t.Errorf("served %d responses, want %d", n, len(s.Turns))
	}
	checkWindow(t, srv, ollama.DefaultNumCtx)
}

// checkWindow: every chat request asked for num_ctx want, and the model
// saw the whole of each prompt.
func checkWindow(t *testing.T, srv *llmtest.FakeServer, want int) {
	t.Helper()
	for i, r := range srv.Requests() {
		if n := gjson.GetBytes(r, "options.num_ctx").Int(); n != int64(want) {
			t.Errorf("request %d: num_ctx %d, want %d", i, n, want)
		}
	}
	for i, p := range srv.Prompts() {
		if !p.Whole() {
			t.Errorf("request %d: the model did not see the whole prompt: %+v", i, p)
		}
	}
}

// TestDemoNumCtx: -num-ctx is the window every request asks for.
func TestDemoNumCtx(t *testing.T) {
	s, err := llmtest.ParseScript(bytes.NewReader(session))
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewFakeOllama(s)
	defer srv.Close()
	cmd := exec.Command(binary, "-model", "ollama:qwen3:8b", "-num-ctx", "16384")
	cmd.Env = append(os.Environ(), "OLLAMA_HOST="+srv.URL)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("demo -num-ctx 16384: %v\n%s", err, out)
	}
	checkWindow(t, srv, 16384)
}
