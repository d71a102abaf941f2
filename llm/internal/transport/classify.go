package transport

import (
	"net/http"
	"strings"

	"github.com/tetherdev/tether/llm"
)

// Classify maps an HTTP status and the server's error message to one of
// the llm sentinel errors, or nil. The phrases are those real servers use:
// Ollama ("model \"x\" not found, try pulling it first", "… does not
// support tools"), OpenAI ("context_length_exceeded", "maximum context
// length"), vLLM and llama.cpp ("exceeds the available context size",
// "tools param requires --jinja flag"), LM Studio and llama.cpp slots
// ("Cannot truncate prompt with n_keep … >= n_ctx").
func Classify(status int, message string) error {
	m := strings.ToLower(message)
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return llm.ErrUnauthorized
	case containsAny(m, "does not support tools", "tools param requires", "tool use is not supported",
		"tools are not supported", "does not support function calling", "tool_choice"):
		return llm.ErrNoToolSupport
	case containsAny(m, "context length", "context_length", "context window", "context size",
		"prompt is too long", "too many tokens", "input is too long", "maximum context",
		"exceed_context_size", "n_ctx"):
		return llm.ErrContextTooLong
	case status == http.StatusNotFound && strings.Contains(m, "model"):
		return llm.ErrModelNotFound
	case containsAny(m, "model_not_found"):
		return llm.ErrModelNotFound
	case status == http.StatusTooManyRequests:
		return llm.ErrRateLimited
	}
	return nil
}

func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
