package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/tetherdev/tether/internal/textcut"
	"github.com/tetherdev/tether/llm"
)

// CompactionConfig controls context compaction. The zero value compacts at 80% of the
// model's context length when the model reports one.
type CompactionConfig struct {
	// Disabled turns automatic compaction off; Executor.Compact still works.
	Disabled bool
	// ContextLength is the model's context window in tokens; zero means
	// what the model reports (llm.Capabilities.ContextLength). With
	// neither, automatic compaction is off.
	ContextLength int
	// Threshold is the fraction of ContextLength at which a run compacts
	// before its next model call; zero means 0.8.
	Threshold float64
	// KeepRecent is the fraction of ContextLength kept verbatim as the
	// most recent turns; zero means 0.3. The latest assistant message and
	// its pending tool results are always kept, whatever their size.
	KeepRecent float64
	// Counter counts tokens where the model reported none; nil means
	// [llm.EstimateTokens].
	Counter llm.TokenCounter
	// Instructions are added to the summary request ("keep the API
	// decisions in full").
	Instructions string
	// Model writes the summaries; nil means Config.Model. A small, fast
	// model is often enough. ModelName is its Request.Model.
	Model     llm.Model
	ModelName string
}

// DefaultCompactionThreshold is the fraction of the context length at
// which a run compacts.
const DefaultCompactionThreshold = 0.8

const defaultKeepRecent = 0.3

// transcriptBytesPerToken turns a token budget into the bytes of
// transcript the summary request may carry: about four bytes a token, the
// ratio llm.EstimateTokens uses for ASCII text.
const transcriptBytesPerToken = 4

// ErrNothingToCompact: the conversation is only the task and the recent
// turns; there is nothing older to summarise.
var ErrNothingToCompact = errors.New("agent: nothing to compact: the conversation holds only the task and its recent turns")

func (c CompactionConfig) validate() error {
	if c.Threshold < 0 || c.Threshold > 1 || c.KeepRecent < 0 || c.KeepRecent >= 1 || c.ContextLength < 0 {
		return fmt.Errorf("%w: CompactionConfig: Threshold must be in (0, 1], KeepRecent in (0, 1) and ContextLength ≥ 0 (zero means the defaults)", ErrConfig)
	}
	return nil
}

// Compaction is the outcome of compacting a conversation.
type Compaction struct {
	// History is the compacted conversation: the summary, the task, the
	// recent turns. Pass it as Input.History to continue.
	History []llm.Message
	// Summary is what the model wrote in place of the older turns.
	Summary                   string
	TokensBefore, TokensAfter int
	Summarized, Kept          int
	Fallback                  bool
}

// summaryPrefix starts the message that replaces compacted turns.
const summaryPrefix = "[Conversation summary: earlier messages were compacted to fit the context window. Continue from here.]\n\n"

const summaryInstructions = `You are compacting the conversation of a coding agent so that it fits the model's context window. Write the summary the agent will continue from, in these parts:
1. The user's requests and constraints, in their own words where it matters.
2. What has been done: files read and what was learned, files changed and how, commands run and their results.
3. Errors met and how they were resolved (or not).
4. The current state and the next steps.
Keep exact file paths, function and type names, error messages and decisions. Be concise: at most %d words. Do not call tools; answer with the summary only.`

// compactor owns compaction: which turns to keep, the summary request,
// and the rewritten history. It never drops the task message and never
// separates a tool call from its results.
type compactor struct {
	chat         func(ctx context.Context, req llm.Request) (llm.Response, error)
	req          llm.Request
	count        llm.TokenCounter
	keepTokens   int
	lastTurnOnly bool // keep only the latest turn verbatim (a host's explicit request)
	instructions string
	logger       *slog.Logger
}

// compact summarises history[:tail] except the task and returns the new
// history. task is the index of the message to keep verbatim, or -1.
func (c *compactor) compact(ctx context.Context, history []llm.Message, task int, extra string) (Compaction, llm.Usage, error) {
	var usage llm.Usage
	start := c.tailStart(history)
	var old []llm.Message
	for i := range history[:start] {
		if i != task {
			old = append(old, history[i])
		}
	}
	if len(old) == 0 || (len(old) == 1 && strings.HasPrefix(old[0].Content, summaryPrefix)) {
		// Summarising the last summary alone would cost a model call
		// per iteration and gain nothing.
		return Compaction{}, usage, ErrNothingToCompact
	}
	out := Compaction{TokensBefore: c.count(history)}
	words := max(150, min(800, c.keepTokens/3))
	sys := fmt.Sprintf(summaryInstructions, words)
	for _, s := range []string{c.instructions, extra} {
		if s = strings.TrimSpace(s); s != "" {
			sys += "\n\nAlso: " + s
		}
	}
	req := c.req
	req.Tools = nil
	req.Messages = []llm.Message{
		{Role: llm.RoleSystem, Content: sys},
		{Role: llm.RoleUser, Content: "The conversation to summarise:\n\n" + transcript(old, max(4000, c.keepTokens*transcriptBytesPerToken))},
	}
	resp, err := c.chat(ctx, req)
	usage = resp.Usage
	summary := strings.TrimSpace(stripSignal(resp.Message.Content))
	if err != nil || summary == "" {
		if ctx.Err() != nil {
			return Compaction{}, usage, context.Cause(ctx)
		}
		c.logger.Warn("agent: the model could not summarise; compacting with a digest", "err", err)
		summary, out.Fallback = digest(old, max(2000, c.keepTokens*transcriptBytesPerToken/2)), true
	}
	out.Summary = summary
	out.History = append(out.History, llm.Message{Role: llm.RoleUser, Content: summaryPrefix + summary})
	if task >= 0 && task < start {
		out.History = append(out.History, history[task])
	}
	out.History = append(out.History, history[start:]...)
	out.Summarized = len(old)
	out.Kept = len(out.History) - 1
	out.TokensAfter = c.count(out.History)
	return out, usage, nil
}

// tailStart picks the first message kept verbatim: the last assistant
// message (with its pending tool results) always, then earlier whole
// turns, each starting at an assistant message, while they fit
// keepTokens. Starting at an assistant message keeps every tool result
// after the call it answers.
func (c *compactor) tailStart(h []llm.Message) int {
	start := lastAssistant(h, len(h))
	if start < 0 {
		return len(h) // no turn yet: keep only what follows the summary
	}
	used := c.count(h[start:])
	for !c.lastTurnOnly {
		prev := lastAssistant(h, start)
		if prev < 0 {
			return start
		}
		cost := c.count(h[prev:start])
		if used+cost > c.keepTokens {
			return start
		}
		start, used = prev, used+cost
	}
	return start
}

func lastAssistant(h []llm.Message, before int) int {
	for i := before - 1; i >= 0; i-- {
		if h[i].Role == llm.RoleAssistant {
			return i
		}
	}
	return -1
}

// transcript renders messages for the summary request, each cut to a
// share of budget bytes (head and tail kept: a command's verdict is at
// its end).
func transcript(msgs []llm.Message, budget int) string {
	per := max(300, budget/max(1, len(msgs)))
	var b strings.Builder
	for _, m := range msgs {
		label := string(m.Role)
		if m.Role == llm.RoleTool && m.ToolName != "" {
			label = "tool result: " + m.ToolName
		}
		fmt.Fprintf(&b, "[%s]\n", label)
		if t := strings.TrimSpace(m.Content); t != "" {
			b.WriteString(middleCut(t, per))
			b.WriteString("\n")
		}
		for _, tc := range m.ToolCalls {
			fmt.Fprintf(&b, "(called %s %s)\n", tc.Name, middleCut(string(tc.Arguments), per/2))
		}
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// middleCut keeps the head and tail of s within n bytes.
func middleCut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	head := textcut.AtLine(s, n*2/3)
	tail := s[len(s)-n/3:]
	for len(tail) > 0 && tail[0]&0xC0 == 0x80 {
		tail = tail[1:]
	}
	return head + fmt.Sprintf("\n[… %d bytes omitted …]\n", len(s)-len(head)-len(tail)) + tail
}

// digest is the summary of last resort: one line per message, so the
// agent keeps at least the outline of what happened.
func digest(msgs []llm.Message, budget int) string {
	var b strings.Builder
	b.WriteString("Outline of the earlier conversation (the model's summary was unavailable):\n")
	for _, m := range msgs {
		line := firstLine(strings.TrimSpace(m.Content))
		for _, tc := range m.ToolCalls {
			line += fmt.Sprintf(" [called %s %s]", tc.Name, excerpt(string(tc.Arguments), 80))
		}
		fmt.Fprintf(&b, "- %s: %s\n", m.Role, excerpt(line, 200))
		if b.Len() > budget {
			b.WriteString("- …\n")
			break
		}
	}
	return strings.TrimRight(b.String(), "\n")
}
