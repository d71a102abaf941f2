package agent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/toolcall"
)

func TestSignalFilter(t *testing.T) {
	tests := []struct {
		name   string
		chunks []string
		want   string
		seen   bool
	}{
		{"whole", []string{"Done. [TASK_COMPLETE]"}, "Done. ", true},
		{"split", []string{"Done. [TA", "SK_COMP", "LETE] bye"}, "Done.  bye", true},
		{"case", []string{"ok [task_complete]"}, "ok ", true},
		{"twice", []string{"[TASK_COMPLETE]a[TASK_COMPLETE]"}, "a", true},
		{"false alarm", []string{"see [TA", "BLE] 1"}, "see [TABLE] 1", false},
		{"trailing partial dropped", []string{"end [TASK"}, "end ", false},
		{"lone bracket kept", []string{"array a["}, "array a[", false},
		{"byte by byte", strings.Split("x[TASK_COMPLETE]y", ""), "xy", true},
		{"no signal", []string{"plain ", "text"}, "plain text", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var f signalFilter
			var got strings.Builder
			for _, c := range tt.chunks {
				got.WriteString(f.feed(c))
			}
			got.WriteString(f.end())
			assert.Equal(t, tt.want, got.String())
			assert.Equal(t, tt.seen, f.seen)
		})
	}
}

// FuzzSignalFilter: however the text is chunked, the output is the same
// as for one chunk, and never shows the signal.
func FuzzSignalFilter(f *testing.F) {
	f.Add("Done [TASK_COMPLETE]", uint8(3))
	f.Add("[task_COMPLETE][TASK_COMPLETE", uint8(1))
	f.Add("a[[TASK_COMPLETE]]b", uint8(2))
	f.Fuzz(func(t *testing.T, s string, step uint8) {
		n := int(step%16) + 1
		var one signalFilter
		whole := one.feed(s) + one.end()
		var many signalFilter
		var b strings.Builder
		for i := 0; i < len(s); i += n {
			b.WriteString(many.feed(s[i:min(i+n, len(s))]))
		}
		b.WriteString(many.end())
		if b.String() != whole {
			t.Fatalf("chunked %q != whole %q", b.String(), whole)
		}
		if indexSignal(whole) >= 0 {
			t.Fatalf("signal shown: %q", whole)
		}
	})
}

func TestThrottle(t *testing.T) {
	t0 := time.Unix(0, 0)
	var th throttle
	assert.Equal(t, "", th.add("**Wh", t0), "first chunk needs 8 word characters")
	assert.Equal(t, "", th.add("at is", t0))
	assert.Equal(t, "**What is it", th.add(" it", t0))
	assert.Equal(t, "", th.add(" a", t0.Add(10*time.Millisecond)), "within 32 ms")
	assert.Equal(t, " a b", th.add(" b", t0.Add(40*time.Millisecond)))
	assert.Equal(t, "", th.add(" **", t0.Add(100*time.Millisecond)), "later chunks need one word character")
	assert.Equal(t, " **c", th.add("c", t0.Add(101*time.Millisecond)))
	assert.Equal(t, "", th.add("!", t0.Add(200*time.Millisecond)))
	assert.Equal(t, "!", th.flush(t0.Add(200*time.Millisecond)), "flush releases everything")
}

func TestEchoFilter(t *testing.T) {
	thinking := "I need to read the file first."
	tests := []struct {
		name   string
		chunks []string
		want   string
	}{
		{"echo removed", []string{"I need to ", "read the file first.", "\nHere it is."}, "Here it is."},
		{"echo with leading space", []string{"  I need to read the file first. Done."}, "Done."},
		{"different answer", []string{"I need ", "more details."}, "I need more details."},
		{"partial echo kept", []string{"I need to"}, "I need to"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var f echoFilter
			f.start(thinking)
			var b strings.Builder
			for _, c := range tt.chunks {
				b.WriteString(f.feed(c))
			}
			b.WriteString(f.end())
			assert.Equal(t, tt.want, b.String())
		})
	}
	var short echoFilter
	short.start("Ok.")
	assert.Equal(t, "Ok. Sure.", short.feed("Ok. Sure."), "short thinking never counts as an echo")
}

func newTestProcessor(clock *fakeClock, rec *recorder) *streamProcessor {
	return &streamProcessor{
		emit:       func(e event.Event) { rec.Emit(context.Background(), e) },
		now:        clock.Now,
		newParser:  func() *toolcall.Stream { return toolcall.NewStream() },
		isFileEdit: func(name string) bool { return name == "write_file" },
		fileWriting: func(name string, args json.RawMessage) string {
			var a struct{ Path string }
			if name != "write_file" || json.Unmarshal(args, &a) != nil {
				return ""
			}
			return a.Path
		},
	}
}

// Thinking collapses as soon as a native call arrives, its duration
// measured to the last thinking token, then "Writing <file>…" follows.
func TestStreamEarlyThinkingCollapse(t *testing.T) {
	clock := newFakeClock()
	rec := &recorder{}
	p := newTestProcessor(clock, rec)
	start := clock.Now()
	stream := func(yield func(llm.Chunk, error) bool) {
		_ = yield(llm.Chunk{Thinking: "Plan: write the file."}, nil) &&
			yield(llm.Chunk{Thinking: " Go."}, nil) &&
			func() bool { clock.mu.Lock(); clock.t = clock.t.Add(30 * time.Second); clock.mu.Unlock(); return true }() &&
			yield(llm.Chunk{ToolCalls: []llm.ToolCall{{Name: "write_file", Arguments: []byte(`{"path":"src/app.go","content":"x"}`)}}}, nil) &&
			yield(llm.Chunk{Done: true}, nil)
	}
	res, err := p.run(context.Background(), stream, start)
	require.NoError(t, err)
	require.Len(t, res.Native, 1)
	assert.Equal(t, "Plan: write the file. Go.", res.Thinking)
	var collapsed event.ThinkingCollapsed
	var types []string
	for _, e := range rec.all() {
		types = append(types, e.Type())
		if c, ok := e.(event.ThinkingCollapsed); ok {
			collapsed = c
		}
	}
	assert.Equal(t, []string{"thinking_delta", "thinking_delta", "thinking_collapsed", "tool_call_started", "file_writing"}, types)
	assert.Equal(t, 20*time.Millisecond, collapsed.Duration(), "the 30 s of buffering are not thinking")
	assert.Equal(t, event.FileWriting{Tool: "write_file", Path: "src/app.go"}, rec.all()[4])
}

// In text mode "Writing <file>…" appears while the call's content is
// still streaming, and the markup never reaches the display.
func TestStreamTextModeFileWriting(t *testing.T) {
	rec := &recorder{}
	p := newTestProcessor(newFakeClock(), rec)
	text := "Writing it now.\n<tool_call>{\"name\": \"write_file\", \"arguments\": {\"path\": \"big.go\", \"content\": \"" + strings.Repeat("x", 200) + "\"}}</tool_call>"
	var pieces []string
	for i := 0; i < len(text); i += 7 {
		pieces = append(pieces, text[i:min(i+7, len(text))])
	}
	writingAt, doneAt := -1, -1
	stream := func(yield func(llm.Chunk, error) bool) {
		for i, piece := range pieces {
			if !yield(llm.Chunk{Content: piece}, nil) {
				return
			}
			for _, e := range rec.all() {
				if _, ok := e.(event.FileWriting); ok && writingAt < 0 {
					writingAt = i
				}
			}
		}
		doneAt = len(pieces)
		yield(llm.Chunk{Done: true}, nil)
	}
	res, err := p.run(context.Background(), stream, time.Now())
	require.NoError(t, err)
	require.Len(t, res.Parsed.Calls, 1)
	assert.GreaterOrEqual(t, writingAt, 0)
	assert.Less(t, writingAt, doneAt-20, "announced long before the call ended")
	assert.Equal(t, "Writing it now.\n", rec.text())
}

// A stream that ends without Done is incomplete, and says so.
func TestStreamIncomplete(t *testing.T) {
	p := newTestProcessor(newFakeClock(), &recorder{})
	_, err := p.run(context.Background(), chunks(llm.Chunk{Content: "half"}), time.Now())
	assert.ErrorIs(t, err, llm.ErrIncomplete)
}

// A model that repeats its reasoning at the start of its answer: the
// echo is neither shown nor kept in history.
func TestStreamThinkingEchoRemoved(t *testing.T) {
	rec := &recorder{}
	p := newTestProcessor(newFakeClock(), rec)
	thinking := "The user wants the capital of France."
	res, err := p.run(context.Background(), chunks(
		llm.Chunk{Thinking: thinking},
		llm.Chunk{Content: "The user wants "}, llm.Chunk{Content: "the capital of France.\n\n"},
		llm.Chunk{Content: "Paris is the capital."}, llm.Chunk{Done: true}), time.Now())
	require.NoError(t, err)
	assert.Equal(t, "Paris is the capital.", res.Content)
	assert.Equal(t, "Paris is the capital.", rec.text())
	assert.Equal(t, thinking, res.Thinking)
}

// FuzzStreamChunking: however a response is chunked, the processor
// shows the same text, keeps the same content and finds the same calls
// and completion signal; and the text shown never holds call markup or
// the signal.
func FuzzStreamChunking(f *testing.F) {
	f.Add("Hello there, friend. [TASK_COMPLETE]", uint8(3))
	f.Add("Reading.\n<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.go\"}}</tool_call>", uint8(5))
	f.Add("<think>plan [TASK_COMPLETE]</think>Answer [TASK", uint8(1))
	f.Add("```json\n{\"name\": \"write_file\", \"arguments\": {\"path\": \"x\", \"content\": \"[TASK_COMPLETE]\"}}\n```", uint8(7))
	f.Fuzz(func(t *testing.T, content string, step uint8) {
		run := func(n int) (streamResult, string) {
			rec := &recorder{}
			p := newTestProcessor(newFakeClock(), rec)
			var cs []llm.Chunk
			for i := 0; i < len(content); i += n {
				cs = append(cs, llm.Chunk{Content: content[i:min(i+n, len(content))]})
			}
			cs = append(cs, llm.Chunk{Done: true})
			res, err := p.run(context.Background(), chunks(cs...), time.Now())
			if err != nil {
				t.Fatal(err)
			}
			return res, rec.text()
		}
		whole, shownWhole := run(len(content) + 1)
		parts, shownParts := run(int(step%13) + 1)
		if shownWhole != shownParts || whole.Display != parts.Display {
			t.Fatalf("display differs by chunking:\n%q\n%q", shownWhole, shownParts)
		}
		if whole.Content != content || parts.Content != content {
			t.Fatalf("content not kept verbatim")
		}
		if whole.Complete != parts.Complete || len(whole.Parsed.Calls) != len(parts.Parsed.Calls) {
			t.Fatalf("completion or calls differ by chunking")
		}
		if indexSignal(shownParts) >= 0 {
			t.Fatalf("signal shown: %q", shownParts)
		}
		if shownParts != parts.Display {
			t.Fatalf("events %q != display %q", shownParts, parts.Display)
		}
	})
}
