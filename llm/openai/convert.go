package openai

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"

	oai "github.com/openai/openai-go"
	"github.com/openai/openai-go/option"
	"github.com/openai/openai-go/shared"

	"github.com/tetherdev/tether/llm"
)

// params turns an llm.Request into chat-completion parameters plus the
// request options carrying Request.Options as extra top-level JSON fields
// (chat_template_kwargs, top_k, … for vLLM and llama.cpp).
//
// Assistant thinking is not sent back: the OpenAI schema has no field for
// it and some servers (DeepSeek) reject reasoning_content in input.
func (m *Model) params(req llm.Request) (oai.ChatCompletionNewParams, []option.RequestOption, error) {
	name := req.Model
	if name == "" {
		name = m.cfg.Model
	}
	if name == "" {
		return oai.ChatCompletionNewParams{}, nil, fmt.Errorf("openai: no model name: set Config.Model or Request.Model")
	}
	p := oai.ChatCompletionNewParams{Model: shared.ChatModel(name)}
	if !m.cfg.NoStreamUsage {
		p.StreamOptions = oai.ChatCompletionStreamOptionsParam{IncludeUsage: oai.Bool(true)}
	}
	if req.Temperature != nil {
		p.Temperature = oai.Float(*req.Temperature)
	}
	// The chat-completions schema has no images in tool messages, so the
	// images of a run of tool results follow it in one user message
	// (between the results it would break the call/result pairing).
	var toolImages []oai.ChatCompletionContentPartUnionParam
	for i, msg := range req.Messages {
		if msg.Role != llm.RoleTool && len(toolImages) > 0 {
			p.Messages = append(p.Messages, oai.UserMessage(toolImages))
			toolImages = nil
		}
		u, err := message(msg)
		if err != nil {
			return p, nil, fmt.Errorf("openai: message %d: %w", i, err)
		}
		p.Messages = append(p.Messages, u)
		if msg.Role == llm.RoleTool && len(msg.Images) > 0 {
			toolImages = append(toolImages, oai.TextContentPart(fmt.Sprintf("Images returned by tool %s:", cmp.Or(msg.ToolName, msg.ToolCallID))))
			toolImages = append(toolImages, imageParts(msg.Images)...)
		}
	}
	if len(toolImages) > 0 {
		p.Messages = append(p.Messages, oai.UserMessage(toolImages))
	}
	for _, t := range req.Tools {
		var params shared.FunctionParameters
		raw := bytes.TrimSpace(t.Parameters)
		if len(raw) == 0 {
			raw = []byte(`{"type":"object","properties":{}}`)
		}
		if err := json.Unmarshal(raw, &params); err != nil {
			return p, nil, fmt.Errorf("openai: tool %q: parameters must be a JSON Schema object: %w", t.Name, err)
		}
		fd := shared.FunctionDefinitionParam{Name: t.Name, Parameters: params}
		if t.Description != "" {
			fd.Description = oai.String(t.Description)
		}
		p.Tools = append(p.Tools, oai.ChatCompletionToolParam{Function: fd})
	}
	var opts []option.RequestOption
	for k, v := range m.cfg.ExtraBody {
		opts = append(opts, option.WithJSONSet(k, v))
	}
	for k, v := range req.Options {
		opts = append(opts, option.WithJSONSet(k, v))
	}
	return p, opts, nil
}

func message(msg llm.Message) (oai.ChatCompletionMessageParamUnion, error) {
	switch msg.Role {
	case llm.RoleSystem:
		return oai.SystemMessage(msg.Content), nil
	case llm.RoleUser:
		if len(msg.Images) == 0 {
			return oai.UserMessage(msg.Content), nil
		}
		parts := []oai.ChatCompletionContentPartUnionParam{oai.TextContentPart(msg.Content)}
		return oai.UserMessage(append(parts, imageParts(msg.Images)...)), nil
	case llm.RoleTool:
		return oai.ToolMessage(msg.Content, msg.ToolCallID), nil
	case llm.RoleAssistant:
		a := oai.ChatCompletionAssistantMessageParam{}
		if msg.Content != "" || len(msg.ToolCalls) == 0 {
			a.Content.OfString = oai.String(msg.Content)
		}
		for i, tc := range msg.ToolCalls {
			args := string(bytes.TrimSpace(tc.Arguments))
			if args == "" || args == "null" {
				args = "{}"
			}
			a.ToolCalls = append(a.ToolCalls, oai.ChatCompletionMessageToolCallParam{
				ID:       callID(tc.ID, i),
				Function: oai.ChatCompletionMessageToolCallFunctionParam{Name: tc.Name, Arguments: args},
			})
		}
		return oai.ChatCompletionMessageParamUnion{OfAssistant: &a}, nil
	}
	return oai.ChatCompletionMessageParamUnion{}, fmt.Errorf("unknown role %q (want system, user, assistant or tool)", msg.Role)
}

// imageParts encodes images as data-URL content parts.
func imageParts(images []llm.Image) []oai.ChatCompletionContentPartUnionParam {
	var parts []oai.ChatCompletionContentPartUnionParam
	for _, img := range images {
		mt := img.MIMEType
		if mt == "" {
			mt = http.DetectContentType(img.Data)
		}
		url := "data:" + mt + ";base64," + base64.StdEncoding.EncodeToString(img.Data)
		parts = append(parts, oai.ImageContentPart(oai.ChatCompletionContentPartImageImageURLParam{URL: url}))
	}
	return parts
}

// callID gives a call without an id (from a server that issues none) a
// stable one, so that tool results can still name the call they answer.
// The same rule is applied to the calls a response delivers.
func callID(id string, index int) string {
	if id != "" {
		return id
	}
	return fmt.Sprintf("call_%d", index)
}

func stopReason(finish string, sawToolCalls bool) llm.StopReason {
	switch finish {
	case "length":
		return llm.StopLength
	case "tool_calls", "function_call":
		return llm.StopToolCalls
	}
	if sawToolCalls {
		return llm.StopToolCalls
	}
	return llm.StopEnd
}

// reasoning returns the reasoning text of a delta: vLLM and llama.cpp send
// reasoning_content, OpenRouter and newer vLLM send reasoning.
func reasoning(extra map[string]string) string {
	for _, k := range []string{"reasoning_content", "reasoning"} {
		raw, ok := extra[k]
		if !ok || raw == "" || raw == "null" {
			continue
		}
		var s string
		if json.Unmarshal([]byte(raw), &s) == nil && s != "" {
			return s
		}
	}
	return ""
}
