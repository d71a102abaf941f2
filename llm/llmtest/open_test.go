package llmtest_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/llm/llmtest"
	"github.com/tetherdev/tether/llm/ollama"
	"github.com/tetherdev/tether/llm/openai"
)

func env(kv map[string]string) llmtest.Option {
	return llmtest.WithGetenv(func(k string) string { return kv[k] })
}

func TestOpen(t *testing.T) {
	m, err := llmtest.Open("ollama:qwen3:8b", env(map[string]string{"OLLAMA_HOST": "10.0.0.5:9999"}))
	if err != nil {
		t.Fatal(err)
	}
	om, ok := m.(*ollama.Model)
	if !ok || om.Host() != "http://10.0.0.5:9999" {
		t.Fatalf("ollama: %T %v", m, m)
	}
	m, err = llmtest.Open("ollama:llama3.2", env(nil))
	if err != nil || m.(*ollama.Model).Host() != ollama.DefaultHost {
		t.Fatalf("ollama default host: %v %v", m, err)
	}
	m, err = llmtest.Open("openai:gpt-4.1-mini", env(map[string]string{"OPENAI_BASE_URL": "http://localhost:8000/v1/"}))
	if err != nil || m.(*openai.Model).BaseURL() != "http://localhost:8000/v1" {
		t.Fatalf("openai: %v %v", m, err)
	}
	m, err = llmtest.Open("openai:gpt-4.1-mini", env(nil))
	if err != nil || m.(*openai.Model).BaseURL() != openai.DefaultBaseURL {
		t.Fatalf("openai default: %v %v", m, err)
	}
	m, err = llmtest.Open("script:testdata/hello.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := m.(*llmtest.ScriptedModel); !ok {
		t.Fatalf("script: %T", m)
	}
}

func TestOpenEndToEnd(t *testing.T) {
	srv := llmtest.NewFakeOpenAI(llmtest.Script{Turns: []llmtest.Turn{{Content: "hello"}}})
	defer srv.Close()
	srv.APIKey = "sk-local"
	m, err := llmtest.Open("openai:fake", env(map[string]string{"OPENAI_BASE_URL": srv.URL + "/v1", "OPENAI_API_KEY": "sk-local"}),
		llmtest.WithHTTPClient(srv.Client()))
	if err != nil {
		t.Fatal(err)
	}
	r, err := llm.Collect(m.Chat(t.Context(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}))
	if err != nil || r.Message.Content != "hello" {
		t.Fatalf("%+v %v", r, err)
	}
}

func TestOpenErrors(t *testing.T) {
	tests := []struct {
		model string
		is    error
		has   string
	}{
		{"qwen3:8b", llmtest.ErrUnknownScheme, `scheme "qwen3"`},
		{"gpt-4", llmtest.ErrUnknownScheme, "ollama:NAME"},
		{":x", llmtest.ErrUnknownScheme, "script:FILE"},
		{"ollama:", nil, "name the model"},
		{"script:testdata/missing.jsonl", nil, "missing.jsonl"},
	}
	for _, tt := range tests {
		_, err := llmtest.Open(tt.model, env(nil))
		if err == nil || (tt.is != nil && !errors.Is(err, tt.is)) || !strings.Contains(err.Error(), tt.has) {
			t.Errorf("Open(%q) = %v, want %v mentioning %q", tt.model, err, tt.is, tt.has)
		}
	}
	if _, err := llmtest.Open("ollama:x", llmtest.WithGetenv(nil)); err == nil {
		t.Error("WithGetenv(nil) accepted")
	}
	if _, err := llmtest.Open("ollama:x", env(map[string]string{"OLLAMA_HOST": "ftp://host"})); err == nil {
		t.Error("bad OLLAMA_HOST accepted")
	}
}
