package llm

import "unicode/utf8"

// TokenCounter counts the tokens msgs take in a model's context. Plug in
// the backend's tokenizer when exact counts matter; [EstimateTokens] is
// the estimate that needs none.
type TokenCounter func(msgs []Message) int

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
// errs high on non-ASCII text, so a caller that budgets a context with it
// runs out of room early rather than late.
func EstimateTokens(msgs []Message) int {
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

// EstimateToolSpecTokens estimates the tokens of native tool specs, which
// a backend renders into the prompt beside the messages; it errs the same
// way as [EstimateTokens].
func EstimateToolSpecTokens(specs []ToolSpec) int {
	n := 0
	for _, s := range specs {
		n += tokensPerToolCall + textTokens(s.Name) + textTokens(s.Description) + textTokens(string(s.Parameters))
	}
	return n
}

// textTokens estimates the tokens of s: a token per four ASCII bytes,
// rounded up, and one per rune outside ASCII.
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
