package modelstr_test

import (
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/llm/llmtest"
	"github.com/tetherdev/tether/llm/modelstr"
	"github.com/tetherdev/tether/llm/ollama"
	"github.com/tetherdev/tether/llm/openai"
	"github.com/tetherdev/tether/llm/scripted"
)

func env(kv map[string]string) modelstr.Option {
	return modelstr.WithGetenv(func(k string) string { return kv[k] })
}

func TestOpen(t *testing.T) {
	m, err := modelstr.Open("ollama:qwen3:8b", env(map[string]string{"OLLAMA_HOST": "10.0.0.5:9999"}))
	if err != nil {
		t.Fatal(err)
	}
	om, ok := m.(*ollama.Model)
	if !ok || om.Host() != "http://10.0.0.5:9999" {
		t.Fatalf("ollama: %T %v", m, m)
	}
	m, err = modelstr.Open("ollama:llama3.2", env(nil))
	if err != nil || m.(*ollama.Model).Host() != ollama.DefaultHost {
		t.Fatalf("ollama default host: %v %v", m, err)
	}
	m, err = modelstr.Open("openai:gpt-4.1-mini", env(map[string]string{"OPENAI_BASE_URL": "http://localhost:8000/v1/"}))
	if err != nil || m.(*openai.Model).BaseURL() != "http://localhost:8000/v1" {
		t.Fatalf("openai: %v %v", m, err)
	}
	m, err = modelstr.Open("openai:gpt-4.1-mini", env(nil))
	if err != nil || m.(*openai.Model).BaseURL() != openai.DefaultBaseURL {
		t.Fatalf("openai default: %v %v", m, err)
	}
	m, err = modelstr.Open("script:testdata/hello.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := m.(*scripted.Model); !ok {
		t.Fatalf("script: %T", m)
	}
}

func TestOpenErrors(t *testing.T) {
	tests := []struct {
		model string
		is    error
		has   string
	}{
		{"qwen3:8b", modelstr.ErrUnknownScheme, `scheme "qwen3"`},
		{"gpt-4", modelstr.ErrUnknownScheme, "ollama:NAME"},
		{":x", modelstr.ErrUnknownScheme, "script:FILE"},
		{"ollama:", nil, "name the model"},
		{"script:testdata/missing.jsonl", nil, "missing.jsonl"},
	}
	for _, tt := range tests {
		_, err := modelstr.Open(tt.model, env(nil))
		if err == nil || (tt.is != nil && !errors.Is(err, tt.is)) || !strings.Contains(err.Error(), tt.has) {
			t.Errorf("Open(%q) = %v, want %v mentioning %q", tt.model, err, tt.is, tt.has)
		}
	}
	if _, err := modelstr.Open("ollama:x", modelstr.WithGetenv(nil)); err == nil {
		t.Error("WithGetenv(nil) accepted")
	}
	if _, err := modelstr.Open("ollama:x", env(map[string]string{"OLLAMA_HOST": "ftp://host"})); err == nil {
		t.Error("bad OLLAMA_HOST accepted")
	}
}

// TestNoTestHelpersLinked checks that opening a model string, and the
// examples that open their -model flag through it, link no test helpers
// (net/http/httptest, llmtest, testing).
func TestNoTestHelpersLinked(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH")
	}
	for _, pkg := range []string{".", "../../examples/headless", "../../examples/coder", "../../examples/web", "../../examples/demo"} {
		out, err := exec.Command(gobin, "list", "-deps", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			if dep == "net/http/httptest" || strings.HasSuffix(dep, "/llmtest") || dep == "testing" {
				t.Errorf("%s links %s", pkg, dep)
			}
		}
	}
}

// WithContextLength reaches an Ollama server as the num_ctx option of
// every chat request, and is the context length the model reports.
func TestWithContextLength(t *testing.T) {
	s, err := llmtest.ParseScript(strings.NewReader(`{"content":"hi"}` + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewFakeOllama(s)
	defer srv.Close()
	m, err := modelstr.Open("ollama:qwen3:8b", env(map[string]string{"OLLAMA_HOST": srv.URL}), modelstr.WithContextLength(8192))
	if err != nil {
		t.Fatal(err)
	}
	if caps, err := llm.CapabilitiesOf(t.Context(), m); err != nil || caps.ContextLength != 8192 {
		t.Errorf("context length = %d, %v; want 8192", caps.ContextLength, err)
	}
	for _, err := range m.Chat(t.Context(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}) {
		if err != nil {
			t.Fatal(err)
		}
	}
	reqs := srv.Requests()
	if len(reqs) == 0 || !strings.Contains(string(reqs[len(reqs)-1]), `"num_ctx":8192`) {
		t.Errorf("chat request lacks num_ctx: %s", reqs)
	}
	if _, err := modelstr.Open("ollama:x", modelstr.WithContextLength(-1)); err == nil {
		t.Error("negative context length: no error")
	}
}
