package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/tetherdev/tether/llm"
)

// OllamaDefaultNumCtx is the window the fake Ollama runs a request with
// when it carries no num_ctx: real Ollama's default on machines with less
// than 24 GiB of VRAM (docs.ollama.com/context-length), where most local
// models run.
const OllamaDefaultNumCtx = 4096

// Prompt is what a fake server's model saw of one chat request. Tokens
// are counted with llm.EstimateTokens (and llm.EstimateToolSpecTokens for
// the tool definitions), the estimate the agent budgets with.
type Prompt struct {
	// NumCtx is the window the request ran with: its num_ctx (Ollama) or
	// the server's context length (OpenAI-compatible), capped by the
	// model's maximum.
	NumCtx int
	// Sent is the size of the prompt as sent; Tokens what the model saw.
	Sent, Tokens int
	// Dropped counts the messages Ollama dropped from the front (it keeps
	// system messages and never separates a tool result from its call).
	Dropped int
	// Cut is set when even the system messages and the last turn did not
	// fit, so Ollama's runner kept only the last NumCtx tokens: the start
	// of the system prompt is gone.
	Cut bool
	// System is the system prompt as the model saw it.
	System string
	// Rejected is set when an OpenAI-compatible server refused the
	// request as over the window.
	Rejected bool
}

// Whole reports whether the model saw the whole prompt it was sent.
func (p Prompt) Whole() bool { return p.Dropped == 0 && !p.Cut && !p.Rejected }

// Prompts returns what the model saw of each chat request that reached
// it, in order.
func (f *FakeServer) Prompts() []Prompt {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Prompt(nil), f.prompts...)
}

func (f *FakeServer) addPrompt(p Prompt) {
	f.mu.Lock()
	f.prompts = append(f.prompts, p)
	f.mu.Unlock()
}

// wireMessage is a chat message in either wire format, as far as its size
// goes.
type wireMessage struct {
	Role      string `json:"role"`
	Content   any    `json:"content"` // a string, or OpenAI's content parts
	Thinking  string `json:"thinking"`
	Reasoning string `json:"reasoning_content"`
	ToolCalls []struct {
		Function struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
	Images []string `json:"images"`
}

func (m wireMessage) message() llm.Message {
	out := llm.Message{Role: llm.Role(m.Role), Thinking: m.Thinking + m.Reasoning}
	switch c := m.Content.(type) {
	case string:
		out.Content = c
	case nil:
	default:
		b, _ := json.Marshal(c)
		out.Content = string(b)
	}
	for _, tc := range m.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, llm.ToolCall{Name: tc.Function.Name, Arguments: tc.Function.Arguments})
	}
	for range m.Images {
		out.Images = append(out.Images, llm.Image{})
	}
	return out
}

// fit decides what a model with a window of numCtx tokens sees of msgs,
// as Ollama's server does (server/prompt.go chatPrompt): drop messages
// from the front, keeping system messages and never a tool result without
// the assistant turn that called it, until the rest fits; if even the
// system messages and the last turn do not, its runner keeps the last
// numCtx tokens, and the head of the prompt (the system prompt) is lost.
func fit(msgs []llm.Message, toolTokens, numCtx int) Prompt {
	p := Prompt{NumCtx: numCtx, Sent: toolTokens + llm.EstimateTokens(msgs)}
	size := func(from int) int {
		n := toolTokens + llm.EstimateTokens(msgs[from:])
		for _, m := range msgs[:from] {
			if m.Role == llm.RoleSystem {
				n += llm.EstimateTokens([]llm.Message{m})
			}
		}
		return n
	}
	start := 0
	for start < len(msgs)-1 && size(start) > numCtx {
		start++
		for start < len(msgs)-1 && msgs[start].Role == llm.RoleTool {
			start++ // a tool result goes with its call
		}
	}
	for _, m := range msgs[:start] {
		if m.Role != llm.RoleSystem {
			p.Dropped++
		}
	}
	for _, m := range msgs {
		if m.Role == llm.RoleSystem {
			p.System += m.Content
		}
	}
	p.Tokens = size(start)
	if p.Tokens > numCtx {
		// Runner truncation: the first excess tokens go, system prompt first.
		excess := p.Tokens - numCtx
		p.Cut, p.Tokens = true, numCtx
		if cut := excess * 4; cut < len(p.System) {
			p.System = p.System[cut:]
		} else {
			p.System = ""
		}
	}
	return p
}

// toolTokens estimates the tokens of tool definitions as sent.
func toolTokens(tools []json.RawMessage) int {
	specs := make([]llm.ToolSpec, len(tools))
	for i, t := range tools {
		specs[i] = llm.ToolSpec{Parameters: t}
	}
	return llm.EstimateToolSpecTokens(specs)
}

// overWindow answers an OpenAI-compatible request whose prompt does not
// fit the server's window, as the server named by Flavor does; it reports
// false when the prompt fits.
func (f *FakeServer) overWindow(w http.ResponseWriter, p Prompt, maxTokens int) bool {
	if p.Sent+maxTokens <= p.NumCtx {
		return false
	}
	p.Rejected = true
	p.Tokens = 0
	f.addPrompt(p)
	switch f.Flavor {
	case FlavorLlamaCpp:
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{
			"code": 400, "type": "exceed_context_size_error", "n_prompt_tokens": p.Sent, "n_ctx": p.NumCtx,
			"message": fmt.Sprintf("request (%d tokens) exceeds the available context size (%d tokens), try increasing it", p.Sent, p.NumCtx),
		}})
	default:
		writeJSON(w, http.StatusBadRequest, map[string]any{
			"object": "error", "type": "BadRequestError", "param": nil, "code": 400,
			"message": fmt.Sprintf("This model's maximum context length is %d tokens. However, you requested %d tokens (%d in the messages, %d in the completion). Please reduce the length of the messages or completion.",
				p.NumCtx, p.Sent+maxTokens, p.Sent, maxTokens),
		})
	}
	return true
}

// Flavors of OpenAI-compatible server a FakeServer imitates where they
// differ: the error for a prompt over the window, and where the window is
// reported.
const (
	// FlavorVLLM (the default): max_model_len in /v1/models, "This
	// model's maximum context length is …" errors.
	FlavorVLLM = "vllm"
	// FlavorLlamaCpp: the running window in GET /props
	// (default_generation_settings.n_ctx), the trained one in /v1/models
	// meta.n_ctx_train, exceed_context_size_error errors.
	FlavorLlamaCpp = "llama.cpp"
)
