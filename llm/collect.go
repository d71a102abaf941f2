package llm

import (
	"iter"
)

// Response is a whole model response: the assistant message with its
// thinking, content and tool calls kept together (a model that
// loses its own reasoning between iterations loses its chain of thought),
// plus what the final chunk reported.
type Response struct {
	Message    Message
	Usage      Usage
	StopReason StopReason
}

// Collect drains a stream into a [Response]. On error it returns what was
// received so far together with the error, so nothing already streamed is
// lost; a stream that ends without a Done chunk yields [ErrIncomplete].
func Collect(stream iter.Seq2[Chunk, error]) (Response, error) {
	var (
		r        Response
		content  []byte
		thinking []byte
		done     bool
	)
	r.Message.Role = RoleAssistant
	finish := func() {
		r.Message.Content = string(content)
		r.Message.Thinking = string(thinking)
	}
	for c, err := range stream {
		if err != nil {
			finish()
			return r, err
		}
		content = append(content, c.Content...)
		thinking = append(thinking, c.Thinking...)
		r.Message.ToolCalls = append(r.Message.ToolCalls, c.ToolCalls...)
		if c.Done {
			r.Usage = c.Usage
			r.StopReason = c.StopReason
			done = true
			break
		}
	}
	finish()
	if !done {
		return r, ErrIncomplete
	}
	if r.StopReason == "" {
		r.StopReason = StopEnd
		if len(r.Message.ToolCalls) > 0 {
			r.StopReason = StopToolCalls
		}
	}
	return r, nil
}
