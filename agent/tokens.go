package agent

import "github.com/tetherdev/tether/llm"

// tokenMeter tracks the size of a run's conversation: the prompt tokens
// the model reported for its last request, plus an estimate of what was
// added since (its answer, the tool results). Reported counts are exact
// where the estimate is a guess, so they win when they are larger; a
// smaller one is a server's undercount (see tokens).
type tokenMeter struct {
	count      llm.TokenCounter
	reported   int // prompt tokens of the last call, as reported
	reportedAt int // len(messages) when that request was sent
	// fixed is the estimate of what a request carries besides its
	// messages (native tool specs); reported counts already include it.
	fixed int
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

// tokens is the size of msgs (the whole request, system message first):
// the reported count plus what was added since, but never less than the
// estimate. A reported count can be far too low: Ollama leaves out
// prompt tokens served from its cache in some versions, omits the count
// on a repeated prompt, and counts only what fit when it cut an
// overflowing prompt (ollama/ollama#2068, #3427, #16428); trusting it
// alone, a session would never compact.
func (t *tokenMeter) tokens(msgs []llm.Message) int {
	est := t.fixed + t.count(msgs)
	if t.reported > 0 && t.reportedAt <= len(msgs) {
		return max(est, t.reported+t.count(msgs[t.reportedAt:]))
	}
	return est
}
