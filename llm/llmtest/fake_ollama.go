package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/tetherdev/tether/llm"
)

// NewFakeOllama starts a fake Ollama server playing s. It serves
//
//   - POST /api/chat: NDJSON stream, one {"model","created_at","message":{…},"done":false}
//     line per piece of thinking or content, each tool call whole in its own
//     line (as Ollama ≥ 0.8 streams them), and a final line with done:true,
//     done_reason and the eval counts;
//   - POST /api/show: details, model_info with "<arch>.context_length" and
//     the capabilities list ("completion", plus "tools"/"thinking" from the
//     script's capabilities line);
//   - GET /api/tags and GET /api/version.
//
// Each request runs with its options.num_ctx (DefaultNumCtx when absent,
// 4096 as real Ollama on most machines), capped by ContextLength; a
// prompt over it is cut as Ollama cuts it (see Prompt), and generation
// that fills the window or reaches num_predict ends with done_reason
// "length". Prompts reports what the model saw of every request.
//
// Errors have Ollama's shape, {"error":"…"}: an unknown model is a 404
// "model \"x\" not found, try pulling it first"; tools sent to a model
// whose script says "tools":false get a 400 "… does not support tools".
func NewFakeOllama(s Script) *FakeServer {
	return newFakeServer(s, func(f *FakeServer) http.Handler {
		mux := http.NewServeMux()
		mux.HandleFunc("POST /api/chat", f.ollamaChat)
		mux.HandleFunc("POST /api/show", f.ollamaShow)
		mux.HandleFunc("GET /api/tags", f.ollamaTags)
		mux.HandleFunc("GET /api/version", func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, http.StatusOK, map[string]string{"version": "0.17.4"})
		})
		return mux
	})
}

func ollamaError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

func (f *FakeServer) ollamaAuth(w http.ResponseWriter, r *http.Request) bool {
	if f.authorized(r) {
		return true
	}
	ollamaError(w, http.StatusUnauthorized, "unauthorized")
	return false
}

func (f *FakeServer) ollamaChat(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	fault, turn, ok := f.take(body)
	if fault.Kind == FaultStatus {
		if fault.RetryAfter != "" {
			w.Header().Set("Retry-After", fault.RetryAfter)
		}
		if fault.Body != "" {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			w.WriteHeader(fault.Status)
			io.WriteString(w, fault.Body)
			return
		}
		ollamaError(w, fault.Status, fmt.Sprintf("fake %d: %s", fault.Status, http.StatusText(fault.Status)))
		return
	}
	if !f.ollamaAuth(w, r) {
		return
	}
	var req struct {
		Model    string            `json:"model"`
		Tools    []json.RawMessage `json:"tools"`
		Messages []wireMessage     `json:"messages"`
		Options  struct {
			NumCtx     int `json:"num_ctx"`
			NumPredict int `json:"num_predict"`
		} `json:"options"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		ollamaError(w, http.StatusBadRequest, "invalid request: "+err.Error())
		return
	}
	if !f.knows(req.Model) {
		ollamaError(w, http.StatusNotFound, fmt.Sprintf("model %q not found, try pulling it first", req.Model))
		return
	}
	if tools, _ := f.capabilities(); !tools && len(req.Tools) > 0 {
		ollamaError(w, http.StatusBadRequest, fmt.Sprintf("registry.ollama.ai/library/%s does not support tools", req.Model))
		return
	}
	if !ok {
		ollamaError(w, http.StatusInternalServerError, "llmtest: fake server script exhausted")
		return
	}

	numCtx := req.Options.NumCtx
	if numCtx <= 0 {
		numCtx = f.defaultNumCtx()
	}
	numCtx = min(numCtx, f.contextLength())
	msgs := make([]llm.Message, len(req.Messages))
	for i, m := range req.Messages {
		msgs[i] = m.message()
	}
	seen := fit(msgs, toolTokens(req.Tools), numCtx)
	f.addPrompt(seen)
	// Generation stops at num_predict, or where the window is full.
	doneReason := "stop"
	room := numCtx - seen.Tokens
	if req.Options.NumPredict > 0 {
		room = min(room, req.Options.NumPredict)
	}
	if llm.EstimateTokens([]llm.Message{{Content: turn.Content, Thinking: turn.Thinking}})-4 > room {
		doneReason = "length"
		turn = cutTurn(turn, max(0, room))
	}

	w.Header().Set("Content-Type", "application/x-ndjson")
	sw := &streamWriter{w: w, r: r, f: f, fault: fault, garbage: "{\"model\":\"" + req.Model + "\",\"message\":{\"content\":\"broken\n",
		errLine: func(msg string) string {
			b, _ := json.Marshal(map[string]string{"error": msg})
			return string(b) + "\n"
		}}
	created := time.Date(2025, 5, 27, 22, 54, 57, 0, time.UTC)
	line := func(msg map[string]any, done bool, extra map[string]any) bool {
		v := map[string]any{"model": req.Model, "created_at": created.Format(time.RFC3339Nano), "message": msg, "done": done}
		for k, x := range extra {
			v[k] = x
		}
		b, _ := json.Marshal(v)
		return sw.write(string(b) + "\n")
	}
	for _, p := range split(turn.Thinking, f.chunkRunes()) {
		if !line(map[string]any{"role": "assistant", "content": "", "thinking": p}, false, nil) {
			return
		}
	}
	for _, p := range split(turn.Content, f.chunkRunes()) {
		if !line(map[string]any{"role": "assistant", "content": p}, false, nil) {
			return
		}
	}
	for i, c := range turn.ToolCalls {
		call := map[string]any{"function": map[string]any{"index": i, "name": c.Name, "arguments": c.Arguments}}
		if c.ID != "" {
			call["id"] = c.ID
		}
		if !line(map[string]any{"role": "assistant", "content": "", "tool_calls": []any{call}}, false, nil) {
			return
		}
	}
	line(map[string]any{"role": "assistant", "content": ""}, true, map[string]any{
		"done_reason": doneReason, "total_duration": 4883583458, "load_duration": 1334875,
		"prompt_eval_count": seen.Tokens, "prompt_eval_duration": 342546000,
		"eval_count": (len(turn.Content) + len(turn.Thinking) + 3) / 4, "eval_duration": 4535599000,
	})
	if sw.fault.Kind != FaultNone && sw.lines == sw.fault.After {
		sw.inject() // a fault scheduled right after the last line
	}
}

// cutTurn keeps what fits in room tokens of a turn's output, thinking
// first, as a model that hit its limit mid-answer leaves it: the tool
// calls, which come last, are lost.
func cutTurn(t Turn, room int) Turn {
	bytes := room * 4
	if len(t.Thinking) >= bytes {
		return Turn{Thinking: t.Thinking[:bytes]}
	}
	bytes -= len(t.Thinking)
	return Turn{Thinking: t.Thinking, Content: t.Content[:min(len(t.Content), bytes)]}
}

func (f *FakeServer) ollamaShow(w http.ResponseWriter, r *http.Request) {
	if !f.ollamaAuth(w, r) {
		return
	}
	var req struct {
		Model string `json:"model"`
		Name  string `json:"name"`
	}
	json.NewDecoder(r.Body).Decode(&req)
	if req.Model == "" {
		req.Model = req.Name
	}
	if !f.knows(req.Model) {
		ollamaError(w, http.StatusNotFound, fmt.Sprintf("model '%s' not found", req.Model))
		return
	}
	caps := []string{"completion"}
	tools, thinking := f.capabilities()
	if tools {
		caps = append(caps, "tools")
	}
	if thinking {
		caps = append(caps, "thinking")
	}
	if c := f.script.Capabilities; c != nil && c.Vision {
		caps = append(caps, "vision")
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"modelfile":  "FROM fake",
		"parameters": "temperature 0.6",
		"template":   "{{ .Prompt }}",
		"details": map[string]any{
			"parent_model": "", "format": "gguf", "family": "fake", "families": []string{"fake"},
			"parameter_size": "8.2B", "quantization_level": "Q4_K_M",
		},
		"model_info": map[string]any{
			"general.architecture":    "fake",
			"general.parameter_count": 8190735360,
			"fake.context_length":     f.contextLength(),
			"fake.embedding_length":   4096,
		},
		"capabilities": caps,
		"modified_at":  "2025-05-27T22:54:57Z",
	})
}

func (f *FakeServer) ollamaTags(w http.ResponseWriter, r *http.Request) {
	if !f.ollamaAuth(w, r) {
		return
	}
	name := f.Model
	if name == "" {
		name = "fake:latest"
	}
	writeJSON(w, http.StatusOK, map[string]any{"models": []any{map[string]any{
		"name": name, "model": name, "modified_at": "2025-05-27T22:54:57Z", "size": 5225376047,
		"digest": "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
		"details": map[string]any{
			"format": "gguf", "family": "fake", "families": []string{"fake"},
			"parameter_size": "8.2B", "quantization_level": "Q4_K_M",
		},
	}}})
}
