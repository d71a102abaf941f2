package llmtest_test

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/llm/llmtest"
	"github.com/tetherdev/tether/llm/ollama"
	"github.com/tetherdev/tether/llm/openai"
)

// TestFakeOllamaWindow: the fake runs each request with its num_ctx (4096
// without one, as real Ollama on most machines), drops old messages
// before the system prompt, loses the system prompt's head only when the
// system prompt and the last turn alone overflow, and ends an answer that
// fills the window with done_reason "length".
func TestFakeOllamaWindow(t *testing.T) {
	system := "SYSTEM " + strings.Repeat("rule ", 1000) // ~1250 tokens
	old := strings.Repeat("old turn ", 800)             // ~1800 tokens
	tests := []struct {
		name                string
		numCtx              int // 0: the request carries none
		msgs                []llm.Message
		whole, cut, dropped bool
	}{
		{"fits", 8192, []llm.Message{{Role: llm.RoleSystem, Content: system}, {Role: llm.RoleUser, Content: old}, {Role: llm.RoleUser, Content: "task"}}, true, false, false},
		{"old messages dropped, system kept", 2048, []llm.Message{{Role: llm.RoleSystem, Content: system}, {Role: llm.RoleUser, Content: old}, {Role: llm.RoleUser, Content: "task"}}, false, false, true},
		{"system head cut", 1024, []llm.Message{{Role: llm.RoleSystem, Content: system}, {Role: llm.RoleUser, Content: "task"}}, false, true, false},
		{"no num_ctx is 4096", 0, []llm.Message{{Role: llm.RoleSystem, Content: system}, {Role: llm.RoleUser, Content: old + old}, {Role: llm.RoleUser, Content: "task"}}, false, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewFakeOllama(llmtest.Script{Turns: []llmtest.Turn{{Content: "ok"}}})
			defer srv.Close()
			m, err := ollama.New(ollama.Config{Host: srv.URL, Model: "fake", HTTPClient: srv.Client()})
			if err != nil {
				t.Fatal(err)
			}
			req := llm.Request{Messages: tt.msgs, Options: map[string]any{"num_ctx": tt.numCtx}}
			if tt.numCtx == 0 {
				req.Options = map[string]any{"num_ctx": nil} // sent as null: the server's default
			}
			r, err := llm.Collect(m.Chat(t.Context(), req))
			if err != nil {
				t.Fatal(err)
			}
			p := srv.Prompts()[0]
			if p.Whole() != tt.whole || p.Cut != tt.cut || (p.Dropped > 0) != tt.dropped || p.Tokens > p.NumCtx {
				t.Fatalf("prompt seen = %+v (system %d bytes)", p, len(p.System))
			}
			if tt.cut && strings.HasPrefix(p.System, "SYSTEM") {
				t.Error("the system prompt's head survived a cut")
			}
			if !tt.cut && p.System != system {
				t.Error("the system prompt was not kept whole")
			}
			if r.Usage.PromptTokens != p.Tokens {
				t.Errorf("prompt_eval_count = %d, want the %d tokens seen", r.Usage.PromptTokens, p.Tokens)
			}
		})
	}
	t.Run("length", func(t *testing.T) {
		srv := llmtest.NewFakeOllama(llmtest.Script{Turns: []llmtest.Turn{{Content: strings.Repeat("word ", 4000)}}})
		defer srv.Close()
		m, _ := ollama.New(ollama.Config{Host: srv.URL, Model: "fake", HTTPClient: srv.Client(), NumCtx: 2048})
		r, err := llm.Collect(m.Chat(t.Context(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "write"}}}))
		if err != nil || r.StopReason != llm.StopLength || len(r.Message.Content) >= 20000 {
			t.Fatalf("stop %q, %d bytes, %v; want a cut answer with done_reason length", r.StopReason, len(r.Message.Content), err)
		}
	})
	t.Run("show", func(t *testing.T) {
		srv := llmtest.NewFakeOllama(llmtest.Script{})
		defer srv.Close()
		srv.ContextLength = 40960
		resp, err := srv.Client().Post(srv.URL+"/api/show", "application/json", strings.NewReader(`{"model":"fake"}`))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		body := string(raw)
		if gjson.Get(body, `model_info.fake\.context_length`).Int() != 40960 || gjson.Get(body, "capabilities.#").Int() < 2 {
			t.Fatalf("/api/show = %s", body)
		}
	})
}

// TestFakeOpenAIWindow: a prompt over the window is refused in the
// server's words, which the backend maps to llm.ErrContextTooLong; the
// llama.cpp flavor reports its running window in /props.
func TestFakeOpenAIWindow(t *testing.T) {
	big := []llm.Message{{Role: llm.RoleUser, Content: strings.Repeat("data ", 8000)}}
	for _, flavor := range []string{llmtest.FlavorVLLM, llmtest.FlavorLlamaCpp} {
		t.Run(flavor, func(t *testing.T) {
			srv := llmtest.NewFakeOpenAI(llmtest.Script{Turns: []llmtest.Turn{{Content: "ok"}}})
			defer srv.Close()
			srv.Flavor, srv.ContextLength, srv.MaxContextLength = flavor, 4096, 131072
			m, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1", Model: "fake", HTTPClient: srv.Client()})
			if err != nil {
				t.Fatal(err)
			}
			caps, err := m.Capabilities(t.Context())
			if err != nil || caps.ContextLength != 4096 {
				t.Fatalf("capabilities %+v, %v: want the running window 4096", caps, err)
			}
			_, err = llm.Collect(m.Chat(t.Context(), llm.Request{Messages: big}))
			if !errors.Is(err, llm.ErrContextTooLong) {
				t.Fatalf("over the window: %v, want ErrContextTooLong", err)
			}
			if p := srv.Prompts(); len(p) != 1 || !p[0].Rejected || srv.Served() != 0 {
				t.Fatalf("prompts %+v, served %d", p, srv.Served())
			}
			r, err := llm.Collect(m.Chat(t.Context(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}))
			if err != nil || r.Message.Content != "ok" {
				t.Fatalf("a prompt that fits: %+v, %v", r, err)
			}
		})
	}
}
