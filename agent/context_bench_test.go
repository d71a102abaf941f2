package agent

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/llm"
)

// benchHistory is a 40-turn native conversation with 2 KB tool results.
func benchHistory() []llm.Message {
	var h []llm.Message
	h = append(h, llm.Message{Role: llm.RoleUser, Content: "Refactor the parser."})
	for i := range 40 {
		h = append(h,
			llm.Message{Role: llm.RoleAssistant, Thinking: "Next file.", ToolCalls: []llm.ToolCall{{Name: "read_file", Arguments: []byte(fmt.Sprintf(`{"path":"f%d.go"}`, i))}}},
			llm.Message{Role: llm.RoleTool, ToolName: "read_file", Content: strings.Repeat("func f() { return }  // ünïcödé\n", 64)})
	}
	return h
}

// BenchmarkEstimateTokens measures the estimate the compactor runs
// before every model call (about 170 KB of conversation).
func BenchmarkEstimateTokens(b *testing.B) {
	h := benchHistory()
	size := 0
	for _, m := range h {
		size += len(m.Content) + len(m.Thinking)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		_ = llm.EstimateTokens(h)
	}
}

// BenchmarkSystemPrompt measures the prompt rebuilt before every model
// call (it carries the session memory).
func BenchmarkSystemPrompt(b *testing.B) {
	mem := &Memory{FilesRead: []string{"a.go", "b.go", "c.go"}, Commands: []CommandNote{{Command: "go test ./...", Status: event.StatusError, Detail: "exit code 1"}},
		Plan: []event.TodoItem{{Text: "one", Status: event.TodoDone}, {Text: "two", Status: event.TodoInProgress}}}
	k := &memoryKeeper{mem: mem}
	pb := promptBuilder{mode: builtinMode(ModeAgent), calling: ToolCallingText, names: []string{"read_file", "search_workspace", "find_definition", "skill__todos", "subagent"},
		tools: strings.Repeat("### tool\nDoes things.\nArguments:\n  \"path\": string\n\n", 12), project: strings.Repeat("Project rule.\n", 200)}
	b.ReportAllocs()
	for b.Loop() {
		p := pb
		p.memory = k.render()
		_ = p.system()
	}
}

// BenchmarkCompactorTail measures choosing the verbatim tail of a long
// conversation (the summary call itself is the model's time).
func BenchmarkCompactorTail(b *testing.B) {
	h := benchHistory()
	c := &compactor{count: llm.EstimateTokens, keepTokens: 4000}
	b.ReportAllocs()
	for b.Loop() {
		_ = c.tailStart(h)
	}
}
