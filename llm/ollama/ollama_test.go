package ollama_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/llm/llmtest"
	"github.com/tetherdev/tether/llm/ollama"
)

func newModel(t *testing.T, srv *llmtest.FakeServer, cfg ollama.Config) *ollama.Model {
	t.Helper()
	cfg.Host = srv.URL
	if cfg.Model == "" {
		cfg.Model = "fake"
	}
	cfg.HTTPClient = srv.Client()
	m, err := ollama.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestChatRequestShape(t *testing.T) {
	srv := llmtest.NewFakeOllama(llmtest.Script{Turns: []llmtest.Turn{{Content: "ok"}}})
	defer srv.Close()
	m := newModel(t, srv, ollama.Config{Options: map[string]any{"num_ctx": 8192, "top_p": 0.9}})
	think, temp := true, 0.2
	req := llm.Request{
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "You are a coding agent."},
			{Role: llm.RoleUser, Content: "Create hello.txt", Images: []llm.Image{{Data: []byte{0x89, 'P', 'N', 'G'}}}},
			{Role: llm.RoleAssistant, Thinking: "I will write the file.", Content: "Writing.", ToolCalls: []llm.ToolCall{
				{Name: "write_file", Arguments: json.RawMessage(`{"path":"hello.txt","content":"hi"}`)},
			}},
			{Role: llm.RoleTool, ToolName: "write_file", Content: "File written successfully"},
		},
		Tools: []llm.ToolSpec{{Name: "write_file", Description: "Write a file",
			Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}`)}},
		Think:       &think,
		Temperature: &temp,
		Options:     map[string]any{"top_p": 0.5},
	}
	if _, err := llm.Collect(m.Chat(t.Context(), req)); err != nil {
		t.Fatal(err)
	}
	body := srv.Requests()[0]
	checks := map[string]string{
		"model":                                 "fake",
		"stream":                                "true",
		"think":                                 "true",
		"options.temperature":                   "0.2",
		"options.top_p":                         "0.5", // request beats config
		"options.num_ctx":                       "8192",
		"messages.1.images.0":                   "iVBORw==",
		"messages.2.thinking":                   "I will write the file.",
		"messages.2.content":                    "Writing.",
		"messages.2.tool_calls.0.function.name": "write_file",
		"messages.2.tool_calls.0.function.arguments.path": "hello.txt",
		"messages.3.role":       "tool",
		"messages.3.tool_name":  "write_file",
		"tools.0.type":          "function",
		"tools.0.function.name": "write_file",
		"tools.0.function.parameters.properties.path.type": "string",
		"tools.0.function.parameters.required.1":           "content",
	}
	for path, want := range checks {
		if got := gjson.GetBytes(body, path).String(); got != want {
			t.Errorf("%s = %q, want %q\nbody: %s", path, got, want, body)
		}
	}
}

func TestChatToolCallsNotDeduplicated(t *testing.T) {
	call := llmtest.CallSpec{Name: "run_terminal_command", Arguments: json.RawMessage(`{"command":"go test ./..."}`)}
	srv := llmtest.NewFakeOllama(llmtest.Script{Turns: []llmtest.Turn{{
		Thinking: "Run the tests twice to check flakiness.", ToolCalls: []llmtest.CallSpec{call, call},
	}}})
	defer srv.Close()
	m := newModel(t, srv, ollama.Config{})
	r, err := llm.Collect(m.Chat(t.Context(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "test"}}}))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Message.ToolCalls) != 2 {
		t.Fatalf("got %d tool calls, want both identical calls", len(r.Message.ToolCalls))
	}
	for i, c := range r.Message.ToolCalls {
		if c.Index != i || c.Name != call.Name || gjson.GetBytes(c.Arguments, "command").String() != "go test ./..." {
			t.Errorf("call %d = %+v", i, c)
		}
	}
	if r.StopReason != llm.StopToolCalls || r.Message.Thinking == "" || r.Usage.PromptTokens == 0 {
		t.Errorf("response = %+v", r)
	}
}

func TestCapabilities(t *testing.T) {
	def := llm.ContextFromDefault
	tests := []struct {
		name   string
		script llmtest.Script
		cfg    ollama.Config
		max    int // the fake's trained context; 0 means its default, 32768
		want   llm.Capabilities
	}{
		{"tools and thinking", llmtest.Script{}, ollama.Config{}, 0,
			llm.Capabilities{Tools: true, Thinking: true, ContextLength: 32768, MaxContextLength: 32768, ContextSource: def}},
		{"no tools", llmtest.Script{Capabilities: &llm.Capabilities{Vision: true}}, ollama.Config{}, 0,
			llm.Capabilities{Vision: true, ContextLength: 32768, MaxContextLength: 32768, ContextSource: def}},
		{"num_ctx in Options is the host's window", llmtest.Script{}, ollama.Config{Options: map[string]any{"num_ctx": 4096}}, 0,
			llm.Capabilities{Tools: true, Thinking: true, ContextLength: 4096, MaxContextLength: 32768, ContextSource: llm.ContextFromHost}},
		{"the default is lowered to a small model's maximum, silently", llmtest.Script{}, ollama.Config{}, 8192,
			llm.Capabilities{Tools: true, Thinking: true, ContextLength: 8192, MaxContextLength: 8192, ContextSource: def}},
		{"the default stays below a large model's maximum", llmtest.Script{}, ollama.Config{}, 131072,
			llm.Capabilities{Tools: true, Thinking: true, ContextLength: ollama.DefaultNumCtx, MaxContextLength: 131072, ContextSource: def}},
		{"the environment's window", llmtest.Script{}, ollama.Config{EnvContextLength: "65536"}, 131072,
			llm.Capabilities{Tools: true, Thinking: true, ContextLength: 65536, MaxContextLength: 131072, ContextSource: llm.ContextFromEnv}},
		{"NumCtx wins over Options and the environment", llmtest.Script{}, ollama.Config{NumCtx: 16384, EnvContextLength: "65536", Options: map[string]any{"num_ctx": 4096}}, 0,
			llm.Capabilities{Tools: true, Thinking: true, ContextLength: 16384, MaxContextLength: 32768, ContextSource: llm.ContextFromHost}},
		{"a host asking more than the model has is warned", llmtest.Script{}, ollama.Config{NumCtx: 65536, Model: "gemma2:9b"}, 8192,
			llm.Capabilities{Tools: true, Thinking: true, ContextLength: 8192, MaxContextLength: 8192, ContextSource: llm.ContextFromHost,
				ContextWarning: "the num_ctx setting asked for a 65536-token context, but gemma2:9b supports at most 8192; using 8192"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewFakeOllama(tt.script)
			defer srv.Close()
			srv.ContextLength = tt.max
			m := newModel(t, srv, tt.cfg)
			got, err := llm.CapabilitiesOf(t.Context(), m)
			if err != nil || got != tt.want {
				t.Fatalf("Capabilities = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

// TestNumCtxOnEveryRequest: the window Capabilities reports is the
// num_ctx every chat request carries, whether or not the host asked for
// capabilities first; a request's own num_ctx wins.
func TestNumCtxOnEveryRequest(t *testing.T) {
	srv := llmtest.NewFakeOllama(llmtest.Script{Turns: []llmtest.Turn{{Content: "a"}, {Content: "b"}, {Content: "c"}}})
	defer srv.Close()
	srv.ContextLength = 40960
	m := newModel(t, srv, ollama.Config{})
	msgs := []llm.Message{{Role: llm.RoleUser, Content: "hi"}}
	for range 2 {
		if _, err := llm.Collect(m.Chat(t.Context(), llm.Request{Messages: msgs})); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := llm.Collect(m.Chat(t.Context(), llm.Request{Messages: msgs, Options: map[string]any{"num_ctx": 2048}})); err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, r := range srv.Requests() {
		got = append(got, gjson.GetBytes(r, "options.num_ctx").Int())
	}
	if len(got) != 3 || got[0] != ollama.DefaultNumCtx || got[1] != ollama.DefaultNumCtx || got[2] != 2048 {
		t.Fatalf("num_ctx per request = %v, want [%d %d 2048]", got, ollama.DefaultNumCtx, ollama.DefaultNumCtx)
	}
}

func TestCapabilitiesUnknownModel(t *testing.T) {
	srv := llmtest.NewFakeOllama(llmtest.Script{})
	defer srv.Close()
	srv.Model = "qwen3:8b"
	m := newModel(t, srv, ollama.Config{Model: "qwen3:4b"})
	_, err := m.Capabilities(t.Context())
	if !errors.Is(err, llm.ErrModelNotFound) || !strings.Contains(err.Error(), "ollama pull qwen3:4b") {
		t.Fatalf("err = %v", err)
	}
}

func TestNoToolSupportFallback(t *testing.T) {
	// The agent's path: ask capabilities, see Tools=false, call without tools.
	srv := llmtest.NewFakeOllama(llmtest.Script{Capabilities: &llm.Capabilities{}, Turns: []llmtest.Turn{{Content: `<tool_call>{"name":"list_files","arguments":{}}</tool_call>`}}})
	defer srv.Close()
	m := newModel(t, srv, ollama.Config{})
	caps, err := m.Capabilities(t.Context())
	if err != nil || caps.Tools {
		t.Fatalf("caps = %+v, %v; want Tools=false", caps, err)
	}
	r, err := llm.Collect(m.Chat(t.Context(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "ls"}}}))
	if err != nil || !strings.Contains(r.Message.Content, "<tool_call>") {
		t.Fatalf("text-mode call failed: %+v %v", r, err)
	}
}

func TestList(t *testing.T) {
	srv := llmtest.NewFakeOllama(llmtest.Script{})
	defer srv.Close()
	srv.Model = "qwen3:8b"
	m := newModel(t, srv, ollama.Config{})
	models, err := m.List(t.Context())
	if err != nil || len(models) != 1 || models[0].Name != "qwen3:8b" || models[0].Quantization != "Q4_K_M" {
		t.Fatalf("List = %+v, %v", models, err)
	}
}

func TestParseHost(t *testing.T) {
	tests := map[string]string{
		"":                          "http://127.0.0.1:11434",
		"0.0.0.0":                   "http://0.0.0.0:11434",
		"example.com:8080":          "http://example.com:8080",
		"http://example.com":        "http://example.com:80",
		"https://example.com":       "https://example.com:443",
		"ollama.com":                "https://ollama.com:443",
		"http://[::1]:11434":        "http://[::1]:11434",
		"https://proxy.corp/ollama": "https://proxy.corp:443/ollama",
	}
	for in, want := range tests {
		u, err := ollama.ParseHost(in)
		if err != nil || u.String() != want {
			t.Errorf("ParseHost(%q) = %v, %v; want %s", in, u, err, want)
		}
	}
	for _, bad := range []string{"ftp://x", "http://x:99999", "x:port"} {
		if _, err := ollama.ParseHost(bad); err == nil {
			t.Errorf("ParseHost(%q) accepted", bad)
		}
	}
}

func TestRequestErrors(t *testing.T) {
	srv := llmtest.NewFakeOllama(llmtest.Script{Turns: []llmtest.Turn{{Content: "x"}}})
	defer srv.Close()
	tests := []struct {
		name  string
		model string
		req   llm.Request
		want  string
	}{
		{"no model", "", llm.Request{}, "no model name"},
		{"tool call arguments not an object", "fake", llm.Request{Messages: []llm.Message{{Role: llm.RoleAssistant,
			ToolCalls: []llm.ToolCall{{Name: "x", Arguments: json.RawMessage(`[1]`)}}}}}, "must be a JSON object"},
		{"bad tool schema", "fake", llm.Request{Tools: []llm.ToolSpec{{Name: "t", Parameters: json.RawMessage(`"nope"`)}}}, "JSON Schema"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := ollama.New(ollama.Config{Host: srv.URL, Model: tt.model, HTTPClient: srv.Client()})
			if err != nil {
				t.Fatal(err)
			}
			_, err = llm.Collect(m.Chat(t.Context(), tt.req))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tt.want)
			}
			if len(srv.Requests()) != 0 {
				t.Error("an invalid request reached the server")
			}
		})
	}
}

// TestNumCtxWithoutShow: a server (a proxy) that answers /api/chat but not
// /api/show still gets num_ctx, uncapped.
func TestNumCtxWithoutShow(t *testing.T) {
	var numCtx any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/chat" {
			http.NotFound(w, r)
			return
		}
		var req struct {
			Options map[string]any `json:"options"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		numCtx = req.Options["num_ctx"]
		io.WriteString(w, `{"message":{"role":"assistant","content":"ok"},"done":true}`+"\n")
	}))
	defer srv.Close()
	m, err := ollama.New(ollama.Config{Host: srv.URL, Model: "m", NumCtx: 65536})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := llm.Collect(m.Chat(t.Context(), llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}})); err != nil {
		t.Fatal(err)
	}
	if n, _ := numCtx.(float64); n != 65536 {
		t.Fatalf("num_ctx = %v, want 65536", numCtx)
	}
}
