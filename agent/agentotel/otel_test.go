package agentotel_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/agent/agentotel"
	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/llm/llmtest"
	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
	"github.com/tetherdev/tether/tools/builtin"
)

// script asks for two commands that need approval: the approver allows
// the first and denies the second.
const script = `{"capabilities":{"tools":true}}
{"content":"Making the files.","tool_calls":[{"name":"run_terminal_command","arguments":{"command":"touch yes.txt"}}]}
{"tool_calls":[{"name":"run_terminal_command","arguments":{"command":"touch no.txt"}}]}
{"content":"One made, one refused. [TASK_COMPLETE]"}`

type fixture struct {
	spans   *tracetest.InMemoryExporter
	metrics *sdkmetric.ManualReader
	res     *agent.Result
	files   func(string) bool
}

func run(t *testing.T, opts agentotel.Options) fixture {
	t.Helper()
	spans := tracetest.NewInMemoryExporter()
	reader := sdkmetric.NewManualReader()
	opts.TracerProvider = sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	opts.MeterProvider = sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	opts.Provider = "ollama"
	tel, err := agentotel.New(opts)
	require.NoError(t, err)

	ws, err := safety.OpenWorkspace(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { ws.Close() })
	reg := &tools.Registry{}
	_, err = builtin.Register(reg, ws, builtin.Options{})
	require.NoError(t, err)
	s, err := llmtest.ParseScript(strings.NewReader(script))
	require.NoError(t, err)
	approver := approval.Func(func(_ context.Context, req approval.Request) (approval.Response, error) {
		if strings.Contains(req.Command, "yes") {
			return approval.Response{Choice: approval.AllowOnce}, nil
		}
		return approval.Response{Choice: approval.Deny, Reason: "not that one"}, nil
	})
	x, err := agent.New(agent.Config{Model: tel.Model(llmtest.NewScripted(s)), ModelName: "qwen3:8b", Tools: reg, Workspace: ws,
		Approver: approver, Sink: tel.Sink(nil), Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	res, err := x.Run(tel.RunContext(context.Background()), agent.Input{Prompt: "make yes.txt and no.txt"})
	require.NoError(t, err)
	return fixture{spans: spans, metrics: reader, res: res, files: func(name string) bool {
		_, err := ws.Stat(name)
		return err == nil
	}}
}

func attrs(s tracetest.SpanStub) map[attribute.Key]attribute.Value {
	m := map[attribute.Key]attribute.Value{}
	for _, kv := range s.Attributes {
		m[kv.Key] = kv.Value
	}
	return m
}

func TestRunSpans(t *testing.T) {
	f := run(t, agentotel.Options{})
	require.True(t, f.files("yes.txt"))
	require.False(t, f.files("no.txt"))

	stubs := f.spans.GetSpans()
	byName := map[string][]tracetest.SpanStub{}
	var names []string
	for _, s := range stubs {
		byName[s.Name] = append(byName[s.Name], s)
		names = append(names, s.Name)
	}
	require.Len(t, byName["invoke_agent tether"], 1, "spans: %v", names)
	runSpan := byName["invoke_agent tether"][0]
	require.Len(t, byName["chat qwen3:8b"], 3, "spans: %v", names)
	require.Len(t, byName["execute_tool run_terminal_command"], 2, "spans: %v", names)

	ra := attrs(runSpan)
	require.Equal(t, "invoke_agent", ra["gen_ai.operation.name"].AsString())
	require.Equal(t, "completed", ra["tether.stop_reason"].AsString())
	require.Equal(t, int64(3), ra["tether.iterations"].AsInt64())
	require.Equal(t, int64(f.res.Usage.PromptTokens), ra["gen_ai.usage.input_tokens"].AsInt64())

	var chatIn int64
	for _, c := range byName["chat qwen3:8b"] {
		require.Equal(t, runSpan.SpanContext.SpanID(), c.Parent.SpanID(), "a model call's parent is its run")
		require.Equal(t, runSpan.SpanContext.TraceID(), c.SpanContext.TraceID())
		a := attrs(c)
		require.Equal(t, "chat", a["gen_ai.operation.name"].AsString())
		require.Equal(t, "ollama", a["gen_ai.provider.name"].AsString())
		require.Equal(t, "ollama", a["gen_ai.system"].AsString())
		require.Equal(t, "qwen3:8b", a["gen_ai.request.model"].AsString())
		require.NotEmpty(t, a["gen_ai.response.finish_reasons"].AsStringSlice())
		_, hasOutput := a["gen_ai.usage.output_tokens"]
		require.True(t, hasOutput)
		chatIn += a["gen_ai.usage.input_tokens"].AsInt64()
	}
	require.Equal(t, int64(f.res.Usage.PromptTokens), chatIn, "model calls add up to the run's usage")

	tools := byName["execute_tool run_terminal_command"]
	want := []struct{ decision, outcome string }{{"approved", "success"}, {"denied", "denied"}}
	for i, s := range tools {
		require.Equal(t, runSpan.SpanContext.SpanID(), s.Parent.SpanID(), "a tool call's parent is its run")
		a := attrs(s)
		require.Equal(t, "execute_tool", a["gen_ai.operation.name"].AsString())
		require.Equal(t, "run_terminal_command", a["gen_ai.tool.name"].AsString())
		require.NotEmpty(t, a["gen_ai.tool.call.id"].AsString())
		require.Equal(t, want[i].decision, a["tether.tool.decision"].AsString())
		require.Equal(t, want[i].outcome, a["tether.tool.outcome"].AsString())
		_, hasWait := a["tether.approval.wait_ms"]
		require.True(t, hasWait)
		_, hasCommand := a["tether.tool.command"]
		require.False(t, hasCommand, "commands are recorded only when the host allows")
	}
}

func TestCommandsOnlyWhenAllowed(t *testing.T) {
	f := run(t, agentotel.Options{RecordCommands: true})
	var cmds []string
	for _, s := range f.spans.GetSpans() {
		if v, ok := attrs(s)["tether.tool.command"]; ok {
			cmds = append(cmds, v.AsString())
		}
	}
	require.Equal(t, []string{"touch yes.txt", "touch no.txt"}, cmds)
}

func TestMetrics(t *testing.T) {
	f := run(t, agentotel.Options{})
	var rm metricdata.ResourceMetrics
	require.NoError(t, f.metrics.Collect(context.Background(), &rm))
	got := map[string]metricdata.Aggregation{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			got[m.Name] = m.Data
		}
	}
	calls, ok := got["tether.tool.calls"].(metricdata.Sum[int64])
	require.True(t, ok, "metrics: %v", got)
	outcomes := map[string]int64{}
	for _, dp := range calls.DataPoints {
		v, _ := dp.Attributes.Value("tether.tool.outcome")
		outcomes[v.AsString()] += dp.Value
	}
	require.Equal(t, map[string]int64{"success": 1, "denied": 1}, outcomes)

	tokens, ok := got["gen_ai.client.token.usage"].(metricdata.Histogram[int64])
	require.True(t, ok)
	var input int64
	for _, dp := range tokens.DataPoints {
		if v, _ := dp.Attributes.Value("gen_ai.token.type"); v.AsString() == "input" {
			input += dp.Sum
		}
	}
	require.Equal(t, int64(f.res.Usage.PromptTokens), input)

	approvals, ok := got["tether.approval.duration"].(metricdata.Histogram[float64])
	require.True(t, ok)
	var answered uint64
	for _, dp := range approvals.DataPoints {
		answered += dp.Count
	}
	require.Equal(t, uint64(2), answered)

	iters, ok := got["tether.iteration.duration"].(metricdata.Histogram[float64])
	require.True(t, ok)
	require.Equal(t, uint64(3), iters.DataPoints[0].Count)
	_, ok = got["gen_ai.client.operation.duration"].(metricdata.Histogram[float64])
	require.True(t, ok)
}

// TestConcurrentRuns: runs sharing one Telemetry, model and sink keep
// their model and tool spans under their own run span.
func TestConcurrentRuns(t *testing.T) {
	spans := tracetest.NewInMemoryExporter()
	tel, err := agentotel.New(agentotel.Options{TracerProvider: sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans)),
		MeterProvider: sdkmetric.NewMeterProvider()})
	require.NoError(t, err)
	ws, err := safety.OpenWorkspace(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { ws.Close() })
	reg := &tools.Registry{}
	_, err = builtin.Register(reg, ws, builtin.Options{})
	require.NoError(t, err)
	const runs = 8
	var wg sync.WaitGroup
	for i := range runs {
		wg.Go(func() {
			s, err := llmtest.ParseScript(strings.NewReader(fmt.Sprintf(`{"capabilities":{"tools":true}}
{"tool_calls":[{"name":"write_file","arguments":{"path":"f%d.txt","content":"x"}}]}
{"content":"Done. [TASK_COMPLETE]"}`, i)))
			if err != nil {
				t.Error(err)
				return
			}
			x, err := agent.New(agent.Config{Model: tel.Model(llmtest.NewScripted(s)), Tools: reg, Workspace: ws,
				Sink: tel.Sink(nil), Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Error(err)
				return
			}
			if _, err := x.Run(tel.RunContext(context.Background()), agent.Input{Prompt: "write it"}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	children := map[string]int{} // run span id → model and tool spans under it
	var runIDs []string
	for _, s := range spans.GetSpans() {
		if s.Name == "invoke_agent tether" {
			runIDs = append(runIDs, s.SpanContext.SpanID().String())
		} else {
			children[s.Parent.SpanID().String()]++
		}
	}
	require.Len(t, runIDs, runs)
	for _, id := range runIDs {
		require.Equal(t, 3, children[id], "run %s: two model calls and one tool call", id)
	}
}
