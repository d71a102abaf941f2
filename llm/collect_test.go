package llm

import (
	"errors"
	"iter"
	"testing"
)

func chunks(cs []Chunk, tail error) iter.Seq2[Chunk, error] {
	return func(yield func(Chunk, error) bool) {
		for _, c := range cs {
			if !yield(c, nil) {
				return
			}
		}
		if tail != nil {
			yield(Chunk{}, tail)
		}
	}
}

func TestCollect(t *testing.T) {
	read := ToolCall{Name: "read_file", Arguments: []byte(`{"path":"a"}`)}
	boom := errors.New("boom")
	tests := []struct {
		name    string
		in      []Chunk
		tail    error
		want    Message
		stop    StopReason
		usage   Usage
		wantErr error
	}{
		{
			name: "thinking, content and tool calls stay together",
			in: []Chunk{{Thinking: "I should "}, {Thinking: "read it."}, {Content: "Let me "}, {Content: "look."},
				{ToolCalls: []ToolCall{read}}, {ToolCalls: []ToolCall{read}}, {Done: true, Usage: Usage{10, 5}, StopReason: StopToolCalls}},
			want:  Message{Role: RoleAssistant, Thinking: "I should read it.", Content: "Let me look.", ToolCalls: []ToolCall{read, read}},
			stop:  StopToolCalls,
			usage: Usage{10, 5},
		},
		{
			name: "missing stop reason is inferred",
			in:   []Chunk{{ToolCalls: []ToolCall{read}}, {Done: true}},
			want: Message{Role: RoleAssistant, ToolCalls: []ToolCall{read}},
			stop: StopToolCalls,
		},
		{
			name:    "error keeps what arrived",
			in:      []Chunk{{Content: "par"}, {Thinking: "t"}},
			tail:    boom,
			want:    Message{Role: RoleAssistant, Content: "par", Thinking: "t"},
			wantErr: boom,
		},
		{
			name:    "no Done is incomplete",
			in:      []Chunk{{Content: "abc"}},
			want:    Message{Role: RoleAssistant, Content: "abc"},
			wantErr: ErrIncomplete,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Collect(chunks(tt.in, tt.tail))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			m := r.Message
			if m.Role != tt.want.Role || m.Content != tt.want.Content || m.Thinking != tt.want.Thinking || len(m.ToolCalls) != len(tt.want.ToolCalls) {
				t.Fatalf("message = %+v, want %+v", m, tt.want)
			}
			if tt.wantErr == nil && (r.StopReason != tt.stop || r.Usage != tt.usage) {
				t.Errorf("stop %q usage %+v, want %q %+v", r.StopReason, r.Usage, tt.stop, tt.usage)
			}
		})
	}
}
