package agent

import (
	"unicode/utf8"

	"github.com/tetherdev/tether/llm"
)

// TokenCounter counts the tokens msgs take in a model's context. Plug in
// the backend's tokenizer when exact counts matter; [EstimateTokens] is
// the default.
type TokenCounter func(msgs []llm.Message) int

// Estimate constants: English prose and code average about four bytes a
// token with the BPE vocabularies of current models; text outside ASCII
// (CJK, emoji) is closer to one token a rune. Chat templates add a few
// tokens of framing per message. An image costs what a typical vision
// encoder's patch grid does.
const (
	bytesPerToken     = 4
	tokensPerMessage  = 4
	tokensPerImage    = 768
	tokensPerToolCall = 8
)

// EstimateTokens estimates the tokens of msgs without a tokenizer. It
// errs high on non-ASCII text, so compaction triggers early rather than
// late.
func EstimateTokens(msgs []llm.Message) int {
	n := 0
	for _, m := range msgs {
		n += tokensPerMessage + textTokens(m.Content) + textTokens(m.Thinking)
		for _, c := range m.ToolCalls {
			n += tokensPerToolCall + textTokens(c.Name) + textTokens(string(c.Arguments))
		}
		n += len(m.Images) * tokensPerImage
	}
	return n
}

func textTokens(s string) int {
	if s == "" {
		return 0
	}
	// One pass over the bytes: ASCII bytes, and lead bytes of multi-byte
	// runes (continuation bytes, 0x80–0xBF, count for nothing).
	ascii, other := 0, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < utf8.RuneSelf:
			ascii++
		case c >= 0xC0:
			other++
		}
	}
	return (ascii+bytesPerToken-1)/bytesPerToken + other
}

// tokenMeter tracks the size of a run's conversation: the prompt tokens
// the model reported for its last request, plus an estimate of what was
// added since (its answer, the tool results). Reported counts are exact where the
// estimate is a guess, so they win when present.
type tokenMeter struct {
	count      TokenCounter
	reported   int // prompt tokens of the last call, as reported
	reportedAt int // len(messages) when that request was sent
	// fixed is the estimate of what a request carries besides its
	// messages (native tool specs); reported counts already include it.
	fixed int
}

// specTokens estimates the tokens of native tool specs, which a backend
// renders into the prompt.
func specTokens(specs []llm.ToolSpec) int {
	n := 0
	for _, s := range specs {
		n += tokensPerToolCall + textTokens(s.Name) + textTokens(s.Description) + textTokens(string(s.Parameters))
	}
	return n
}

// observe records a finished call's usage for a request of n messages.
func (t *tokenMeter) observe(u llm.Usage, n int) {
	if u.PromptTokens <= 0 {
		t.reported = 0
		return
	}
	t.reported, t.reportedAt = u.PromptTokens, n
}

// reset forgets reported counts (after the messages were rewritten).
func (t *tokenMeter) reset() { t.reported = 0 }

// tokens is the size of msgs (the whole request, system message first).
func (t *tokenMeter) tokens(msgs []llm.Message) int {
	if t.reported > 0 && t.reportedAt <= len(msgs) {
		return t.reported + t.count(msgs[t.reportedAt:])
	}
	return t.fixed + t.count(msgs)
}
