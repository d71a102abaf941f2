package ollama

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/tidwall/gjson"

	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/llm/internal/transport"
)

type jsonSyntaxError = json.SyntaxError

// statusError builds a typed error from the final HTTP error status the
// transport recorded, or returns nil when the final answer was not an
// error status.
func (m *Model) statusError(rec *transport.Record, model string) error {
	status, header, body := rec.Status()
	if status < 400 {
		return nil
	}
	se := &llm.StatusError{Backend: "ollama", StatusCode: status, Body: llm.Excerpt(body)}
	// Ollama answers {"error":"…"}; a proxy in front of it may use the
	// OpenAI shape {"error":{"message":…}}.
	for _, path := range []string{"error", "error.message"} {
		if r := gjson.GetBytes(body, path); r.Type == gjson.String && r.String() != "" {
			se.Message = r.String()
			break
		}
	}
	se.Kind = transport.Classify(status, se.Message+" "+se.Body)
	if header != nil {
		se.RetryAfter = (llm.RetryPolicy{}).RetryAfter(header)
	}
	switch se.Kind {
	case llm.ErrModelNotFound:
		se.Hint = fmt.Sprintf("run `ollama pull %s`, or choose an installed model (`ollama list`)", model)
	case llm.ErrNoToolSupport:
		se.Hint = "this model has no tool-calling template; call it without Tools and parse tool calls from its text (Capabilities reports Tools=false)"
	case llm.ErrUnauthorized:
		se.Hint = "this server requires authentication: sign in with `ollama signin` or put a proxy credential in the HTTP client"
	case llm.ErrContextTooLong:
		se.Hint = "shorten the history or raise num_ctx in Options"
	case llm.ErrRateLimited:
		se.Hint = fmt.Sprintf("still rate limited after %d attempt(s); retry later", rec.Attempts())
		if se.RetryAfter > 0 {
			se.Hint = "the wait asked for is longer than RetryPolicy.MaxRetryAfter; retry after it"
		}
	default:
		if status >= 500 {
			se.Hint = fmt.Sprintf("server error after %d attempt(s); see the Ollama server log", rec.Attempts())
		} else if status == http.StatusNotFound {
			se.Hint = fmt.Sprintf("check the host %s: it does not look like an Ollama server", m.base)
		}
	}
	return se
}
