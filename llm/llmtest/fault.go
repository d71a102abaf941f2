package llmtest

import (
	"fmt"
	"time"
)

// FaultKind says how a fake server misbehaves on one chat request.
type FaultKind int

const (
	// FaultNone serves the request normally.
	FaultNone FaultKind = iota
	// FaultStatus answers with an HTTP error status and does not consume a
	// script turn: the next successful request gets it.
	FaultStatus
	// FaultReset drops the connection after After stream lines; After 0
	// drops it before any response, which a client sees as a connection
	// error.
	FaultReset
	// FaultMalformed writes a line that is not valid JSON after After lines.
	FaultMalformed
	// FaultStall stops writing after After lines and holds the connection
	// open until the client gives up.
	FaultStall
	// FaultErrorLine reports an error inside the stream after After lines,
	// the way servers do once the 200 status is gone: Ollama writes
	// {"error":"…"}, OpenAI-compatible servers data: {"error":{…}}. Body is
	// the message.
	FaultErrorLine
)

func (k FaultKind) String() string {
	switch k {
	case FaultNone:
		return "none"
	case FaultStatus:
		return "status"
	case FaultReset:
		return "reset"
	case FaultMalformed:
		return "malformed"
	case FaultStall:
		return "stall"
	case FaultErrorLine:
		return "error line"
	}
	return fmt.Sprintf("FaultKind(%d)", int(k))
}

// Fault is one injected failure. Queue faults with FakeServer.Fail; each
// chat request takes the next one.
type Fault struct {
	Kind FaultKind
	// Status, RetryAfter and Body shape a FaultStatus answer. An empty Body
	// becomes the server's usual JSON error with a generic message.
	Status     int
	RetryAfter string
	Body       string
	// After is how many stream lines (NDJSON lines, or SSE events) are
	// written before a reset, malformed line or stall.
	After int
}

// Status returns a FaultStatus fault with the server's usual error body.
func Status(code int) Fault { return Fault{Kind: FaultStatus, Status: code} }

// StatusBody returns a FaultStatus fault with a literal body.
func StatusBody(code int, body string) Fault {
	return Fault{Kind: FaultStatus, Status: code, Body: body}
}

// RateLimited returns a 429 fault whose Retry-After header asks for d.
func RateLimited(d time.Duration) Fault {
	return Fault{Kind: FaultStatus, Status: 429, RetryAfter: fmt.Sprint(int(d.Seconds()))}
}

// ResetAfter drops the connection after n stream lines.
func ResetAfter(n int) Fault { return Fault{Kind: FaultReset, After: n} }

// MalformedAfter writes a broken line after n stream lines.
func MalformedAfter(n int) Fault { return Fault{Kind: FaultMalformed, After: n} }

// StallAfter goes silent after n stream lines.
func StallAfter(n int) Fault { return Fault{Kind: FaultStall, After: n} }

// ErrorAfter reports msg as an in-stream error after n stream lines.
func ErrorAfter(n int, msg string) Fault { return Fault{Kind: FaultErrorLine, After: n, Body: msg} }
