package agent

import (
	"context"
	"log/slog"

	"github.com/tetherdev/tether/agent/event"
)

// The per-iteration debug record: with Config.Logger at debug level, each
// model call leaves what the model sent (its content and native calls),
// what the parser made of it (the calls found, the blocks it could not
// read and its warnings, each with its reason), and after the batch what
// was refused or failed and why. It answers "the model wrote an envelope,
// why did nothing run?" without a debugger (a host's /verbose switch
// turns the level on), and costs nothing when the level is above debug.

// maxDebugText bounds the content one record carries.
const maxDebugText = 8 << 10

// debugResponse records one model response and its parse.
func (r *run) debugResponse(sr streamResult, x extraction) {
	log := r.cfg.Logger
	if !log.Enabled(context.Background(), slog.LevelDebug) {
		return
	}
	calls := make([]string, len(x.calls))
	for i, c := range x.calls {
		calls[i] = c.Name + " " + excerpt(string(c.Args), 500)
	}
	failures := make([]string, len(sr.Parsed.Failures))
	for i, f := range sr.Parsed.Failures {
		failures[i] = f.Reason
	}
	warnings := make([]string, len(sr.Parsed.Warnings))
	for i, w := range sr.Parsed.Warnings {
		warnings[i] = w.Reason
	}
	native := make([]string, len(sr.Native))
	for i, c := range sr.Native {
		native[i] = c.Name + " " + excerpt(string(c.Arguments), 500)
	}
	log.Debug("agent: model response", "run", r.id, "iteration", r.iter, "calling", r.calling,
		"content", excerpt(sr.Content, maxDebugText), "thinking_bytes", len(sr.Thinking), "native_calls", native,
		"stop", sr.Stop, "complete", sr.Complete,
		"calls", calls, "parse_failures", failures, "parse_warnings", warnings, "problems", x.problems)
}

// debugResults records the calls of a batch that did not succeed.
func (r *run) debugResults(results []callResult) {
	log := r.cfg.Logger
	if !log.Enabled(context.Background(), slog.LevelDebug) {
		return
	}
	for _, c := range results {
		if c.out.Status == event.StatusSuccess {
			continue
		}
		log.Debug("agent: call not done", "run", r.id, "iteration", r.iter, "call", c.call.ID, "tool", c.canonical,
			"status", c.out.Status, "why", c.out.Detail, "told_model", excerpt(c.out.Text, 1000))
	}
}
