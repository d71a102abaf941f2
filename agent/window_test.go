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
	"github.com/tetherdev/tether/llm/ollama"
)

// windowModel is a scripted model that reports a context window, as a
// backend does, so that the run takes its window from the model (the
// default path: CompactionConfig.ContextLength is zero).
type windowModel struct {
	*llmtest.ScriptedModel
	window int
}

func (m windowModel) Capabilities(ctx context.Context) (llm.Capabilities, error) {
	c, err := m.ScriptedModel.Capabilities(ctx)
	c.ContextLength, c.ContextSource = m.window, llm.ContextFromDefault
	return c, err
}

func (m windowModel) Chat(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
	return m.ScriptedModel.Chat(ctx, req)
}

// readSession is a session of n file reads and a final answer, and the
// files it reads (about 1.9 KB each).
func readSession(n int, text bool) (string, map[string]string) {
	files := map[string]string{}
	var turns []string
	if text {
		turns = append(turns, `{"capabilities":{"tools":false}}`)
	}
	for i := range n {
		name := fmt.Sprintf("part%d.txt", i)
		files[name] = strings.Repeat(fmt.Sprintf("line %d of part %d with some words in it\n", i, i), 45)
		if text {
			turns = append(turns, fmt.Sprintf(`{"content":"Reading part %d.\n<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"%s\"}}</tool_call>"}`, i, name))
		} else {
			turns = append(turns, fmt.Sprintf(`{"content":"Reading part %d.","tool_calls":[{"name":"read_file","arguments":{"path":%q}}]}`, i, name))
		}
	}
	turns = append(turns, fmt.Sprintf(`{"content":"All %d parts have 45 lines. [TASK_COMPLETE]"}`, n))
	return strings.Join(turns, "\n"), files
}

const readTask = "Tell me how many lines each of the part files has."

// TestCompactionAtWindows: with no ContextLength configured, the window
// the model reports drives compaction, at 4k, 8k and 32k: the session
// completes and no request overflows its window.
func TestCompactionAtWindows(t *testing.T) {
	for _, tt := range []struct{ window, reads, minCompactions int }{{4096, 20, 1}, {8192, 20, 1}, {32768, 24, 0}} {
		t.Run(fmt.Sprint(tt.window), func(t *testing.T) {
			script, files := readSession(tt.reads, false)
			e := newEnv(t, script, files)
			cfg := e.config()
			cfg.Model = windowModel{ScriptedModel: e.model, window: tt.window}
			cfg.Compaction.Model = scripted(t, strings.Repeat(`{"content":"Summary: the parts read so far have 45 lines each."}`+"\n", 10))
			res, err := e.run(cfg, readTask)
			require.NoError(t, err)
			require.Equal(t, event.StopCompleted, res.StopReason)
			require.GreaterOrEqual(t, len(eventsOf[event.ContextCompacted](e.rec)), tt.minCompactions)
			w := eventsOf[event.ContextWindow](e.rec)
			require.Len(t, w, 1)
			require.Equal(t, tt.window, w[0].ContextLength)
			require.Equal(t, "default", w[0].Source)
			for i, req := range e.model.Requests() {
				size := llm.EstimateTokens(req.Messages) + llm.EstimateToolSpecTokens(req.Tools)
				require.LessOrEqual(t, size, tt.window, "request %d overflows the window", i)
			}
		})
	}
}

// TestPromptFitsTheWindow: the full prompt in a large window, the compact
// one in a small window (shorter, same call format, tools one line
// each), and a clear error when even that takes more than half.
func TestPromptFitsTheWindow(t *testing.T) {
	for _, text := range []bool{false, true} {
		script := `{"content":"Done. [TASK_COMPLETE]"}`
		if text {
			script = `{"capabilities":{"tools":false}}` + "\n" + script
		}
		var sizes []int
		for _, window := range []int{32768, 4096} {
			e := newEnv(t, script, nil)
			cfg := e.config()
			cfg.Model = windowModel{ScriptedModel: e.model, window: window}
			_, err := e.run(cfg, "hello")
			require.NoError(t, err)
			w := eventsOf[event.ContextWindow](e.rec)
			require.Len(t, w, 1)
			require.Equal(t, window == 4096, w[0].Compact, "window %d", window)
			req := e.model.Requests()[0]
			sys := req.Messages[0].Content
			sizes = append(sizes, llm.EstimateTokens(req.Messages[:1])+llm.EstimateToolSpecTokens(req.Tools))
			require.Equal(t, w[0].PromptTokens, sizes[len(sizes)-1])
			if text {
				require.Contains(t, sys, "<tool_call>")
				if window == 4096 {
					require.Contains(t, sys, "- read_file(path")
				}
			} else {
				require.NotEmpty(t, req.Tools)
			}
		}
		require.Less(t, float64(sizes[1]), 0.6*float64(sizes[0]), "the compact prompt is much shorter (text=%v): %v", text, sizes)

		e := newEnv(t, script, nil)
		cfg := e.config()
		cfg.Model = windowModel{ScriptedModel: e.model, window: 768}
		_, err := e.run(cfg, "hello")
		var small *ContextTooSmallError
		require.ErrorIs(t, err, ErrContextTooSmall)
		require.True(t, errors.As(err, &small))
		require.Equal(t, 768, small.Window)
		require.Greater(t, small.Need, 768)
		require.Contains(t, err.Error(), "num_ctx")
		require.Empty(t, e.model.Requests(), "nothing is sent to a model that cannot hold the prompt")
	}
}

// TestLargeResultsAreCut: one read of a big file cannot push the system
// prompt out of a small window: the result is cut, head and tail kept,
// with a note saying how to see the rest.
func TestLargeResultsAreCut(t *testing.T) {
	big := strings.Repeat("a long line of text in a big file\n", 400) // ~13.6 KB, 3400 tokens
	e := newEnv(t, `{"tool_calls":[{"name":"read_file","arguments":{"path":"big.txt"}}]}
{"content":"Read it. [TASK_COMPLETE]"}`, map[string]string{"big.txt": big})
	cfg := e.config()
	cfg.Model = windowModel{ScriptedModel: e.model, window: 4096}
	res, err := e.run(cfg, "read big.txt")
	require.NoError(t, err)
	require.Equal(t, event.StopCompleted, res.StopReason)
	reqs := e.model.Requests()
	result := reqs[1].Messages[len(reqs[1].Messages)-1]
	require.LessOrEqual(t, llm.EstimateTokens([]llm.Message{result}), int(resultShare*float64(cfg.Model.(windowModel).window)))
	require.Contains(t, result.Content, "cut to fit the model's 4096-token context window")
	require.Contains(t, result.Content, "bytes omitted")
	// What was sent is never rewritten: the first request is unchanged.
	require.Len(t, reqs[0].Messages, 2)
}

// TestSmallWindowEndToEnd: a 4k-window model behind the fake Ollama (its
// /api/show says 4096, so the backend asks for num_ctx 4096) gets its
// whole prompt, system prompt included, on every request of a
// 20-iteration session, in native and in text mode; the session compacts
// and completes. Nothing in the agent's config names the window.
func TestSmallWindowEndToEnd(t *testing.T) {
	for _, text := range []bool{false, true} {
		t.Run(map[bool]string{false: "native", true: "text"}[text], func(t *testing.T) {
			script, files := readSession(19, text)
			s, err := llmtest.ParseScript(strings.NewReader(script))
			require.NoError(t, err)
			srv := llmtest.NewFakeOllama(s)
			defer srv.Close()
			srv.ContextLength = 4096
			m, err := ollama.New(ollama.Config{Host: srv.URL, Model: "fake", HTTPClient: srv.Client()})
			require.NoError(t, err)

			e := newEnv(t, `{"content":"unused"}`, files)
			cfg := e.config()
			cfg.Model = m
			cfg.Compaction.Model = scripted(t, strings.Repeat(`{"content":"Summary: the parts read so far have 45 lines each."}`+"\n", 10))
			res, err := e.run(cfg, readTask)
			require.NoError(t, err)
			require.Equal(t, event.StopCompleted, res.StopReason)
			require.Equal(t, 20, res.Iterations)
			require.NotEmpty(t, eventsOf[event.ContextCompacted](e.rec), "the session compacts")

			prompts := srv.Prompts()
			require.Len(t, prompts, 20)
			for i, p := range prompts {
				require.Equal(t, 4096, p.NumCtx, "request %d", i)
				require.True(t, p.Whole(), "request %d: the model did not see the whole prompt: %+v", i, p)
				require.True(t, strings.HasPrefix(p.System, "You are a coding agent"), "request %d lost the head of its system prompt", i)
			}
			for i, r := range srv.Requests() {
				require.Contains(t, string(r), `"num_ctx":4096`, "request %d", i)
			}
		})
	}
}

// lowReporter reports a prompt of a few tokens whatever it was sent, as
// Ollama does when its cache served the prompt (ollama/ollama#2068: the
// count disappears or shrinks on repeated prefixes; #16428: before 0.30's
// fix the llama-server runner left cached tokens out).
type lowReporter struct{ windowModel }

func (m lowReporter) Chat(ctx context.Context, req llm.Request) iter.Seq2[llm.Chunk, error] {
	return func(yield func(llm.Chunk, error) bool) {
		for c, err := range m.ScriptedModel.Chat(ctx, req) {
			if c.Done {
				c.Usage.PromptTokens = 12
			}
			if !yield(c, err) {
				return
			}
		}
	}
}

// TestUndercountingServerStillCompacts: a server whose reported prompt
// size leaves out cached tokens does not keep the agent from compacting.
func TestUndercountingServerStillCompacts(t *testing.T) {
	script, files := readSession(20, false)
	e := newEnv(t, script, files)
	cfg := e.config()
	cfg.Model = lowReporter{windowModel{ScriptedModel: e.model, window: 4096}}
	cfg.Compaction.Model = scripted(t, strings.Repeat(`{"content":"Summary: the parts read so far have 45 lines each."}`+"\n", 10))
	res, err := e.run(cfg, readTask)
	require.NoError(t, err)
	require.Equal(t, event.StopCompleted, res.StopReason)
	require.NotEmpty(t, eventsOf[event.ContextCompacted](e.rec))
	for i, req := range e.model.Requests() {
		require.LessOrEqual(t, llm.EstimateTokens(req.Messages)+llm.EstimateToolSpecTokens(req.Tools), 4096, "request %d overflows", i)
	}
}
