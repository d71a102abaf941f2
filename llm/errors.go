package llm

import (
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Sentinel errors every backend maps its failures to, so that an agent can
// react to the kind of failure without knowing which server it talks to.
// Backends wrap them (usually inside a [*StatusError]) with the server's own
// words; test with errors.Is.
var (
	// ErrModelNotFound: the server does not know the model name.
	ErrModelNotFound = errors.New("model not found: check the name, or download the model first (for Ollama: ollama pull NAME)")

	// ErrUnauthorized: the server refused the credentials (HTTP 401/403).
	ErrUnauthorized = errors.New("unauthorized: set a valid API key (for OpenAI-compatible servers: OPENAI_API_KEY)")

	// ErrContextTooLong: the prompt does not fit the model's context window.
	ErrContextTooLong = errors.New("prompt exceeds the model's context window: compact or trim the history, or use a model with a larger context")

	// ErrNoToolSupport: the model cannot take native tool definitions. The
	// agent should describe the tools in the prompt and parse calls from the
	// model's text instead (the toolcall package parses them).
	ErrNoToolSupport = errors.New("model does not support native tool calls: describe the tools in the prompt and parse calls from text instead")

	// ErrRateLimited: the server kept answering 429 after every retry.
	ErrRateLimited = errors.New("rate limited: wait and retry later, or lower the request rate")

	// ErrStalled: the server sent no bytes for longer than the stall timeout.
	ErrStalled = errors.New("stream stalled: no data from the server within the stall timeout")

	// ErrIncomplete: the stream ended before the model finished its
	// response. What was delivered before stays delivered; the response
	// must not be treated as complete.
	ErrIncomplete = errors.New("stream ended before the model finished: the response is incomplete")
)

// StatusError is an HTTP error answer from a model server. Kind, when set,
// is one of the sentinel errors above and is what errors.Is matches, so
// callers can write
//
//	var se *llm.StatusError
//	if errors.As(err, &se) { log(se.StatusCode, se.Body) }
//	if errors.Is(err, llm.ErrModelNotFound) { … }
type StatusError struct {
	Backend    string        // "ollama", "openai", …
	StatusCode int           // HTTP status
	Message    string        // the server's error message, when it sent one
	Body       string        // the start of the response body (at most MaxBodyExcerpt bytes)
	RetryAfter time.Duration // from a Retry-After header; zero when absent
	Kind       error         // a sentinel from this package, or nil
	Hint       string        // what to do about it, in the backend's terms
}

// MaxBodyExcerpt bounds StatusError.Body so an HTML error page or a huge
// JSON document does not end up in logs whole.
const MaxBodyExcerpt = 512

func (e *StatusError) Error() string {
	what := e.Message
	if what == "" {
		what = e.Body
	}
	if what == "" {
		what = http.StatusText(e.StatusCode)
	}
	s := fmt.Sprintf("%s: %s (HTTP %d)", e.Backend, what, e.StatusCode)
	if e.RetryAfter > 0 {
		s += fmt.Sprintf(" (server asks to retry after %s)", e.RetryAfter)
	}
	switch {
	case e.Hint != "":
		s += ": " + e.Hint
	case e.Kind != nil:
		s += ": " + e.Kind.Error()
	}
	return s
}

// Unwrap returns Kind so that errors.Is(err, ErrModelNotFound) works.
func (e *StatusError) Unwrap() error { return e.Kind }

// Excerpt shortens b to at most MaxBodyExcerpt bytes, on a UTF-8 boundary,
// for use as StatusError.Body.
func Excerpt(b []byte) string {
	if len(b) <= MaxBodyExcerpt {
		return string(b)
	}
	cut := MaxBodyExcerpt
	for cut > 0 && b[cut]&0xC0 == 0x80 { // do not split a rune
		cut--
	}
	return string(b[:cut]) + "…"
}
