// Package agentotel reports agent runs to OpenTelemetry: traces and
// metrics that follow the OpenTelemetry semantic conventions for
// generative AI, built from the agent's event stream and its model calls.
// It is a separate package so that the core links no OpenTelemetry.
//
// Each run is a span ("invoke_agent tether"), each model call a child
// span ("chat MODEL": gen_ai.provider.name, gen_ai.request.model, token
// usage, finish reasons) and each tool call a child span ("execute_tool
// TOOL": tool name and call id, the decision — auto, approved or denied —
// the time spent waiting for approval, and the outcome). A tool's command
// and file path may be secret; they are recorded only when Options allow.
//
// Metrics: gen_ai.client.token.usage and gen_ai.client.operation.duration
// per model call, tether.tool.calls by tool and outcome,
// tether.approval.duration (how long people take to answer) and
// tether.iteration.duration (one model call and the tool calls it asked
// for).
//
// Wire it by wrapping the config's model and sink, and give each run a
// context from RunContext, which is how model calls and events of
// concurrent runs are told apart:
//
//	tel, _ := agentotel.New(agentotel.Options{Provider: "ollama"})
//	cfg.Model = tel.Model(cfg.Model)
//	cfg.Sink = tel.Sink(cfg.Sink)
//	res, err := executor.Run(tel.RunContext(ctx), in)
package agentotel
