package openai_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/llm/llmtest"
	"github.com/tetherdev/tether/llm/openai"
)

func newModel(t *testing.T, srv *llmtest.FakeServer, cfg openai.Config) *openai.Model {
	t.Helper()
	cfg.BaseURL = srv.URL + "/v1"
	if cfg.Model == "" {
		cfg.Model = "fake"
	}
	cfg.HTTPClient = srv.Client()
	m, err := openai.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

var hello = llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}

func TestChatRequestShape(t *testing.T) {
	srv := llmtest.NewFakeOpenAI(llmtest.Script{Turns: []llmtest.Turn{{Content: "ok"}}})
	defer srv.Close()
	srv.APIKey = "sk-test"
	m := newModel(t, srv, openai.Config{APIKey: "sk-test", ExtraBody: map[string]any{"chat_template_kwargs": map[string]any{"enable_thinking": false}}})
	temp := 0.3
	req := llm.Request{
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "You are a coding agent."},
			{Role: llm.RoleUser, Content: "What is in this picture?", Images: []llm.Image{{MIMEType: "image/png", Data: []byte("PNG")}}},
			{Role: llm.RoleAssistant, Thinking: "secret reasoning", ToolCalls: []llm.ToolCall{
				{ID: "call_1", Name: "read_file", Arguments: json.RawMessage(`{"path":"a.go"}`)},
				{Name: "read_file", Arguments: json.RawMessage(`{"path":"b.go"}`)},
			}},
			{Role: llm.RoleTool, ToolName: "read_file", ToolCallID: "call_1", Content: "package a"},
		},
		Tools:       []llm.ToolSpec{{Name: "read_file", Description: "Read a file", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)}},
		Temperature: &temp,
		Options:     map[string]any{"top_k": 20},
	}
	if _, err := llm.Collect(m.Chat(t.Context(), req)); err != nil {
		t.Fatal(err)
	}
	body := srv.Requests()[0]
	checks := map[string]string{
		"model":                                "fake",
		"stream":                               "true",
		"stream_options.include_usage":         "true",
		"temperature":                          "0.3",
		"top_k":                                "20",
		"chat_template_kwargs.enable_thinking": "false",
		"messages.0.role":                      "system",
		"messages.1.content.1.image_url.url":   "data:image/png;base64,UE5H",
		"messages.2.tool_calls.0.id":           "call_1",
		"messages.2.tool_calls.1.id":           "call_1", // the second call had no id: it gets call_<position>
		"messages.2.tool_calls.0.function.arguments": `{"path":"a.go"}`,
		"messages.3.role":                                  "tool",
		"messages.3.tool_call_id":                          "call_1",
		"tools.0.function.name":                            "read_file",
		"tools.0.function.parameters.properties.path.type": "string",
	}
	for path, want := range checks {
		if got := gjson.GetBytes(body, path).String(); got != want {
			t.Errorf("%s = %q, want %q", path, got, want)
		}
	}
	if gjson.GetBytes(body, "messages.2.reasoning_content").Exists() || strings.Contains(string(body), "secret reasoning") {
		t.Error("assistant thinking was sent back; OpenAI-compatible servers reject or ignore it")
	}
}

func TestChatStreamsReasoningAndToolCalls(t *testing.T) {
	calls := []llmtest.CallSpec{
		{Name: "read_file", Arguments: json.RawMessage(`{"path":"main.go"}`)},
		{Name: "read_file", Arguments: json.RawMessage(`{"path":"main.go"}`)}, // identical: kept
		{Name: "list_files", Arguments: json.RawMessage(`{"dir":"internal/agent","recursive":true}`)},
	}
	script := llmtest.Script{Turns: []llmtest.Turn{{Thinking: "Look at main first.", Content: "Reading.", ToolCalls: calls}}}
	quirks := []struct {
		name  string
		setup func(*llmtest.FakeServer)
		ids   []string
	}{
		{"openai indexes", func(*llmtest.FakeServer) {}, []string{"call_fake0", "call_fake1", "call_fake2"}},
		{"every call index 0", func(s *llmtest.FakeServer) { s.ToolIndexZero = true }, []string{"call_fake0", "call_fake1", "call_fake2"}},
		{"index 0 and no ids", func(s *llmtest.FakeServer) { s.ToolIndexZero, s.NoToolCallIDs = true, true }, []string{"call_0", "call_1", "call_2"}},
		{"reasoning field", func(s *llmtest.FakeServer) { s.ReasoningField = "reasoning" }, []string{"call_fake0", "call_fake1", "call_fake2"}},
	}
	for _, q := range quirks {
		t.Run(q.name, func(t *testing.T) {
			srv := llmtest.NewFakeOpenAI(script)
			defer srv.Close()
			q.setup(srv)
			m := newModel(t, srv, openai.Config{})
			r, err := llm.Collect(m.Chat(t.Context(), hello))
			if err != nil {
				t.Fatal(err)
			}
			if r.Message.Thinking != "Look at main first." || r.Message.Content != "Reading." {
				t.Errorf("thinking %q content %q", r.Message.Thinking, r.Message.Content)
			}
			if len(r.Message.ToolCalls) != len(calls) {
				t.Fatalf("got %d calls %+v, want %d", len(r.Message.ToolCalls), r.Message.ToolCalls, len(calls))
			}
			for i, c := range r.Message.ToolCalls {
				var got, want any
				json.Unmarshal(c.Arguments, &got)
				json.Unmarshal(calls[i].Arguments, &want)
				if c.Name != calls[i].Name || c.ID != q.ids[i] || c.Index != i || !jsonEqual(got, want) {
					t.Errorf("call %d = %+v (args %s)", i, c, c.Arguments)
				}
			}
			if r.StopReason != llm.StopToolCalls || r.Usage.CompletionTokens == 0 || r.Usage.PromptTokens == 0 {
				t.Errorf("stop %q usage %+v", r.StopReason, r.Usage)
			}
		})
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func TestChatWithoutUsage(t *testing.T) {
	srv := llmtest.NewFakeOpenAI(llmtest.Script{Turns: []llmtest.Turn{{Content: "ok"}}})
	defer srv.Close()
	m := newModel(t, srv, openai.Config{NoStreamUsage: true})
	r, err := llm.Collect(m.Chat(t.Context(), hello))
	if err != nil || r.Message.Content != "ok" || r.Usage != (llm.Usage{}) || r.StopReason != llm.StopEnd {
		t.Fatalf("%+v %v", r, err)
	}
	if gjson.GetBytes(srv.Requests()[0], "stream_options").Exists() {
		t.Error("stream_options sent despite NoStreamUsage")
	}
}

func TestCapabilities(t *testing.T) {
	srv := llmtest.NewFakeOpenAI(llmtest.Script{})
	defer srv.Close()
	srv.ContextLength = 40960
	m := newModel(t, srv, openai.Config{})
	c, err := m.Capabilities(t.Context())
	if err != nil || c != (llm.Capabilities{Tools: true, ContextLength: 40960, ContextSource: llm.ContextFromServer}) {
		t.Fatalf("Capabilities = %+v, %v", c, err)
	}
	// A host window below the server's is the one to budget with; one
	// above it cannot be had and is warned about.
	m = newModel(t, srv, openai.Config{ContextLength: 8192})
	if c, err := m.Capabilities(t.Context()); err != nil || c.ContextLength != 8192 || c.ContextSource != llm.ContextFromHost || c.ContextWarning != "" {
		t.Fatalf("host window below the server's: %+v, %v", c, err)
	}
	m = newModel(t, srv, openai.Config{ContextLength: 65536, Model: "fake"})
	if c, err := m.Capabilities(t.Context()); err != nil || c.ContextLength != 40960 || !strings.Contains(c.ContextWarning, "65536") {
		t.Fatalf("host window above the server's: %+v, %v", c, err)
	}
	fixed := llm.Capabilities{Thinking: true}
	m = newModel(t, srv, openai.Config{Capabilities: &fixed})
	if c, err := m.Capabilities(t.Context()); err != nil || c != fixed {
		t.Fatalf("configured Capabilities = %+v, %v", c, err)
	}
	srv.APIKey = "k"
	m = newModel(t, srv, openai.Config{Model: "other"})
	if _, err := m.Capabilities(t.Context()); !errors.Is(err, llm.ErrUnauthorized) {
		t.Fatalf("unauthorized /models: %v", err)
	}
}

func TestMalformedToolArguments(t *testing.T) {
	// A server that cuts a call's JSON short: the calls still come back,
	// inside the typed error, so the agent can tell the model what was wrong.
	srv := llmtest.NewFakeOpenAI(llmtest.Script{Turns: []llmtest.Turn{{ToolCalls: []llmtest.CallSpec{
		{Name: "read_file", Arguments: json.RawMessage(`{"path":"a"}`)},
		{Name: "run", Arguments: json.RawMessage(`{"cmd":"mak`)},
	}}}})
	defer srv.Close()
	m := newModel(t, srv, openai.Config{})
	_, err := llm.Collect(m.Chat(t.Context(), hello))
	var mal *llm.MalformedToolCallError
	if !errors.As(err, &mal) || len(mal.Calls) != 2 || mal.Calls[1].ID != "call_fake1" {
		t.Fatalf("err = %v (%+v)", err, mal)
	}
	if !strings.Contains(err.Error(), "call 1 (run)") {
		t.Errorf("error %q does not name the bad call", err)
	}
}

func TestNewRejectsBadBaseURL(t *testing.T) {
	if _, err := openai.New(openai.Config{BaseURL: "localhost:8000/v1"}); err == nil || !strings.Contains(err.Error(), "http://") {
		t.Fatalf("err = %v", err)
	}
}
