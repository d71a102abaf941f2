package agent

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tetherdev/tether/agent/event"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// ids are replaced in golden files: they are random by design. The
// scripted model's prompt-token estimate follows the system prompt's
// wording, which is the prompt builder's business, not this test's.
var (
	ids          = regexp.MustCompile(`\b(run|cp|req)_[0-9a-f]{8,}\b`)
	promptTokens = regexp.MustCompile(`"prompt_tokens":\d+`)
)

// TestGoldenEventSequence pins the whole event sequence of one scripted
// run: thinking and its collapse, throttled text, a read, a command that
// needs approval, an edit with its checkpoint, files changed, the final
// message and the end. Run with -update after an intended change and
// review the diff.
func TestGoldenEventSequence(t *testing.T) {
	e := newEnv(t, `{"capabilities":{"tools":true,"thinking":true}}
{"thinking":"Let me look at main.go before changing anything.","tool_calls":[{"name":"read_file","arguments":{"path":"main.go"}}]}
{"thinking":"There is a typo; check the tree, then fix it.","content":"The greeting says **Helo**; fixing it.","tool_calls":[{"name":"run_terminal_command","arguments":{"command":"ls"}},{"name":"edit_file","arguments":{"path":"main.go","old_text":"Helo","new_text":"Hello"}}]}
{"content":"Fixed the typo: main.go now prints Hello. [TASK_COMPLETE]"}
`, map[string]string{"main.go": mainGo})
	cfg := e.config()
	cfg.Approver = &approver{answer: allowAll}
	x, err := New(cfg)
	require.NoError(t, err)
	_, err = x.Run(context.Background(), Input{Prompt: "Fix the typo in main.go"})
	require.NoError(t, err)

	var got bytes.Buffer
	for _, ev := range e.rec.all() {
		b, err := event.Marshal(ev)
		require.NoError(t, err)
		b = ids.ReplaceAll(b, []byte("${1}_ID"))
		got.Write(promptTokens.ReplaceAll(b, []byte(`"prompt_tokens":"N"`)))
		got.WriteByte('\n')
	}
	path := filepath.Join("testdata", "golden_run.jsonl")
	if *update {
		require.NoError(t, os.WriteFile(path, got.Bytes(), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run with -update to create it")
	require.Equal(t, string(want), got.String())

	// Every line decodes back to the same event.
	for _, ev := range e.rec.all() {
		b, _ := event.Marshal(ev)
		back, err := event.Unmarshal(b)
		require.NoError(t, err)
		require.IsType(t, ev, back)
		b2, _ := event.Marshal(back)
		require.JSONEq(t, string(b), string(b2))
	}
}
