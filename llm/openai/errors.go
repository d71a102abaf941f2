package openai

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/llm/internal/transport"
)

// streamError explains a failed stream. The transport's Record comes
// first: openai-go cannot build an error from a non-JSON error body and
// reports a JSON parse failure instead of the HTTP status.
func (m *Model) streamError(ctx context.Context, err error, rec *transport.Record, chunks int) error {
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if se := m.statusError(rec); se != nil {
		return se
	}
	if cerr := rec.ConnErr(); cerr != nil {
		return fmt.Errorf("openai: cannot reach %s after %d attempt(s): %w (check the base URL and that the server is running)", m.base, rec.Attempts(), cerr)
	}
	if st := (*transport.StallError)(nil); errors.As(err, &st) {
		if chunks == 0 {
			return fmt.Errorf("openai: %w, waiting for the first byte", st)
		}
		return fmt.Errorf("openai: %w; the response is incomplete after %d chunk(s)", st, chunks)
	}
	if le := (*llm.LimitError)(nil); errors.As(err, &le) || errors.As(rec.ReadErr(), &le) {
		return fmt.Errorf("openai: %w, after %d chunk(s)", le, chunks)
	}
	if rerr := rec.ReadErr(); rerr != nil {
		return fmt.Errorf("openai: connection lost after %d chunk(s) (%w): %w", chunks, rerr, llm.ErrIncomplete)
	}
	msg := err.Error()
	if inStream, ok := strings.CutPrefix(msg, "received error while streaming: "); ok {
		text := gjson.Get(inStream, "message").String()
		if text == "" {
			text = inStream
		}
		if kind := transport.Classify(http.StatusOK, text); kind != nil {
			if chunks > 0 {
				return fmt.Errorf("openai: server error in the stream: %s: %w (after %d chunk(s): %w)", text, kind, chunks, llm.ErrIncomplete)
			}
			return fmt.Errorf("openai: server error in the stream: %s: %w", text, kind)
		}
		return fmt.Errorf("openai: server error in the stream after %d chunk(s): %s: %w", chunks, text, llm.ErrIncomplete)
	}
	return fmt.Errorf("openai: bad data in the stream after %d chunk(s) (%w): %w", chunks, err, llm.ErrIncomplete)
}

// statusError builds a typed error from the final HTTP error status, or
// returns nil when there was none.
func (m *Model) statusError(rec *transport.Record) error {
	status, header, body := rec.Status()
	if status < 400 {
		return nil
	}
	se := &llm.StatusError{Backend: "openai", StatusCode: status, Body: llm.Excerpt(body)}
	// OpenAI, vLLM and llama.cpp: {"error":{"message":…,"code":…}};
	// some proxies: {"error":"…"} or {"message":"…"} or {"detail":"…"}.
	for _, path := range []string{"error.message", "error", "message", "detail"} {
		if r := gjson.GetBytes(body, path); r.Type == gjson.String && r.String() != "" {
			se.Message = r.String()
			break
		}
	}
	code := gjson.GetBytes(body, "error.code").String()
	se.Kind = transport.Classify(status, se.Message+" "+code)
	if header != nil {
		se.RetryAfter = (llm.RetryPolicy{}).RetryAfter(header)
	}
	switch se.Kind {
	case llm.ErrModelNotFound:
		se.Hint = fmt.Sprintf("the server at %s does not serve this model; list its models with GET %s/models", m.base, m.base)
	case llm.ErrUnauthorized:
		se.Hint = "set a valid API key (OPENAI_API_KEY, or Config.APIKey)"
	case llm.ErrNoToolSupport:
		se.Hint = "call it without Tools and parse tool calls from its text (llama.cpp: start the server with --jinja)"
	case llm.ErrContextTooLong:
		se.Hint = "shorten the history or use a model with a larger context"
	case llm.ErrRateLimited:
		se.Hint = fmt.Sprintf("still rate limited after %d attempt(s); retry later", rec.Attempts())
		if se.RetryAfter > 0 {
			se.Hint = "the wait asked for is longer than RetryPolicy.MaxRetryAfter; retry after it"
		}
	default:
		if status >= 500 {
			se.Hint = fmt.Sprintf("server error after %d attempt(s)", rec.Attempts())
		} else if status == http.StatusNotFound {
			se.Hint = fmt.Sprintf("check the base URL %s: it should end in /v1", m.base)
		}
	}
	return se
}
