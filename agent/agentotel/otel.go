package agentotel

import (
	"context"
	"errors"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.37.0"
	"go.opentelemetry.io/otel/trace"
)

// instrumentation is the name the tracer and meter report.
const instrumentation = "github.com/tetherdev/tether/agent/agentotel"

// Options configures New. The zero value uses the global providers and
// records neither commands nor paths.
type Options struct {
	// TracerProvider and MeterProvider default to otel's global ones.
	TracerProvider trace.TracerProvider
	MeterProvider  metric.MeterProvider
	// Provider names the model provider for gen_ai.provider.name
	// ("ollama", "openai", …).
	Provider string
	// Agent names the agent for gen_ai.agent.name; default "tether".
	Agent string
	// RecordCommands adds the command a tool ran (or asked to run) to its
	// span; commands may hold secrets, so it is off by default.
	RecordCommands bool
	// RecordPaths adds the file path a tool read or wrote to its span.
	RecordPaths bool
}

// Telemetry turns runs into spans and metrics. Create it with New; it is
// safe for concurrent use by many executors and runs.
type Telemetry struct {
	opts   Options
	tracer trace.Tracer

	tokens      metric.Int64Histogram
	modelTime   metric.Float64Histogram
	toolCalls   metric.Int64Counter
	approvals   metric.Float64Histogram
	iterations  metric.Float64Histogram
	staticAttrs []attribute.KeyValue
}

// New creates the instruments.
func New(opts Options) (*Telemetry, error) {
	if opts.TracerProvider == nil {
		opts.TracerProvider = otel.GetTracerProvider()
	}
	if opts.MeterProvider == nil {
		opts.MeterProvider = otel.GetMeterProvider()
	}
	if opts.Agent == "" {
		opts.Agent = "tether"
	}
	t := &Telemetry{opts: opts, tracer: opts.TracerProvider.Tracer(instrumentation)}
	m := opts.MeterProvider.Meter(instrumentation)
	var errs [5]error
	t.tokens, errs[0] = m.Int64Histogram("gen_ai.client.token.usage", metric.WithUnit("{token}"),
		metric.WithDescription("Tokens used per model call, by gen_ai.token.type (input or output)."))
	t.modelTime, errs[1] = m.Float64Histogram("gen_ai.client.operation.duration", metric.WithUnit("s"),
		metric.WithDescription("Duration of one model call, first request byte to last chunk."))
	t.toolCalls, errs[2] = m.Int64Counter("tether.tool.calls", metric.WithUnit("{call}"),
		metric.WithDescription("Tool calls by gen_ai.tool.name and tether.tool.outcome (success, error, denied, skipped)."))
	t.approvals, errs[3] = m.Float64Histogram("tether.approval.duration", metric.WithUnit("s"),
		metric.WithDescription("Time from an approval request to its answer, by tether.tool.decision."))
	t.iterations, errs[4] = m.Float64Histogram("tether.iteration.duration", metric.WithUnit("s"),
		metric.WithDescription("One agent iteration: a model call and the tool calls it asked for."))
	if err := errors.Join(errs[:]...); err != nil {
		return nil, err
	}
	t.staticAttrs = []attribute.KeyValue{semconv.GenAIAgentName(opts.Agent)}
	if opts.Provider != "" {
		t.staticAttrs = append(t.staticAttrs, semconv.GenAIProviderNameKey.String(opts.Provider),
			// gen_ai.system is the name semconv used before 1.37; many
			// backends still group by it.
			attribute.String("gen_ai.system", opts.Provider))
	}
	return t, nil
}

type runKey struct{}

// runState is one run's telemetry, shared by its events (through the
// sink) and its model calls (through the model) via the run's context.
type runState struct {
	mu        sync.Mutex
	span      trace.Span // the run; nil before run_started
	ctx       context.Context
	iterStart time.Time // start of the current iteration; zero between
	tools     map[string]*toolState
	approvals map[string]string // approval id → call id
}

// RunContext returns ctx prepared for one run: pass it to Executor.Run
// (or Session.Run). Runs started without it are still traced, but their
// model calls are not children of their run span, and two concurrent runs
// sharing a context cannot be told apart.
func (t *Telemetry) RunContext(ctx context.Context) context.Context {
	return context.WithValue(ctx, runKey{}, &runState{tools: map[string]*toolState{}, approvals: map[string]string{}})
}

func stateOf(ctx context.Context) *runState {
	s, _ := ctx.Value(runKey{}).(*runState)
	return s
}

// context is the run span's context, for the run's tool spans and
// metrics; Background before run_started. Called with s.mu held.
func (s *runState) context() context.Context {
	if s.ctx == nil {
		return context.Background()
	}
	return s.ctx
}

// spanParent is the context a model call's span starts from: the run span
// when the run has one, else whatever span ctx carries.
func (s *runState) spanParent(ctx context.Context) context.Context {
	if s == nil {
		return ctx
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.span == nil {
		return ctx
	}
	return trace.ContextWithSpan(ctx, s.span)
}

// endIteration records the iteration that ends now, if one is running.
func (t *Telemetry) endIteration(ctx context.Context, s *runState, now time.Time) {
	if s.iterStart.IsZero() {
		return
	}
	t.iterations.Record(ctx, now.Sub(s.iterStart).Seconds(), metric.WithAttributes(t.staticAttrs...))
	s.iterStart = time.Time{}
}
