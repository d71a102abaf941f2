package main

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/tetherdev/tether/llm/llmtest"
)

// TestLocalModelWindow: against a fake Ollama whose model has a 4096-token
// context, every request of the gateway asks for num_ctx (the -num-ctx
// value, lowered to the model's maximum), the model sees each whole
// prompt, and the run reports its window as a context_window event.
func TestLocalModelWindow(t *testing.T) {
	srv := llmtest.NewFakeOllama(llmtest.Script{Turns: []llmtest.Turn{
		{ToolCalls: []llmtest.CallSpec{{Name: "read_file", Arguments: []byte(`{"path":"greet.go"}`)}}},
		{Content: "Greet returns a greeting. [TASK_COMPLETE]"},
	}})
	defer srv.Close()
	srv.ContextLength = 4096
	cmd := exec.Command(binary, "-workspace", project(t), "-model", "ollama:fake", "-num-ctx", "8192")
	cmd.Env = append(cmd.Environ(), "OLLAMA_HOST="+srv.URL)
	cmd.Stdin = strings.NewReader(`{"type":"prompt","text":"What does Greet do?"}` + "\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("headless: %v\n%s", err, stderr.String())
	}
	var window string
	for _, line := range strings.Split(string(out), "\n") {
		if gjson.Get(line, "type").String() == "context_window" {
			window = line
		}
	}
	if gjson.Get(window, "context_length").Int() != 4096 || !strings.Contains(gjson.Get(window, "warning").String(), "8192") {
		t.Errorf("context_window event = %q, want 4096 with a warning about the 8192 asked for", window)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests\n%s", len(reqs), out)
	}
	for i, r := range reqs {
		if n := gjson.GetBytes(r, "options.num_ctx").Int(); n != 4096 {
			t.Errorf("request %d: num_ctx %d, want 4096", i, n)
		}
	}
	for i, p := range srv.Prompts() {
		if !p.Whole() {
			t.Errorf("request %d: the model did not see the whole prompt: %+v", i, p)
		}
	}
}
