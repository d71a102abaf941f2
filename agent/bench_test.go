package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"strings"
	"testing"
	"time"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/llm/llmtest"
	"github.com/tetherdev/tether/toolcall"
	"github.com/tetherdev/tether/tools"
)

// benchIterations is how many loop iterations one Run performs in the
// benchmarks; per-run setup is amortised over them as in a real task.
const benchIterations = 20

func noopRegistry(b *testing.B) *tools.Registry {
	reg := &tools.Registry{}
	err := reg.Register(tools.Func{
		Spec: tools.Spec{Name: "noop", Description: "Does nothing.", ReadOnly: true,
			Parameters: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`)},
		Run: func(context.Context, tools.Call) (tools.Result, error) { return tools.Text("ok"), nil },
	})
	if err != nil {
		b.Fatal(err)
	}
	return reg
}

// zeroLatencyModel answers instantly: a native call of the no-op tool
// for every iteration but the last, which completes.
func zeroLatencyModel(iterations int) llm.Model {
	call := []llm.Chunk{{ToolCalls: []llm.ToolCall{{Name: "noop", Arguments: json.RawMessage(`{"n":1}`)}}}, {Done: true, StopReason: llm.StopToolCalls}}
	done := []llm.Chunk{{Content: "All done. [TASK_COMPLETE]"}, {Done: true, StopReason: llm.StopEnd}}
	turn := 0
	return llm.ModelFunc(func(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
		turn++
		cs := call
		if turn%iterations == 0 {
			cs = done
		}
		return func(yield func(llm.Chunk, error) bool) {
			for _, c := range cs {
				if !yield(c, nil) {
					return
				}
			}
		}
	})
}

// BenchmarkIteration measures the executor's own cost per loop
// iteration: stream processing, call extraction, history, routing, the
// registry call of a no-op tool, events to a sink, guards. One op is one
// iteration.
func BenchmarkIteration(b *testing.B) {
	for _, mode := range []ToolCalling{ToolCallingNative, ToolCallingText} {
		b.Run(string(mode), func(b *testing.B) {
			model := zeroLatencyModel(benchIterations)
			if mode == ToolCallingText {
				model = textModel(benchIterations)
			}
			events := 0
			x, err := New(Config{Model: model, Tools: noopRegistry(b), ToolCalling: mode, Mode: ModeExplore,
				MaxIterations: benchIterations, Logger: quietLogger(),
				Sink: event.SinkFunc(func(context.Context, event.Event) error { events++; return nil })})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			ctx := context.Background()
			runs := 0
			for b.Loop() {
				if runs%benchIterations == 0 {
					res, err := x.Run(ctx, Input{Prompt: "Call noop."})
					if err != nil || res.StopReason != event.StopCompleted || res.Iterations != benchIterations {
						b.Fatalf("run: %v %+v", err, res)
					}
				}
				runs++
			}
			b.ReportMetric(float64(events)/float64(runs), "events/op")
		})
	}
}

func textModel(iterations int) llm.Model {
	call := `I will call it.<tool_call>{"name": "noop", "arguments": {"n": 1}}</tool_call>`
	turn := 0
	return llm.ModelFunc(func(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
		turn++
		text := call
		if turn%iterations == 0 {
			text = "All done. [TASK_COMPLETE]"
		}
		return func(yield func(llm.Chunk, error) bool) {
			for i := 0; i < len(text); i += 8 {
				if !yield(llm.Chunk{Content: text[i:min(i+8, len(text))]}, nil) {
					return
				}
			}
			yield(llm.Chunk{Done: true}, nil)
		}
	})
}

// BenchmarkIterationScripted is the same loop driven by llmtest's
// scripted model, which also records every request and splits text into
// small chunks: the figure includes that model's own cost.
func BenchmarkIterationScripted(b *testing.B) {
	var script string
	script += `{"capabilities":{"tools":true}}` + "\n"
	for range benchIterations - 1 {
		script += `{"tool_calls":[{"name":"noop","arguments":{"n":1}}]}` + "\n"
	}
	script += `{"content":"All done. [TASK_COMPLETE]"}` + "\n"
	reg := noopRegistry(b)
	b.ReportAllocs()
	ctx := context.Background()
	runs := 0
	var x *Executor
	for b.Loop() {
		if runs%benchIterations == 0 {
			s, err := llmtest.ParseScript(strings.NewReader(script))
			if err != nil {
				b.Fatal(err)
			}
			x, err = New(Config{Model: llmtest.NewScripted(s), Tools: reg, Mode: ModeExplore, MaxIterations: benchIterations, Logger: quietLogger()})
			if err != nil {
				b.Fatal(err)
			}
			if res, err := x.Run(ctx, Input{Prompt: "Call noop."}); err != nil || res.Iterations != benchIterations {
				b.Fatal(fmt.Sprint(err, res))
			}
		}
		runs++
	}
}

// BenchmarkStreamProcessor measures one response through the stream
// processor: 8-byte chunks of prose with a write call in the middle, as a
// text-mode model streams it, parsed, filtered, throttled and emitted.
func BenchmarkStreamProcessor(b *testing.B) {
	prose := strings.Repeat("The quick brown fox jumps over the lazy dog; ", 700)
	text := prose + `<tool_call>{"name": "write_file", "arguments": {"path": "a.go", "content": "package a\n"}}</tool_call>` + prose + "[TASK_COMPLETE]"
	var cs []llm.Chunk
	for i := 0; i < len(text); i += 8 {
		cs = append(cs, llm.Chunk{Content: text[i:min(i+8, len(text))]})
	}
	cs = append(cs, llm.Chunk{Done: true})
	events := 0
	clock := newFakeClock()
	p := &streamProcessor{
		emit:       func(event.Event) { events++ },
		now:        clock.Now,
		newParser:  func() *toolcall.Stream { return toolcall.NewStream() },
		isFileEdit: func(name string) bool { return name == "write_file" },
	}
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		res, err := p.run(context.Background(), chunks(cs...), time.Now())
		if err != nil || len(res.Parsed.Calls) != 1 || !res.Complete {
			b.Fatal(err, len(res.Parsed.Calls), res.Complete)
		}
	}
	b.ReportMetric(float64(events)/float64(b.N), "events/op")
}
