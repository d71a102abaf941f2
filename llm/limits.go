package llm

import (
	"errors"
	"fmt"
	"time"
)

// StreamLimits bound what one model response may make a client hold or
// wait for, so that a server that streams forever, or never ends an event,
// costs a bounded amount of memory and time. The zero value means the
// defaults below, generous enough for any real answer; a negative field
// turns that bound off.
type StreamLimits struct {
	// MaxContent, MaxThinking and MaxArguments bound the bytes of one
	// response's content, its reasoning, and its tool calls' arguments
	// (all calls together).
	MaxContent, MaxThinking, MaxArguments int
	// MaxEvent bounds one unit of framing: an SSE event (its data lines
	// up to the blank line that ends it) or an NDJSON line.
	MaxEvent int
	// MaxDuration bounds one response from request to last byte, beside
	// the stall timeout (which a server trickling bytes never trips).
	MaxDuration time.Duration
}

// Default stream limits. 8 MiB is the line limit of Ollama's own client
// and thousands of times a long answer; 30 minutes is several times the
// longest generation of a large local model on a CPU.
const (
	DefaultMaxContent   = 8 << 20
	DefaultMaxThinking  = 8 << 20
	DefaultMaxArguments = 8 << 20
	DefaultMaxEvent     = 8 << 20
	DefaultMaxDuration  = 30 * time.Minute
)

// ErrResponseLimit: a response exceeded one of its StreamLimits. The
// *LimitError carrying it says which; what arrived before is kept, and
// the response is incomplete (errors.Is matches ErrIncomplete too).
var ErrResponseLimit = errors.New("model response exceeded a limit")

// LimitError reports the bound a response exceeded.
type LimitError struct {
	What     string        // "content", "thinking", "tool-call arguments", "SSE event", "NDJSON line", "time"
	Limit    int           // bytes; 0 for the time limit
	Duration time.Duration // the time limit, for What == "time"
}

func (e *LimitError) Error() string {
	if e.Duration > 0 {
		return fmt.Sprintf("the model's response took longer than %s (StreamLimits.MaxDuration); the server kept it going: stopped with what had arrived", e.Duration)
	}
	return fmt.Sprintf("the model's response exceeded %d bytes of %s (StreamLimits); the server kept sending: stopped with what had arrived", e.Limit, e.What)
}

func (e *LimitError) Unwrap() []error { return []error{ErrResponseLimit, ErrIncomplete} }

func limit(v, def int) int {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}

// Event is the bound of one SSE event or NDJSON line; 0 means none.
func (l StreamLimits) Event() int { return limit(l.MaxEvent, DefaultMaxEvent) }

// Duration is the bound of one response; 0 means none.
func (l StreamLimits) Duration() time.Duration {
	switch {
	case l.MaxDuration == 0:
		return DefaultMaxDuration
	case l.MaxDuration < 0:
		return 0
	}
	return l.MaxDuration
}

// ResponseMeter counts one response against its limits; a backend adds
// every delta before handing it on. The zero value is unusable: use
// [StreamLimits.Meter].
type ResponseMeter struct {
	content, thinking, args int
	max                     [3]int
}

// Meter starts counting a response.
func (l StreamLimits) Meter() *ResponseMeter {
	return &ResponseMeter{max: [3]int{limit(l.MaxContent, DefaultMaxContent), limit(l.MaxThinking, DefaultMaxThinking), limit(l.MaxArguments, DefaultMaxArguments)}}
}

// Add counts bytes of content, thinking and arguments, and returns a
// *LimitError once one of them passes its bound.
func (m *ResponseMeter) Add(content, thinking, args int) error {
	m.content += content
	m.thinking += thinking
	m.args += args
	switch {
	case m.max[0] > 0 && m.content > m.max[0]:
		return &LimitError{What: "content", Limit: m.max[0]}
	case m.max[1] > 0 && m.thinking > m.max[1]:
		return &LimitError{What: "thinking", Limit: m.max[1]}
	case m.max[2] > 0 && m.args > m.max[2]:
		return &LimitError{What: "tool-call arguments", Limit: m.max[2]}
	}
	return nil
}
