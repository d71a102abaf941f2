package llm

import (
	"context"
	"encoding/json"
	"iter"
)

// Role says who wrote a message.
type Role string

const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one turn of a conversation.
//
// Invariants the agent relies on, whether calls arrive natively or are parsed
// from text: an assistant message keeps its Thinking, Content and ToolCalls
// together, because a model that loses its own reasoning between iterations
// loses its chain of thought; a tool result (RoleTool) carries ToolName, and
// ToolCallID when the backend issued one, so a model can match results to
// calls in a multi-call turn.
type Message struct {
	Role       Role       `json:"role"`
	Content    string     `json:"content,omitempty"`
	Thinking   string     `json:"thinking,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolName   string     `json:"tool_name,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	Images     []Image    `json:"images,omitempty"`
}

// Image is an image attached to a user message, for vision models.
type Image struct {
	MIMEType string `json:"mime_type,omitempty"`
	Data     []byte `json:"data"`
}

// ToolCall is one call a model asked for. Arguments is always a JSON object.
// ID is empty for backends that do not issue ids (Ollama); Index is the
// call's position within its turn (0, 1, 2… in the order the calls
// started), which the backends assign themselves because servers disagree
// about the indexes they send (see [ToolCallAssembler]).
type ToolCall struct {
	ID        string          `json:"id,omitempty"`
	Index     int             `json:"index"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// ToolSpec describes a tool to a model that calls tools natively.
// Parameters is a JSON Schema object.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Request is one chat request. The zero values of the optional fields mean
// "the backend's default".
type Request struct {
	Model       string
	Messages    []Message
	Tools       []ToolSpec
	Think       *bool
	Temperature *float64
	Options     map[string]any
}

// Chunk is one piece of a streamed response. Content and Thinking are
// deltas; ToolCalls are complete calls; the last chunk has Done set with
// the token counts and the stop reason. [Collect] joins a stream of chunks
// into one assistant [Message].
type Chunk struct {
	Content    string
	Thinking   string
	ToolCalls  []ToolCall
	Done       bool
	Usage      Usage
	StopReason StopReason
}

// Usage counts tokens as the model reported them.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// StopReason says why a model stopped generating.
type StopReason string

const (
	StopEnd       StopReason = "stop"
	StopLength    StopReason = "length"
	StopToolCalls StopReason = "tool_calls"
)

// Capabilities describe what a model can do.
//
// ContextLength is the window, in tokens, the model runs with for this
// backend's requests: the one the backend asks for (Ollama's num_ctx) or
// the server reports it runs with, not the largest the model was trained
// for. It is the number to budget a prompt against; zero means unknown.
// MaxContextLength is the model's trained maximum where the server says
// it; ContextSource says who chose ContextLength, and ContextWarning is
// set when the window differs from what the host asked for (a host asking
// more than the model supports).
type Capabilities struct {
	Tools            bool          `json:"tools"`
	Thinking         bool          `json:"thinking"`
	Vision           bool          `json:"vision"`
	ContextLength    int           `json:"context_length,omitempty"`
	MaxContextLength int           `json:"max_context_length,omitempty"`
	ContextSource    ContextSource `json:"context_source,omitempty"`
	ContextWarning   string        `json:"context_warning,omitempty"`
}

// ContextSource says who chose a model's context window.
type ContextSource string

const (
	// ContextFromHost: the host program's setting (a config field, a
	// model-string option, a flag).
	ContextFromHost ContextSource = "host"
	// ContextFromEnv: the environment (OLLAMA_CONTEXT_LENGTH).
	ContextFromEnv ContextSource = "env"
	// ContextFromDefault: the backend's default for agent work.
	ContextFromDefault ContextSource = "default"
	// ContextFromServer: what the server reports it runs with (llama.cpp's
	// n_ctx, vLLM's max_model_len).
	ContextFromServer ContextSource = "server"
)

// Model streams one chat response. The sequence ends after a chunk with
// Done set, or with a non-nil error; stopping the iteration early, or
// cancelling ctx, releases the underlying connection.
type Model interface {
	Chat(ctx context.Context, req Request) iter.Seq2[Chunk, error]
}

// ModelFunc adapts a function to the Model interface.
type ModelFunc func(ctx context.Context, req Request) iter.Seq2[Chunk, error]

// Chat calls f.
func (f ModelFunc) Chat(ctx context.Context, req Request) iter.Seq2[Chunk, error] {
	return f(ctx, req)
}

// CapabilityReporter is implemented by models that can say what they
// support. Callers use [CapabilitiesOf] rather than asserting it directly.
type CapabilityReporter interface {
	Capabilities(ctx context.Context) (Capabilities, error)
}

// CapabilitiesOf reports m's capabilities, or the zero Capabilities (no
// native tools, no thinking) when m does not implement CapabilityReporter.
func CapabilitiesOf(ctx context.Context, m Model) (Capabilities, error) {
	if r, ok := m.(CapabilityReporter); ok {
		return r.Capabilities(ctx)
	}
	return Capabilities{}, nil
}
