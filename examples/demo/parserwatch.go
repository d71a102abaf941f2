package main

import (
	"context"
	"fmt"
	"iter"
	"strings"

	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/toolcall"
)

// parserWatch passes a model through unchanged and, at the end of each
// response, reparses its text with toolcall.Parse to tell the reader what
// the parser had to do: calls repaired after the model stopped mid-JSON,
// blocks it could not read (which the executor reports to the model).
// The executor does not put repairs in its events, so the demo looks for
// itself.
type parserWatch struct {
	inner llm.Model
	note  func(string)
}

func (w parserWatch) Capabilities(ctx context.Context) (llm.Capabilities, error) {
	return llm.CapabilitiesOf(ctx, w.inner)
}

func (w parserWatch) Chat(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
	return func(yield func(llm.Chunk, error) bool) {
		var text strings.Builder
		for c, err := range w.inner.Chat(ctx, req) {
			text.WriteString(c.Content)
			if c.Done && err == nil {
				w.report(text.String())
			}
			if !yield(c, err) {
				return
			}
		}
	}
}

func (w parserWatch) report(text string) {
	r := toolcall.Parse(text)
	for _, c := range r.Calls {
		if c.Repaired {
			w.note(fmt.Sprintf("parser: the %s call was cut off before its closing brackets; repaired (%s format)", c.Name, c.Format))
		}
	}
	for _, f := range r.Failures {
		w.note("parser: unreadable call, reported to the model: " + f.Reason)
	}
}
