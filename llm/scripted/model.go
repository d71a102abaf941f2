package scripted

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/tetherdev/tether/llm"
)

// ErrExhausted is returned (wrapped, with the counts) when the agent
// asks a Model for more responses than its script holds.
var ErrExhausted = errors.New("script exhausted: the agent asked for more model responses than the script has; add lines to the script or check why the agent did not stop")

// Model is an llm.Model that plays a Script: each Chat call
// streams the next Turn in small chunks (thinking first, then content,
// then each tool call in its own chunk, as Ollama sends them), then a Done
// chunk. It records every request it receives. It is safe for concurrent
// use; concurrent calls take turns in arrival order.
type Model struct {
	mu       sync.Mutex
	script   Script
	next     int
	requests []llm.Request
	sizes    []int
}

var (
	_ llm.Model              = (*Model)(nil)
	_ llm.CapabilityReporter = (*Model)(nil)
)

// defaultChunkSizes are the rune counts of successive text chunks. They
// vary so that markers split across chunk boundaries (a "<tool_call>" tag,
// "[TASK_COMPLETE]") are exercised without writing special tests.
var defaultChunkSizes = []int{3, 1, 4, 1, 5, 9, 2, 6}

// New returns a model that plays s.
func New(s Script) *Model {
	return &Model{script: s, sizes: defaultChunkSizes}
}

// Replay reads a script (or a Recorder's output) and returns a model that
// plays it.
func Replay(path string) (*Model, error) {
	s, err := ReadScriptFile(path)
	if err != nil {
		return nil, err
	}
	return New(s), nil
}

// SetChunkSizes sets the rune counts of successive text chunks, cycling;
// SetChunkSizes(1<<30) streams each text in one chunk.
func (m *Model) SetChunkSizes(sizes ...int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sizes = slices.DeleteFunc(slices.Clone(sizes), func(n int) bool { return n <= 0 })
	if len(m.sizes) == 0 {
		m.sizes = defaultChunkSizes
	}
}

// Capabilities reports the script's capabilities line, or by default
// native tools, plus thinking when any turn thinks.
func (m *Model) Capabilities(context.Context) (llm.Capabilities, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.script.Capabilities != nil {
		return *m.script.Capabilities, nil
	}
	c := llm.Capabilities{Tools: true}
	for _, t := range m.script.Turns {
		c.Thinking = c.Thinking || t.Thinking != ""
	}
	return c, nil
}

// Requests returns copies of the requests received so far, in order.
func (m *Model) Requests() []llm.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.requests)
}

// Remaining reports how many turns have not been played yet.
func (m *Model) Remaining() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.script.Turns) - m.next
}

// Chat plays the next turn. Running out of turns yields
// ErrExhausted; cancelling ctx stops the stream with ctx's error.
func (m *Model) Chat(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
	return func(yield func(llm.Chunk, error) bool) {
		m.mu.Lock()
		m.requests = append(m.requests, cloneRequest(req))
		n := m.next
		if n >= len(m.script.Turns) {
			total := len(m.script.Turns)
			m.mu.Unlock()
			yield(llm.Chunk{}, fmt.Errorf("scripted: request %d, but the script has %d response(s): %w", n+1, total, ErrExhausted))
			return
		}
		t := m.script.Turns[n]
		m.next++
		sizes := m.sizes
		m.mu.Unlock()

		send := func(c llm.Chunk) bool {
			if err := ctx.Err(); err != nil {
				yield(llm.Chunk{}, context.Cause(ctx))
				return false
			}
			return yield(c, nil)
		}
		k := 0
		for piece := range pieces(t.Thinking, sizes, &k) {
			if !send(llm.Chunk{Thinking: piece}) {
				return
			}
		}
		for piece := range pieces(t.Content, sizes, &k) {
			if !send(llm.Chunk{Content: piece}) {
				return
			}
		}
		for i, c := range t.ToolCalls {
			if !send(llm.Chunk{ToolCalls: []llm.ToolCall{{ID: c.ID, Index: i, Name: c.Name, Arguments: c.Arguments}}}) {
				return
			}
		}
		stop := llm.StopEnd
		if len(t.ToolCalls) > 0 {
			stop = llm.StopToolCalls
		}
		send(llm.Chunk{Done: true, StopReason: stop, Usage: llm.Usage{
			PromptTokens:     estimateTokens(req),
			CompletionTokens: (len(t.Thinking) + len(t.Content) + 3) / 4,
		}})
	}
}

// pieces splits s into chunks of sizes[k], sizes[k+1]… runes.
func pieces(s string, sizes []int, k *int) iter.Seq[string] {
	return func(yield func(string) bool) {
		for s != "" {
			n := sizes[*k%len(sizes)]
			*k++
			end := 0
			for i := 0; i < n && end < len(s); i++ {
				_, w := utf8.DecodeRuneInString(s[end:])
				end += w
			}
			if !yield(s[:end]) {
				return
			}
			s = s[end:]
		}
	}
}

// estimateTokens gives a scripted prompt a plausible token count (about
// four bytes a token) so that code watching Usage sees it grow.
func estimateTokens(req llm.Request) int {
	n := 0
	for _, m := range req.Messages {
		n += len(m.Content) + len(m.Thinking)
		for _, c := range m.ToolCalls {
			n += len(c.Name) + len(c.Arguments)
		}
	}
	return (n + 3) / 4
}

// cloneRequest copies what a caller might mutate after Chat returns.
func cloneRequest(r llm.Request) llm.Request {
	r.Messages = slices.Clone(r.Messages)
	for i := range r.Messages {
		r.Messages[i].ToolCalls = slices.Clone(r.Messages[i].ToolCalls)
	}
	r.Tools = slices.Clone(r.Tools)
	return r
}
