package llmtest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"sync"

	"github.com/tetherdev/tether/llm"
)

// Recorder wraps a Model and writes every completed response as one line
// of the script format, so a session with a real model can be replayed
// offline with Replay. When the wrapped model reports capabilities, they
// become the first line.
//
// Only complete responses are written: a stream that fails is passed
// through unchanged and leaves no line, because replaying half a response
// as a whole one would mislead a test. If a line cannot be written, the
// stream ends with that error instead of its Done chunk, so a recording
// never silently loses a turn.
type Recorder struct {
	model llm.Model

	mu      sync.Mutex
	w       io.Writer
	started bool
}

var (
	_ llm.Model              = (*Recorder)(nil)
	_ llm.CapabilityReporter = (*Recorder)(nil)
)

// NewRecorder returns a Recorder writing to w.
func NewRecorder(m llm.Model, w io.Writer) *Recorder {
	return &Recorder{model: m, w: w}
}

// Capabilities reports the wrapped model's capabilities.
func (r *Recorder) Capabilities(ctx context.Context) (llm.Capabilities, error) {
	if err := r.start(ctx); err != nil {
		return llm.Capabilities{}, err
	}
	return llm.CapabilitiesOf(ctx, r.model)
}

// start writes the capabilities line once, before any turn.
func (r *Recorder) start(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.started {
		return nil
	}
	if _, ok := r.model.(llm.CapabilityReporter); ok {
		caps, err := llm.CapabilitiesOf(ctx, r.model)
		if err != nil {
			return err // not started: the next call tries again
		}
		if err := r.writeLine(map[string]any{"capabilities": caps}); err != nil {
			return err
		}
	}
	r.started = true
	return nil
}

func (r *Recorder) writeLine(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("llmtest: recorder: %w", err)
	}
	if _, err := r.w.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("llmtest: recorder: writing the session: %w", err)
	}
	return nil
}

// Chat passes the wrapped model's stream through and records it.
func (r *Recorder) Chat(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
	return func(yield func(llm.Chunk, error) bool) {
		if err := r.start(ctx); err != nil {
			yield(llm.Chunk{}, err)
			return
		}
		var t Turn
		for c, err := range r.model.Chat(ctx, req) {
			if err != nil {
				yield(c, err)
				return
			}
			t.Thinking += c.Thinking
			t.Content += c.Content
			for _, tc := range c.ToolCalls {
				t.ToolCalls = append(t.ToolCalls, CallSpec{ID: tc.ID, Name: tc.Name, Arguments: tc.Arguments})
			}
			if c.Done {
				r.mu.Lock()
				err := r.writeLine(t)
				r.mu.Unlock()
				if err != nil {
					yield(llm.Chunk{}, err)
					return
				}
			}
			if !yield(c, nil) || c.Done {
				return
			}
		}
	}
}
