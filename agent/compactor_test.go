package agent

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/llm/llmtest"
)

// summaryRouter sends summary requests (no tools, the compaction
// instructions as system prompt) to one scripted model and everything
// else to another, so a test does not depend on the exact iteration at
// which compaction happens.
type summaryRouter struct {
	agent, summaries *llmtest.ScriptedModel
}

func isSummaryRequest(req llm.Request) bool {
	return len(req.Messages) > 0 && strings.HasPrefix(req.Messages[0].Content, "You are compacting")
}

func (m summaryRouter) Chat(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
	if isSummaryRequest(req) {
		return m.summaries.Chat(ctx, req)
	}
	return m.agent.Chat(ctx, req)
}

func (m summaryRouter) Capabilities(ctx context.Context) (llm.Capabilities, error) {
	return m.agent.Capabilities(ctx)
}

func scripted(t *testing.T, script string) *llmtest.ScriptedModel {
	t.Helper()
	s, err := llmtest.ParseScript(strings.NewReader(script))
	require.NoError(t, err)
	return llmtest.NewScripted(s)
}

// TestLongSessionCompactsTwice runs a session whose reads overflow a
// small context window twice: each time the older turns are summarised
// by the model, the task and the latest turn stay verbatim, and the
// agent still completes the task.
func TestLongSessionCompactsTwice(t *testing.T) {
	// The window is large enough for the full prompt's compact form and
	// small enough that ten file reads overflow it twice.
	const parts = 10
	files := map[string]string{}
	var turns []string
	for i := range parts {
		name := fmt.Sprintf("part%d.txt", i)
		files[name] = strings.Repeat(fmt.Sprintf("line %d of part %d with some words in it\n", i, i), 45) // ~1.9 KB
		turns = append(turns, fmt.Sprintf(`{"content":"Reading part %d.","tool_calls":[{"name":"read_file","arguments":{"path":%q}}]}`, i, name))
	}
	turns = append(turns, `{"tool_calls":[{"name":"write_file","arguments":{"path":"total.txt","content":"10 parts\n"}}]}`,
		`{"content":"Wrote total.txt: 10 parts. [TASK_COMPLETE]"}`)
	e := newEnv(t, strings.Join(turns, "\n"), files)
	summaries := scripted(t, `{"content":"Summary one: read part0 and part1; each has 45 lines."}
{"content":"Summary two: read part0 to part3; each has 45 lines. Next: read the rest, then write total.txt."}
{"content":"Summary three (unused)."}`)
	cfg := e.config()
	cfg.Model = summaryRouter{agent: e.model, summaries: summaries}
	cfg.Compaction = CompactionConfig{ContextLength: 2600}
	task := "Count the parts in part0.txt to part9.txt and write the total to total.txt."

	res, err := e.run(cfg, task)
	require.NoError(t, err)
	require.Equal(t, event.StopCompleted, res.StopReason)
	require.Equal(t, "10 parts\n", e.read("total.txt"))
	require.Zero(t, e.model.Remaining())

	compactions := eventsOf[event.ContextCompacted](e.rec)
	require.Len(t, compactions, 2, "the session overflows twice")
	require.Equal(t, 1, summaries.Remaining())
	for _, c := range compactions {
		require.Equal(t, "auto", c.Reason)
		require.Greater(t, c.TokensBefore, c.TokensAfter)
		require.GreaterOrEqual(t, float64(c.TokensBefore), 0.8*2600)
		require.False(t, c.Fallback)
	}
	require.Equal(t, "Summary one: read part0 and part1; each has 45 lines.", compactions[0].Summary)
	b, err := event.Marshal(compactions[0])
	require.NoError(t, err)
	back, err := event.Unmarshal(b)
	require.NoError(t, err)
	require.Equal(t, compactions[0], back)

	// The second summary request saw the first summary: nothing is lost
	// across compactions.
	sreqs := summaries.Requests()
	require.Contains(t, sreqs[1].Messages[1].Content, "Summary one")
	require.Empty(t, sreqs[0].Tools, "a summary request offers no tools")

	// Every agent request keeps the task verbatim and fits the window.
	sawSummary := false
	for i, req := range e.model.Requests() {
		var found bool
		for _, m := range req.Messages {
			found = found || (m.Role == llm.RoleUser && m.Content == task)
			sawSummary = sawSummary || strings.HasPrefix(m.Content, summaryPrefix)
		}
		require.True(t, found, "request %d lost the task", i)
		require.LessOrEqual(t, llm.EstimateTokens(req.Messages), 2600, "request %d overflows", i)
		// Native tool results always follow the call they answer.
		for j, m := range req.Messages {
			if m.Role == llm.RoleTool {
				require.True(t, j > 0 && (req.Messages[j-1].Role == llm.RoleAssistant || req.Messages[j-1].Role == llm.RoleTool), "request %d: orphan tool result at %d", i, j)
			}
		}
	}
	require.True(t, sawSummary)
	// The final history starts with the latest summary.
	require.True(t, strings.HasPrefix(res.History[0].Content, summaryPrefix+"Summary two"))
}

// TestCompactionFallbackDigest: when the model cannot summarise, a
// digest of the older turns replaces them and the event says so.
func TestCompactionFallbackDigest(t *testing.T) {
	c := &compactor{count: llm.EstimateTokens, keepTokens: 50, logger: quietLogger(),
		chat: func(context.Context, llm.Request) (llm.Response, error) {
			return llm.Response{}, errors.New("model offline")
		}}
	h := []llm.Message{
		{Role: llm.RoleUser, Content: "Fix the bug in parse.go"},
		{Role: llm.RoleAssistant, Content: "Looking.", ToolCalls: []llm.ToolCall{{Name: "read_file", Arguments: []byte(`{"path":"parse.go"}`)}}},
		{Role: llm.RoleTool, ToolName: "read_file", Content: strings.Repeat("x", 2000)},
		{Role: llm.RoleAssistant, Content: "Editing.", ToolCalls: []llm.ToolCall{{Name: "edit_file", Arguments: []byte(`{"path":"parse.go"}`)}}},
		{Role: llm.RoleTool, ToolName: "edit_file", Content: "Edited parse.go"},
	}
	out, _, err := c.compact(context.Background(), h, 0, "")
	require.NoError(t, err)
	require.True(t, out.Fallback)
	require.Contains(t, out.Summary, "[called read_file")
	require.Equal(t, h[0], out.History[1], "the task stays verbatim")
	require.Equal(t, h[3:], out.History[2:], "the pending turn stays whole")
	require.Equal(t, 2, out.Summarized)

	// Cancellation is not papered over with a digest.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err = c.compact(ctx, h, 0, "")
	require.ErrorIs(t, err, context.Canceled)
}

// TestHostCompact: the host compacts a finished conversation and reads
// the summary; the focus instructions reach the summary request.
func TestHostCompact(t *testing.T) {
	summaries := scripted(t, `{"content":"The user asked about parse.go; it was read."}`)
	main := scripted(t, "")
	x, err := New(Config{Model: main, Logger: quietLogger(), Compaction: CompactionConfig{ContextLength: 4000, Model: summaries, ModelName: "small"}})
	require.NoError(t, err)
	history := []llm.Message{
		{Role: llm.RoleSystem, Content: "ignored"},
		{Role: llm.RoleUser, Content: "What does parse.go do?"},
		{Role: llm.RoleAssistant, Content: "", ToolCalls: []llm.ToolCall{{Name: "read_file", Arguments: []byte(`{"path":"parse.go"}`)}}},
		{Role: llm.RoleTool, ToolName: "read_file", Content: strings.Repeat("code\n", 4000)},
		{Role: llm.RoleAssistant, Content: "It parses."},
		{Role: llm.RoleUser, Content: "Now make it faster."},
		{Role: llm.RoleAssistant, Content: "On it."},
	}
	c, err := x.Compact(context.Background(), history, CompactOptions{Task: -1, Instructions: "keep the performance numbers"})
	require.NoError(t, err)
	require.Equal(t, "The user asked about parse.go; it was read.", c.Summary)
	require.Equal(t, []llm.Message{history[4], history[5], history[6]}, c.History[1:], "the recent turns (with the latest task) stay verbatim")
	require.Equal(t, 3, c.Summarized, "the first question, the read and its large result")
	require.Less(t, c.TokensAfter, c.TokensBefore)
	require.Contains(t, summaries.Requests()[0].Messages[0].Content, "keep the performance numbers")
	require.Equal(t, "small", summaries.Requests()[0].Model, "summaries go to the compaction model")
	require.Empty(t, main.Requests())

	_, err = x.Compact(context.Background(), []llm.Message{{Role: llm.RoleUser, Content: "hi"}}, CompactOptions{Task: -1})
	require.ErrorIs(t, err, ErrNothingToCompact)
}

func TestTokenMeterPrefersReportedCounts(t *testing.T) {
	var m tokenMeter
	m.count = llm.EstimateTokens
	msgs := []llm.Message{{Content: "abcd"}, {Content: "efgh"}}
	m.observe(llm.Usage{PromptTokens: 100}, 1)
	require.Equal(t, 100+llm.EstimateTokens(msgs[1:]), m.tokens(msgs), "reported count plus the estimate of what followed")
	m.reset()
	require.Equal(t, llm.EstimateTokens(msgs), m.tokens(msgs))
}

func TestCompactionConfigValidate(t *testing.T) {
	for _, c := range []CompactionConfig{{Threshold: 1.5}, {Threshold: -0.1}, {KeepRecent: 1}, {ContextLength: -1}} {
		_, err := New(Config{Model: scripted(t, ""), Compaction: c})
		require.ErrorIs(t, err, ErrConfig, "%+v", c)
	}
}

// TestRequestCompactionMidRun: the host asks for compaction while the
// agent works; the run compacts before its next model call, whatever the
// threshold, and says the host asked.
func TestRequestCompactionMidRun(t *testing.T) {
	e := newEnv(t, `{"tool_calls":[{"name":"read_file","arguments":{"path":"a.txt"}}]}
{"tool_calls":[{"name":"read_file","arguments":{"path":"b.txt"}}]}
{"content":"Both read. [TASK_COMPLETE]"}`, map[string]string{"a.txt": strings.Repeat("a\n", 500), "b.txt": "b\n"})
	summaries := scripted(t, `{"content":"Read a.txt: 500 lines of a."}`)
	cfg := e.config()
	cfg.Model = summaryRouter{agent: e.model, summaries: summaries}
	x, err := New(cfg)
	require.NoError(t, err)
	e.rec.hook = func(ev event.Event) {
		if a, ok := ev.(event.ToolAction); ok && a.CallID == "call_2_0" && a.Status == event.StatusRunning {
			x.RequestCompaction()
		}
	}
	res, err := x.Run(context.Background(), Input{Prompt: "read both"})
	require.NoError(t, err)
	require.Equal(t, event.StopCompleted, res.StopReason)
	cs := eventsOf[event.ContextCompacted](e.rec)
	require.Len(t, cs, 1)
	require.Equal(t, "host", cs[0].Reason)
	require.Equal(t, "Read a.txt: 500 lines of a.", cs[0].Summary)
	last := e.model.Requests()[2].Messages
	require.True(t, strings.HasPrefix(last[1].Content, summaryPrefix))
	require.Equal(t, "read both", last[2].Content)
	require.Equal(t, llm.RoleAssistant, last[3].Role, "the latest turn follows, whole")
}

func TestRequestCompactionWithNothingToCompact(t *testing.T) {
	e := newEnv(t, `{"content":"Hi. [TASK_COMPLETE]"}`, nil)
	x, err := New(e.config())
	require.NoError(t, err)
	x.RequestCompaction()
	_, err = x.Run(context.Background(), Input{Prompt: "hello"})
	require.NoError(t, err)
	n := eventsOf[event.Notice](e.rec)
	require.Len(t, n, 1)
	require.Equal(t, event.NoticeCompactionSkipped, n[0].Kind)
	require.Empty(t, eventsOf[event.ContextCompacted](e.rec))
}

// TestLongSessionCompactsTextMode: the same long session in text tool
// calling, where results travel as user messages; the task survives and
// the run completes.
func TestLongSessionCompactsTextMode(t *testing.T) {
	files := map[string]string{}
	turns := []string{`{"capabilities":{"tools":false}}`}
	for i := range 13 {
		name := fmt.Sprintf("part%d.txt", i)
		files[name] = strings.Repeat(fmt.Sprintf("line %d of part %d with some words in it\n", i, i), 45)
		turns = append(turns, fmt.Sprintf(`{"content":"Reading part %d.\n<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"%s\"}}</tool_call>"}`, i, name))
	}
	turns = append(turns, `{"content":"<tool_call>{\"name\": \"write_file\", \"arguments\": {\"path\": \"total.txt\", \"content\": \"6 parts\\n\"}}</tool_call>"}`,
		`{"content":"Wrote total.txt: 6 parts. [TASK_COMPLETE]"}`)
	e := newEnv(t, strings.Join(turns, "\n"), files)
	summaries := scripted(t, strings.Repeat(`{"content":"Summary: some parts were read; each has 45 lines."}`+"\n", 12))
	cfg := e.config()
	cfg.Model = summaryRouter{agent: e.model, summaries: summaries}
	// The tool list is in the system prompt: in its compact form at this
	// window, so thirteen reads overflow it at least twice.
	limit := 2600
	cfg.Compaction = CompactionConfig{ContextLength: limit}
	task := "Count the parts in part0.txt to part5.txt and write the total to total.txt."
	res, err := e.run(cfg, task)
	require.NoError(t, err)
	require.Equal(t, event.StopCompleted, res.StopReason)
	require.Equal(t, ToolCallingText, res.ToolCalling)
	require.Equal(t, "6 parts\n", e.read("total.txt"))
	require.GreaterOrEqual(t, len(eventsOf[event.ContextCompacted](e.rec)), 2)
	for i, req := range e.model.Requests() {
		found := false
		for _, m := range req.Messages {
			found = found || m.Content == task
		}
		require.True(t, found, "request %d lost the task", i)
		require.LessOrEqual(t, llm.EstimateTokens(req.Messages), limit, "request %d overflows", i)
		// A tool result never opens the kept turns: its call is kept with it.
		for j, m := range req.Messages {
			if strings.HasPrefix(m.Content, "<tool_result") {
				require.Equal(t, llm.RoleAssistant, req.Messages[j-1].Role, "request %d: result at %d without its call", i, j)
			}
		}
	}
}

// TestNoRecompactionOfASummary: a conversation that is only a summary
// and the latest turn is not summarised again.
func TestNoRecompactionOfASummary(t *testing.T) {
	c := &compactor{count: llm.EstimateTokens, keepTokens: 10, logger: quietLogger(),
		chat: func(context.Context, llm.Request) (llm.Response, error) {
			t.Fatal("no model call expected")
			return llm.Response{}, nil
		}}
	h := []llm.Message{
		{Role: llm.RoleUser, Content: summaryPrefix + "earlier work"},
		{Role: llm.RoleUser, Content: "the task"},
		{Role: llm.RoleAssistant, Content: "reading", ToolCalls: []llm.ToolCall{{Name: "read_file", Arguments: []byte(`{}`)}}},
		{Role: llm.RoleTool, Content: strings.Repeat("x", 5000)},
	}
	_, _, err := c.compact(context.Background(), h, 1, "")
	require.ErrorIs(t, err, ErrNothingToCompact)
}

func TestContextOverflowNotice(t *testing.T) {
	e := newEnv(t, `{"tool_calls":[{"name":"read_file","arguments":{"path":"big.txt"}}]}
{"tool_calls":[{"name":"read_file","arguments":{"path":"big.txt"}}]}
{"content":"Read twice. [TASK_COMPLETE]"}`, map[string]string{"big.txt": strings.Repeat("a long line of text\n", 800)})
	cfg := e.config()
	cfg.Model = summaryRouter{agent: e.model, summaries: scripted(t, `{"content":"Read big.txt once."}`)}
	cfg.Compaction = CompactionConfig{ContextLength: 1500}
	// A large result is cut to fit the window, but the task never is:
	// a task that alone fills most of the window is told about.
	res, err := e.run(cfg, "read big.txt twice\n"+strings.Repeat("context the user pasted\n", 300))
	require.NoError(t, err)
	require.Equal(t, event.StopCompleted, res.StopReason)
	kinds := e.rec.noticeKinds()
	require.Contains(t, kinds, event.NoticeContextOverflow)
}
