package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/tools"
)

// TestGoldenToolProgress pins the live progress of a chunked read, a
// search and a command, in native and in text tool calling: the same
// tool_action and tool_progress events whichever way the calls travel.
func TestGoldenToolProgress(t *testing.T) {
	var long strings.Builder
	for i := 1; i <= 250; i++ {
		fmt.Fprintf(&long, "line %d\n", i)
	}
	files := map[string]string{"big.txt": long.String(), "a.go": "// TODO one\n// TODO two\n", "b/c.go": "// TODO three\n"}
	calls := []string{
		`{"name":"read_file","arguments":{"path":"big.txt"}}`,
		`{"name":"search_workspace","arguments":{"query":"TODO"}}`,
		`{"name":"run_terminal_command","arguments":{"command":"printf 'one\\ntwo\\nthree\\n'"}}`,
	}
	scripts := map[ToolCalling]string{
		ToolCallingNative: `{"capabilities":{"tools":true}}
{"tool_calls":[` + strings.Join(calls, ",") + `]}
{"content":"Done. [TASK_COMPLETE]"}
`,
		ToolCallingText: `{"capabilities":{"tools":false}}
{"content":` + quoteJSON("Looking.\n<tool_call>"+strings.Join(calls, "</tool_call>\n<tool_call>")+"</tool_call>") + `}
{"content":"Done. [TASK_COMPLETE]"}
`,
	}
	for _, mode := range []ToolCalling{ToolCallingNative, ToolCallingText} {
		t.Run(string(mode), func(t *testing.T) {
			e := newEnv(t, scripts[mode], files)
			cfg := e.config()
			cfg.ToolCalling = mode
			cfg.Parallel = 1 // progress of concurrent reads may interleave; pin one order
			cfg.Approver = &approver{answer: allowAll}
			x, err := New(cfg)
			require.NoError(t, err)
			_, err = x.Run(context.Background(), Input{Prompt: "survey"})
			require.NoError(t, err)

			var got bytes.Buffer
			for _, ev := range e.rec.all() {
				switch ev.(type) {
				case event.ToolAction, event.ToolProgress:
				default:
					continue
				}
				if a, ok := ev.(event.ToolAction); ok {
					a.Output = "" // the result text is pinned elsewhere
					ev = a
				}
				b, err := event.Marshal(ev)
				require.NoError(t, err)
				got.Write(b)
				got.WriteByte('\n')
			}
			path := filepath.Join("testdata", "golden_progress.jsonl")
			if *update && mode == ToolCallingNative {
				require.NoError(t, os.WriteFile(path, got.Bytes(), 0o644))
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "run with -update to create it")
			require.Equal(t, string(want), got.String())
		})
	}
}

func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestProgressRelayBounds feeds a chatty command's output through the
// relay: events are throttled, lines per event and events per call are
// bounded, and nothing is lost from the count.
func TestProgressRelayBounds(t *testing.T) {
	var events []event.ToolProgress
	clock := time.Unix(0, 0)
	p := &progressRelay{callID: "c1", emit: func(e event.Event) { events = append(events, e.(event.ToolProgress)) },
		now: func() time.Time { clock = clock.Add(30 * time.Millisecond); return clock }}
	total := 0
	for i := range 2000 {
		p.report(tools.Progress{Tool: "run_terminal_command", Output: fmt.Sprintf("l%d\nm%d", i, i)})
		total += 2
	}
	p.report(tools.Progress{Tool: "read_file", Path: "x", StartLine: 1, EndLine: 100})
	p.finish()

	shown, dropped := 0, 0
	for i, e := range events {
		if e.StartLine > 0 {
			require.Equal(t, len(events)-1, i, "a structural event comes after the output before it")
			require.Equal(t, "Reading x lines 1–100", e.Title)
			continue
		}
		lines := 0
		if e.Output != "" {
			lines = strings.Count(e.Output, "\n") + 1
		}
		require.LessOrEqual(t, lines, progressMaxLines)
		shown += lines
		dropped += e.Dropped
	}
	require.Equal(t, total, shown+dropped, "every line is shown or counted")
	require.LessOrEqual(t, len(events), progressMaxEvents+2)
	require.Greater(t, dropped, 0)
}

func TestProgressSearchTitle(t *testing.T) {
	e := structural("c", tools.Progress{Tool: "search_workspace", Files: []tools.FileCount{{Path: "a.go", Matches: 2}, {Path: "b.go", Matches: 1}}, Dropped: 4})
	require.Equal(t, "Found 3 matches in 2 files (and 4 more files)", e.Title)
}

// TestProgressCountedSteps: a tool that counts its own steps (read_pdf's
// pages, an MCP tool's progress) reaches the UI with its words as the
// title and its count for a progress bar.
func TestProgressCountedSteps(t *testing.T) {
	var events []event.ToolProgress
	p := &progressRelay{callID: "c1", emit: func(e event.Event) { events = append(events, e.(event.ToolProgress)) }, now: time.Now}
	p.report(tools.Progress{Tool: "read_pdf", Path: "a.pdf", Done: 2, Total: 3, Message: "Reading a.pdf page 2 of 3"})
	p.report(tools.Progress{Tool: "srv__count", Done: 5})
	p.finish()
	require.Equal(t, []event.ToolProgress{
		{CallID: "c1", Tool: "read_pdf", Path: "a.pdf", Title: "Reading a.pdf page 2 of 3", Done: 2, Total: 3},
		{CallID: "c1", Tool: "srv__count", Done: 5},
	}, events)
}
