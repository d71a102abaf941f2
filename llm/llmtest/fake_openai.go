package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/tetherdev/tether/llm"
)

// NewFakeOpenAI starts a fake OpenAI-compatible server playing s; its API
// root is URL+"/v1". It serves
//
//   - POST /v1/chat/completions with "stream":true: SSE events
//     "data: {chat.completion.chunk}" — a first delta with the role, one
//     delta per piece of reasoning (in ReasoningField) or content, tool calls
//     as OpenAI streams them (a delta with index, id, type and name, then
//     argument fragments), a delta with finish_reason, a usage chunk with
//     empty choices when stream_options.include_usage is set, and
//     "data: [DONE]";
//   - GET /v1/models: the model with max_model_len (as vLLM reports it),
//     or with meta.n_ctx_train and GET /props giving the running window
//     (as llama.cpp's server does) when Flavor is FlavorLlamaCpp.
//
// A prompt (with the tool definitions and max_tokens) over ContextLength
// is refused with a 400 in the Flavor's words, without using a script
// turn; Prompts records what the model saw.
//
// Errors have OpenAI's shape, {"error":{"message","type","param","code"}}:
// an unknown model is a 404 with code "model_not_found"; tools sent to a
// model whose script says "tools":false get a 400 "… does not support
// tools"; a missing or wrong key is a 401 when APIKey is set.
func NewFakeOpenAI(s Script) *FakeServer {
	return newFakeServer(s, func(f *FakeServer) http.Handler {
		mux := http.NewServeMux()
		mux.HandleFunc("POST /v1/chat/completions", f.openaiChat)
		mux.HandleFunc("GET /v1/models", f.openaiModels)
		mux.HandleFunc("GET /props", f.openaiProps)
		return mux
	})
}

func openaiError(w http.ResponseWriter, status int, typ, code, msg string) {
	e := map[string]any{"message": msg, "type": typ, "param": nil, "code": nil}
	if code != "" {
		e["code"] = code
	}
	writeJSON(w, status, map[string]any{"error": e})
}

func (f *FakeServer) openaiAuth(w http.ResponseWriter, r *http.Request) bool {
	if f.authorized(r) {
		return true
	}
	msg := "Incorrect API key provided."
	if bearerMissing(r) {
		msg = "You didn't provide an API key."
	}
	openaiError(w, http.StatusUnauthorized, "invalid_request_error", "invalid_api_key", msg)
	return false
}

func (f *FakeServer) openaiChat(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var sized struct {
		Tools     []json.RawMessage `json:"tools"`
		Messages  []wireMessage     `json:"messages"`
		MaxTokens int               `json:"max_tokens"`
		MaxCompl  int               `json:"max_completion_tokens"`
	}
	if json.Unmarshal(body, &sized) == nil && f.authorized(r) {
		msgs := make([]llm.Message, len(sized.Messages))
		for i, m := range sized.Messages {
			msgs[i] = m.message()
		}
		p := Prompt{NumCtx: f.contextLength(), Sent: toolTokens(sized.Tools) + llm.EstimateTokens(msgs)}
		if f.overWindow(w, p, max(sized.MaxTokens, sized.MaxCompl)) {
			f.mu.Lock()
			f.requests = append(f.requests, json.RawMessage(body))
			f.mu.Unlock()
			return
		}
		p.Tokens = p.Sent
		for _, m := range msgs {
			if m.Role == llm.RoleSystem {
				p.System += m.Content
			}
		}
		f.addPrompt(p)
	}
	fault, turn, ok := f.take(body)
	if fault.Kind == FaultStatus {
		if fault.RetryAfter != "" {
			w.Header().Set("Retry-After", fault.RetryAfter)
		}
		if fault.Body != "" {
			w.WriteHeader(fault.Status)
			io.WriteString(w, fault.Body)
			return
		}
		openaiError(w, fault.Status, "server_error", "", fmt.Sprintf("fake %d: %s", fault.Status, http.StatusText(fault.Status)))
		return
	}
	if !f.openaiAuth(w, r) {
		return
	}
	var req struct {
		Model         string            `json:"model"`
		Stream        bool              `json:"stream"`
		Tools         []json.RawMessage `json:"tools"`
		StreamOptions struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		openaiError(w, http.StatusBadRequest, "invalid_request_error", "", "We could not parse the JSON body of your request.")
		return
	}
	if !f.knows(req.Model) {
		openaiError(w, http.StatusNotFound, "invalid_request_error", "model_not_found",
			fmt.Sprintf("The model `%s` does not exist or you do not have access to it.", req.Model))
		return
	}
	if tools, _ := f.capabilities(); !tools && len(req.Tools) > 0 {
		openaiError(w, http.StatusBadRequest, "invalid_request_error", "", fmt.Sprintf("%s does not support tools", req.Model))
		return
	}
	if !req.Stream {
		openaiError(w, http.StatusBadRequest, "invalid_request_error", "", "llmtest: the fake server only streams; set \"stream\": true")
		return
	}
	if !ok {
		openaiError(w, http.StatusInternalServerError, "server_error", "", "llmtest: fake server script exhausted")
		return
	}

	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	sw := &streamWriter{w: w, r: r, f: f, fault: fault, garbage: "data: {\"id\":\"chatcmpl-fake\",\"choices\":[{\"delta\":{\"content\":\"bro\n\n",
		errLine: func(msg string) string {
			b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": "server_error", "code": nil}})
			return "data: " + string(b) + "\n\n"
		}}
	event := func(choices []any, usage any) bool {
		v := map[string]any{
			"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1748386497,
			"model": req.Model, "system_fingerprint": "fp_fake", "choices": choices,
		}
		if usage != nil {
			v["usage"] = usage
		}
		b, _ := json.Marshal(v)
		return sw.write("data: " + string(b) + "\n\n")
	}
	delta := func(d map[string]any, finish any) []any {
		return []any{map[string]any{"index": 0, "delta": d, "logprobs": nil, "finish_reason": finish}}
	}
	if !event(delta(map[string]any{"role": "assistant", "content": ""}, nil), nil) {
		return
	}
	field := f.ReasoningField
	if field == "" {
		field = "reasoning_content"
	}
	for _, p := range split(turn.Thinking, f.chunkRunes()) {
		if !event(delta(map[string]any{field: p}, nil), nil) {
			return
		}
	}
	for _, p := range split(turn.Content, f.chunkRunes()) {
		if !event(delta(map[string]any{"content": p}, nil), nil) {
			return
		}
	}
	for i, c := range turn.ToolCalls {
		idx := i
		if f.ToolIndexZero {
			idx = 0
		}
		head := map[string]any{"index": idx, "type": "function", "function": map[string]any{"name": c.Name, "arguments": ""}}
		if !f.NoToolCallIDs {
			id := c.ID
			if id == "" {
				id = fmt.Sprintf("call_fake%d", i)
			}
			head["id"] = id
		}
		if !event(delta(map[string]any{"tool_calls": []any{head}}, nil), nil) {
			return
		}
		for _, frag := range split(string(c.Arguments), 7) {
			part := map[string]any{"index": idx, "function": map[string]any{"arguments": frag}}
			if !event(delta(map[string]any{"tool_calls": []any{part}}, nil), nil) {
				return
			}
		}
	}
	finish := "stop"
	if len(turn.ToolCalls) > 0 {
		finish = "tool_calls"
	}
	if !event(delta(map[string]any{}, finish), nil) {
		return
	}
	if req.StreamOptions.IncludeUsage {
		completion := (len(turn.Content) + len(turn.Thinking) + 3) / 4
		prompt := len(body) / 4
		if !event([]any{}, map[string]any{"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}) {
			return
		}
	}
	sw.write("data: [DONE]\n\n")
}

func (f *FakeServer) openaiModels(w http.ResponseWriter, r *http.Request) {
	if !f.openaiAuth(w, r) {
		return
	}
	name := f.Model
	if name == "" {
		name = "fake"
	}
	entry := map[string]any{"id": name, "object": "model", "created": 1748386497, "owned_by": "llmtest"}
	if f.Flavor == FlavorLlamaCpp {
		trained := f.MaxContextLength
		if trained == 0 {
			trained = f.contextLength()
		}
		entry["owned_by"] = "llamacpp"
		entry["meta"] = map[string]any{"vocab_type": 2, "n_vocab": 151936, "n_ctx_train": trained, "n_embd": 4096}
	} else {
		entry["max_model_len"] = f.contextLength()
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []any{entry}})
}

// openaiProps is llama.cpp's GET /props: the window its slots run with.
func (f *FakeServer) openaiProps(w http.ResponseWriter, r *http.Request) {
	if f.Flavor != FlavorLlamaCpp {
		http.NotFound(w, r)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"default_generation_settings": map[string]any{"n_ctx": f.contextLength()},
		"total_slots":                 1, "model_path": "/models/fake.gguf", "build_info": "b0000-llmtest",
	})
}
