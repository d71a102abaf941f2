package agentotel

import (
	"context"
	"iter"
	"slices"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.37.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/tetherdev/tether/llm"
)

// Model wraps m so that each call is a "chat" span with its token usage
// and finish reason, under the run's span when ctx came from RunContext.
// Capabilities, when m reports them, are passed through.
func (t *Telemetry) Model(m llm.Model) llm.Model {
	tm := tracedModel{t: t, next: m}
	if c, ok := m.(capable); ok {
		return tracedCapableModel{tracedModel: tm, caps: c}
	}
	return tm
}

type capable interface {
	Capabilities(ctx context.Context) (llm.Capabilities, error)
}

type tracedModel struct {
	t    *Telemetry
	next llm.Model
}

type tracedCapableModel struct {
	tracedModel
	caps capable
}

func (m tracedCapableModel) Capabilities(ctx context.Context) (llm.Capabilities, error) {
	return m.caps.Capabilities(ctx)
}

func (m tracedModel) Chat(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
	return func(yield func(llm.Chunk, error) bool) {
		t := m.t
		s := stateOf(ctx)
		if s != nil {
			s.mu.Lock()
			t.endIteration(ctx, s, time.Now()) // a new model call starts the next iteration
			s.iterStart = time.Now()
			s.mu.Unlock()
		}
		name := "chat"
		attrs := slices.Concat([]attribute.KeyValue{semconv.GenAIOperationNameChat}, t.staticAttrs)
		if req.Model != "" {
			name += " " + req.Model
			attrs = append(attrs, semconv.GenAIRequestModel(req.Model))
		}
		start := time.Now()
		cctx, span := t.tracer.Start(s.spanParent(ctx), name, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
		var usage llm.Usage
		var stop llm.StopReason
		var failure error
		defer func() {
			span.SetAttributes(semconv.GenAIUsageInputTokens(usage.PromptTokens), semconv.GenAIUsageOutputTokens(usage.CompletionTokens))
			if stop != "" {
				span.SetAttributes(semconv.GenAIResponseFinishReasons(string(stop)))
			}
			metricAttrs := attrs
			if failure != nil {
				span.RecordError(failure)
				span.SetStatus(codes.Error, failure.Error())
				metricAttrs = slices.Concat(attrs, []attribute.KeyValue{semconv.ErrorTypeOther})
			}
			span.End()
			t.modelTime.Record(ctx, time.Since(start).Seconds(), metric.WithAttributes(metricAttrs...))
			t.tokens.Record(ctx, int64(usage.PromptTokens), metric.WithAttributes(slices.Concat(attrs, []attribute.KeyValue{semconv.GenAITokenTypeInput})...))
			t.tokens.Record(ctx, int64(usage.CompletionTokens), metric.WithAttributes(slices.Concat(attrs, []attribute.KeyValue{semconv.GenAITokenTypeOutput})...))
		}()
		for c, err := range m.next.Chat(cctx, req) {
			if err != nil {
				failure = err
			}
			if c.Done {
				usage, stop = c.Usage, c.StopReason
			}
			if !yield(c, err) {
				return
			}
		}
	}
}
