package agentotel

import (
	"context"
	"slices"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.37.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/approval"
)

// Attribute keys of this package, beside the gen_ai.* ones.
const (
	keyRunID      = attribute.Key("tether.run.id")
	keyMode       = attribute.Key("tether.mode")
	keyStopReason = attribute.Key("tether.stop_reason")
	keyIterations = attribute.Key("tether.iterations")
	keyDecision   = attribute.Key("tether.tool.decision") // auto, approved, denied
	keyOutcome    = attribute.Key("tether.tool.outcome")  // success, error, denied, skipped
	keyWait       = attribute.Key("tether.approval.wait_ms")
	keyCommand    = attribute.Key("tether.tool.command")
	keyPath       = attribute.Key("tether.tool.path")
)

// Decisions a tool call's span reports.
const (
	decisionAuto     = "auto"     // ran without asking anyone
	decisionApproved = "approved" // a person (or approver) allowed it
	decisionDenied   = "denied"   // a person, approver, timeout or policy refused it
)

// toolState is one tool call between its first and its final ToolAction.
type toolState struct {
	span      trace.Span
	tool      string
	waitStart time.Time // when it started waiting for approval
	wait      time.Duration
	decision  string
}

// Sink wraps next (which may be nil) so that every event also feeds the
// run's spans and metrics before next sees it.
func (t *Telemetry) Sink(next event.Sink) event.Sink {
	// fallback serves runs whose context did not come from RunContext:
	// correct as long as such runs through this sink do not overlap.
	fallback := &runState{}
	return event.SinkFunc(func(ctx context.Context, ev event.Event) error {
		s := stateOf(ctx)
		if s == nil {
			s = fallback
		}
		t.observe(ctx, s, ev, time.Now())
		if next == nil {
			return nil
		}
		return next.Emit(ctx, ev)
	})
}

func (t *Telemetry) observe(ctx context.Context, s *runState, ev event.Event, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch e := ev.(type) {
	case event.RunStarted:
		attrs := slices.Concat([]attribute.KeyValue{semconv.GenAIOperationNameInvokeAgent, keyRunID.String(e.RunID), keyMode.String(string(e.Mode))}, t.staticAttrs)
		s.ctx, s.span = t.tracer.Start(ctx, "invoke_agent "+t.opts.Agent, trace.WithTimestamp(now), trace.WithAttributes(attrs...))
		s.tools, s.approvals, s.iterStart = map[string]*toolState{}, map[string]string{}, time.Time{}
	case event.ToolAction:
		t.toolAction(s, e, now)
	case event.ApprovalRequested:
		s.approvals[e.ID] = e.CallID
		if ts := s.tools[e.CallID]; ts != nil {
			if ts.waitStart.IsZero() {
				ts.waitStart = now
			}
			switch {
			case t.opts.RecordCommands && e.Display.Kind == approval.KindCommand.String():
				ts.span.SetAttributes(keyCommand.String(e.Display.Subject))
			case t.opts.RecordPaths && e.Display.Kind == approval.KindFileEdit.String():
				ts.span.SetAttributes(keyPath.String(e.Display.Subject))
			}
		}
	case event.ApprovalResolved:
		callID := e.CallID
		if callID == "" {
			callID = s.approvals[e.ID]
		}
		delete(s.approvals, e.ID)
		ts := s.tools[callID]
		if ts == nil {
			return
		}
		ts.decision = decisionDenied
		if e.Choice == approval.AllowOnce || e.Choice == approval.AllowSession {
			ts.decision = decisionApproved
		}
		if !ts.waitStart.IsZero() {
			ts.wait += now.Sub(ts.waitStart)
			ts.waitStart = time.Time{}
		}
		t.approvals.Record(ctx, ts.wait.Seconds(), metric.WithAttributes(keyDecision.String(ts.decision), semconv.GenAIToolName(ts.tool)))
	case event.RunFinished:
		t.endIteration(ctx, s, now)
		for id, ts := range s.tools { // calls the run stopped before they finished
			ts.span.SetStatus(codes.Error, "the run ended before the tool call finished")
			ts.span.End(trace.WithTimestamp(now))
			delete(s.tools, id)
		}
		if s.span == nil {
			return
		}
		s.span.SetAttributes(keyStopReason.String(string(e.StopReason)), keyIterations.Int(e.Iterations),
			semconv.GenAIUsageInputTokens(e.Usage.PromptTokens), semconv.GenAIUsageOutputTokens(e.Usage.CompletionTokens))
		if e.Error != "" {
			s.span.SetStatus(codes.Error, e.Error)
		}
		s.span.End(trace.WithTimestamp(now))
		s.span = nil
	}
}

// toolAction starts a tool call's span at its first action and ends it at
// the final one. Called with s.mu held.
func (t *Telemetry) toolAction(s *runState, e event.ToolAction, now time.Time) {
	ts := s.tools[e.CallID]
	if ts == nil {
		parent := s.context()
		attrs := []attribute.KeyValue{semconv.GenAIOperationNameExecuteTool, semconv.GenAIToolName(e.Tool), semconv.GenAIToolCallID(e.CallID)}
		_, span := t.tracer.Start(parent, "execute_tool "+e.Tool, trace.WithTimestamp(now), trace.WithAttributes(attrs...))
		ts = &toolState{span: span, tool: e.Tool}
		s.tools[e.CallID] = ts
	}
	switch e.Status {
	case event.StatusRunning:
		return
	case event.StatusPending:
		if ts.waitStart.IsZero() {
			ts.waitStart = now
		}
		return
	}
	// A final status: success, error, denied or skipped.
	if ts.decision == "" {
		ts.decision = decisionAuto
		if e.Status == event.StatusDenied {
			ts.decision = decisionDenied // by policy, before anyone was asked
		}
	}
	ts.span.SetAttributes(keyDecision.String(ts.decision), keyOutcome.String(string(e.Status)), keyWait.Int64(ts.wait.Milliseconds()))
	if t.opts.RecordPaths && e.Path != "" {
		ts.span.SetAttributes(keyPath.String(e.Path))
	}
	if e.Status == event.StatusError {
		ts.span.SetStatus(codes.Error, e.Detail)
	}
	ts.span.End(trace.WithTimestamp(now))
	delete(s.tools, e.CallID)
	t.toolCalls.Add(s.context(), 1, metric.WithAttributes(semconv.GenAIToolName(e.Tool), keyOutcome.String(string(e.Status)), keyDecision.String(ts.decision)))
}
