package event

// ContextWindow reports the context window a run budgets with, before its
// first model call (and again if the tool-calling mode changes): the
// window the backend asked for or the server runs with, the model's
// trained maximum, who chose it, and how much of it the system prompt
// and tool definitions take. A UI shows it as "context 32k (default) ·
// prompt 2.1k"; Warning, when set, is a mismatch the host should fix
// (it asked for more than the model supports).
type ContextWindow struct {
	ContextLength    int    `json:"context_length"`
	MaxContextLength int    `json:"max_context_length,omitempty"`
	Source           string `json:"source,omitempty"`
	Warning          string `json:"warning,omitempty"`
	// PromptTokens is the estimated size of the system prompt and the
	// tool definitions; Compact is set when they were written in their
	// compact form to fit a small window.
	PromptTokens int  `json:"prompt_tokens"`
	Compact      bool `json:"compact,omitempty"`
}

func (ContextWindow) Type() string { return "context_window" }
