package ollama

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"

	"github.com/ollama/ollama/api"

	"github.com/tetherdev/tether/llm"
)

// request turns an llm.Request into Ollama's native chat request.
// Assistant messages keep thinking, content and tool calls together and
// tool results keep tool_name, because Ollama's chat templates
// use both to give the model its own reasoning and to match results to
// calls.
func (m *Model) request(req llm.Request) (*api.ChatRequest, error) {
	name := req.Model
	if name == "" {
		name = m.cfg.Model
	}
	if name == "" {
		return nil, fmt.Errorf("ollama: no model name: set Config.Model or Request.Model (e.g. \"qwen3:8b\")")
	}
	out := &api.ChatRequest{Model: name, Stream: new(true)}
	for i, msg := range req.Messages {
		am := api.Message{
			Role:       string(msg.Role),
			Content:    msg.Content,
			Thinking:   msg.Thinking,
			ToolName:   msg.ToolName,
			ToolCallID: msg.ToolCallID,
		}
		for _, img := range msg.Images {
			am.Images = append(am.Images, api.ImageData(img.Data))
		}
		for _, tc := range msg.ToolCalls {
			args := api.NewToolCallFunctionArguments()
			if raw := bytes.TrimSpace(tc.Arguments); len(raw) > 0 && !bytes.Equal(raw, []byte("null")) {
				if err := json.Unmarshal(raw, &args); err != nil {
					return nil, fmt.Errorf("ollama: message %d: tool call %q: arguments must be a JSON object: %w", i, tc.Name, err)
				}
			}
			am.ToolCalls = append(am.ToolCalls, api.ToolCall{
				ID:       tc.ID,
				Function: api.ToolCallFunction{Index: tc.Index, Name: tc.Name, Arguments: args},
			})
		}
		out.Messages = append(out.Messages, am)
	}
	for _, t := range req.Tools {
		tool := api.Tool{Type: "function", Function: api.ToolFunction{Name: t.Name, Description: t.Description}}
		params := bytes.TrimSpace(t.Parameters)
		if len(params) == 0 {
			params = []byte(`{"type":"object","properties":{}}`)
		}
		if err := json.Unmarshal(params, &tool.Function.Parameters); err != nil {
			return nil, fmt.Errorf("ollama: tool %q: parameters must be a JSON Schema object: %w", t.Name, err)
		}
		out.Tools = append(out.Tools, tool)
	}
	if req.Think != nil {
		out.Think = &api.ThinkValue{Value: *req.Think}
	}
	opts := maps.Clone(m.cfg.Options)
	if opts == nil {
		opts = make(map[string]any) // num_ctx goes in on every request
	}
	maps.Copy(opts, req.Options)
	if req.Temperature != nil {
		opts["temperature"] = *req.Temperature
	}
	out.Options = opts
	if m.cfg.KeepAlive != 0 {
		out.KeepAlive = &api.Duration{Duration: m.cfg.KeepAlive}
	}
	return out, nil
}

// chunk turns one streamed line into an llm.Chunk. next is the index the
// first tool call of this line gets; Ollama sends each call whole, in its
// own line or several per line, and they are numbered in arrival order.
func chunk(r api.ChatResponse, next int) (llm.Chunk, error) {
	c := llm.Chunk{Content: r.Message.Content, Thinking: r.Message.Thinking}
	for _, tc := range r.Message.ToolCalls {
		args, err := json.Marshal(tc.Function.Arguments)
		if err != nil {
			return c, fmt.Errorf("ollama: tool call %q: cannot encode arguments: %w", tc.Function.Name, err)
		}
		if bytes.Equal(args, []byte("null")) {
			args = []byte("{}")
		}
		c.ToolCalls = append(c.ToolCalls, llm.ToolCall{ID: tc.ID, Index: next, Name: tc.Function.Name, Arguments: args})
		next++
	}
	if r.Done {
		c.Done = true
		c.Usage = llm.Usage{PromptTokens: r.PromptEvalCount, CompletionTokens: r.EvalCount}
	}
	return c, nil
}

func stopReason(doneReason string, sawToolCalls bool) llm.StopReason {
	switch {
	case doneReason == "length":
		return llm.StopLength
	case sawToolCalls:
		return llm.StopToolCalls
	default:
		return llm.StopEnd
	}
}
