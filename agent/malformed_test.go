package agent

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/llm/llmtest"
	"github.com/tetherdev/tether/llm/openai"
)

// TestMalformedNativeCallGoesBack: a native call whose arguments are cut
// short (a server that ends the JSON early) does not end the run: it
// goes back to the model as a failed call with the reason, the model
// corrects it, and the run completes.
func TestMalformedNativeCallGoesBack(t *testing.T) {
	srv := llmtest.NewFakeOpenAI(llmtest.Script{Turns: []llmtest.Turn{
		{ToolCalls: []llmtest.CallSpec{{Name: "read_file", Arguments: json.RawMessage(`{"path":"a.t`)}}},
		{ToolCalls: []llmtest.CallSpec{{Name: "read_file", Arguments: json.RawMessage(`{"path":"a.txt"}`)}}},
		{Content: "a.txt says hello. [TASK_COMPLETE]"},
	}})
	defer srv.Close()
	m, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1", Model: "fake", HTTPClient: srv.Client()})
	require.NoError(t, err)
	e := newEnv(t, `{"content":"unused"}`, map[string]string{"a.txt": "hello\n"})
	cfg := e.config()
	cfg.Model = m
	res, err := e.run(cfg, "What does a.txt say?")
	require.NoError(t, err)
	require.Equal(t, event.StopCompleted, res.StopReason)
	require.Contains(t, e.rec.noticeKinds(), event.NoticeParseError)

	reqs := srv.Requests()
	require.Len(t, reqs, 3)
	var second struct {
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
	}
	require.NoError(t, json.Unmarshal(reqs[1], &second))
	last := second.Messages[len(second.Messages)-1]
	require.Equal(t, "tool", last.Role)
	require.True(t, strings.Contains(last.Content, "JSON object") || strings.Contains(last.Content, "arguments"), "the model is told what was wrong: %q", last.Content)
}
