package agent

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/internal/textcut"
	"github.com/tetherdev/tether/llm"
)

// The prompt budget: shares of the context window the fixed part of every
// request may take. A small local model keeps working with its system
// prompt and tools in a third of its window; past half, there is no room
// left for files, results and answers.
const (
	// fullPromptShare: the full system prompt and tool definitions are
	// used while they take at most this share of the window; above it,
	// their compact form.
	fullPromptShare = 0.35
	// maxPromptShare: even the compact form over this share of the window
	// is ErrContextTooSmall.
	maxPromptShare = 0.50
	// projectShare and projectShareCompact bound the project context
	// (AGENTS.md, README, manifests) within the system prompt.
	projectShare        = 0.15
	projectShareCompact = 0.08
	// resultShare bounds one new message (a tool result, a file read
	// whole) before it is sent, so one cat of a big file cannot push the
	// system prompt out of the window.
	resultShare = 0.20
)

// ErrContextTooSmall: the model's context window cannot hold the agent's
// system prompt and tool definitions with room to work, even in their
// compact form. The *ContextTooSmallError wrapping it says by how much and
// how to get a larger window.
var ErrContextTooSmall = errors.New("agent: the model's context window is too small for the agent's prompt")

// ContextTooSmallError is ErrContextTooSmall with its figures.
type ContextTooSmallError struct {
	// Window is the context length the run budgets with; PromptTokens the
	// estimated size of the compact system prompt and tool definitions,
	// ToolTokens the tools' share of it; Need a window that would do.
	Window, PromptTokens, ToolTokens, Need int
}

func (e *ContextTooSmallError) Error() string {
	return fmt.Sprintf("agent: the model's context window is %d tokens, and the system prompt and tool definitions take about %d of them even in compact form (%d for the tools), more than half: nothing would be left for files and answers. "+
		"Run the model with a window of at least %d tokens: a num_ctx option in the model string (ollama:NAME?num_ctx=%d), the examples' -num-ctx flag, or OLLAMA_CONTEXT_LENGTH=%d for the Ollama server; or offer fewer tools",
		e.Window, e.PromptTokens, e.ToolTokens, e.Need, e.Need, e.Need)
}

func (e *ContextTooSmallError) Unwrap() error { return ErrContextTooSmall }

// promptBudget is the run's record of how its fixed prompt fits the
// window, re-checked when the tool-calling mode changes.
type promptBudget struct {
	checked bool
	calling ToolCalling
	tokens  int
	pending []event.Event // the context_window event (and a warning), emitted before the next call
}

// fitPrompt measures the system prompt and the tool definitions against
// the window and, when they take too much of it, switches to their compact
// form; the context_window event it prepares is emitted before the next
// model call (run_started comes first). Without a known window nothing is
// measured.
func (r *run) fitPrompt() error {
	if r.budget.checked && r.budget.calling == r.calling {
		return nil
	}
	r.budget = promptBudget{checked: true, calling: r.calling}
	caps := r.e.capabilities(r.ctx)
	if r.limit <= 0 {
		return nil
	}
	r.pb.project = cutProject(r.project.Text, r.limit, projectShare)
	r.pb.compact = false
	r.system = r.systemMessage()
	tools := llm.EstimateToolSpecTokens(r.specs)
	used := r.meter.count([]llm.Message{r.system}) + tools
	if float64(used) > fullPromptShare*float64(r.limit) {
		r.pb.compact = true
		r.pb.project = cutProject(r.project.Text, r.limit, projectShareCompact)
		if r.calling == ToolCallingNative {
			r.specs = compactSpecs(r.offered.Specs())
		} else {
			r.pb.tools = shortTools(r.offered.Specs())
		}
		r.system = r.systemMessage()
		tools = llm.EstimateToolSpecTokens(r.specs)
		used = r.meter.count([]llm.Message{r.system}) + tools
		r.cfg.Logger.Info("agent: compact prompt for a small context window", "window", r.limit, "prompt_tokens", used)
	}
	r.msgs[0] = r.system
	r.meter.fixed = tools
	r.budget.tokens = used
	if float64(used) > maxPromptShare*float64(r.limit) {
		need := 4096
		for float64(used) > fullPromptShare*float64(need) {
			need *= 2
		}
		return &ContextTooSmallError{Window: r.limit, PromptTokens: used, ToolTokens: tools, Need: need}
	}
	ev := event.ContextWindow{ContextLength: r.limit, PromptTokens: used, Compact: r.pb.compact}
	if r.cfg.Compaction.ContextLength == 0 {
		ev.MaxContextLength, ev.Source, ev.Warning = caps.MaxContextLength, string(caps.ContextSource), caps.ContextWarning
	} else {
		ev.Source = "config"
	}
	r.budget.pending = append(r.budget.pending, ev)
	if ev.Warning != "" {
		r.budget.pending = append(r.budget.pending, event.Notice{Kind: event.NoticeContextOverflow, Text: ev.Warning})
	}
	return nil
}

// announceWindow emits what fitPrompt prepared.
func (r *run) announceWindow() {
	for _, ev := range r.budget.pending {
		r.emit(ev)
	}
	r.budget.pending = nil
}

// cutProject keeps the head of the project context within share of the
// window, saying what was cut.
func cutProject(text string, window int, share float64) string {
	budget := int(share * float64(window) * transcriptBytesPerToken)
	if text == "" || len(text) <= budget {
		return text
	}
	head := textcut.AtLine(text, budget)
	return head + fmt.Sprintf("\n[project context cut to fit the model's %d-token context window: %d of %d bytes shown]", window, len(head), len(text))
}

// capUnsent cuts any message added since the last request that takes more
// than resultShare of the window (a tool result, a file read whole),
// keeping its head and tail; messages already sent are never changed, and
// the task is never cut.
func (r *run) capUnsent() {
	if r.limit <= 0 {
		return
	}
	budget := int(resultShare * float64(r.limit))
	for i := r.sent; i < len(r.history); i++ {
		m := &r.history[i]
		if i == r.task || m.Role == llm.RoleAssistant || m.Role == llm.RoleSystem {
			continue
		}
		n := r.meter.count([]llm.Message{*m})
		if n <= budget {
			continue
		}
		keep := budget * transcriptBytesPerToken
		m.Content = middleCut(m.Content, keep) + fmt.Sprintf("\n[this result was cut to fit the model's %d-token context window; ask for a smaller part (a line range, a narrower search) to see the rest]", r.limit)
		for r.meter.count([]llm.Message{*m}) > budget && keep > 256 {
			// Text outside ASCII counts more tokens a byte: cut further.
			keep /= 2
			m.Content = middleCut(m.Content, keep)
		}
		r.cfg.Logger.Info("agent: a large message was cut to fit the context window", "tokens", n, "budget", budget)
	}
}

// shortTools lists tools in one line each, for the compact text-mode
// prompt: "- name(required, optional?): first sentence".
func shortTools(specs []llm.ToolSpec) string {
	var b strings.Builder
	for _, s := range specs {
		req, opt := schemaArgs(s.Parameters)
		args := append([]string(nil), req...)
		for _, o := range opt {
			args = append(args, o+"?")
		}
		fmt.Fprintf(&b, "- %s(%s): %s\n", s.Name, strings.Join(args, ", "), firstSentence(s.Description))
	}
	return b.String()
}

// compactSpecs are native tool specs with one-sentence descriptions and
// parameter schemas stripped of their descriptions.
func compactSpecs(specs []llm.ToolSpec) []llm.ToolSpec {
	out := make([]llm.ToolSpec, len(specs))
	for i, s := range specs {
		out[i] = llm.ToolSpec{Name: s.Name, Description: firstSentence(s.Description), Parameters: stripDescriptions(s.Parameters)}
	}
	return out
}
