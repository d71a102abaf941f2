package llm

import (
	"encoding/json"
	"testing"
)

func TestEstimateTokens(t *testing.T) {
	tests := []struct {
		name string
		msgs []Message
		want int
	}{
		{"no messages", nil, 0},
		{"framing only", []Message{{}}, tokensPerMessage},
		{"ascii rounds up per four bytes", []Message{{Content: "abcdefghi"}}, tokensPerMessage + 3},
		{"a token a rune outside ascii", []Message{{Content: "日本語"}}, tokensPerMessage + 3},
		{"thinking counts", []Message{{Thinking: "abcd", Content: "efgh"}}, tokensPerMessage + 2},
		{"an image costs a patch grid", []Message{{Images: []Image{{}}}}, tokensPerMessage + tokensPerImage},
		{"tool calls", []Message{{ToolCalls: []ToolCall{{Name: "read", Arguments: json.RawMessage(`{"p":1}`)}}}}, tokensPerMessage + tokensPerToolCall + 1 + 2},
		{"messages add up", []Message{{Content: "abcd"}, {Content: "efgh"}}, 2 * (tokensPerMessage + 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := EstimateTokens(tt.msgs); got != tt.want {
				t.Errorf("EstimateTokens = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestEstimateToolSpecTokens(t *testing.T) {
	tests := []struct {
		name  string
		specs []ToolSpec
		want  int
	}{
		{"no specs", nil, 0},
		{"name, description and schema", []ToolSpec{{Name: "read", Description: "Reads.", Parameters: json.RawMessage(`{}`)}}, tokensPerToolCall + 1 + 2 + 1},
		{"specs add up", []ToolSpec{{Name: "a"}, {Name: "b"}}, 2 * (tokensPerToolCall + 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := EstimateToolSpecTokens(tt.specs); got != tt.want {
				t.Errorf("EstimateToolSpecTokens = %d, want %d", got, tt.want)
			}
		})
	}
}
