package mcp

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/tools"
)

// TestProgressTravels: a remote tool's progress reaches the caller's
// Reporter as if the tool ran locally.
func TestProgressTravels(t *testing.T) {
	var big strings.Builder
	for range 250 {
		big.WriteString("line\n")
	}
	ws := workspace(t, map[string]string{"big.txt": big.String()})
	c := connectInProcess(t, builtinServer(t, ws, ServeOptions{}), ServerConfig{Rules: Rules{Allow: []string{"*"}}})
	var reg tools.Registry
	_, err := c.Register(context.Background(), &reg)
	require.NoError(t, err)

	var mu sync.Mutex
	var got []tools.Progress
	ctx := tools.WithReporter(context.Background(), func(p tools.Progress) {
		mu.Lock()
		got = append(got, p)
		mu.Unlock()
	})
	res := reg.Execute(ctx, tools.Call{Name: "srv__read_file", Arguments: []byte(`{"path":"big.txt","end_line":250}`)})
	require.False(t, res.IsError, res.Text)
	// Every report is delivered before the call returns, never after.
	var chunks []tools.Progress
	for _, p := range snapshot(&mu, &got) {
		if p.Path == "big.txt" {
			chunks = append(chunks, p)
		}
	}
	require.Len(t, chunks, 3, "one report per 100-line chunk")
	assert.Equal(t, 201, chunks[2].StartLine)
	res = reg.Execute(ctx, tools.Call{Name: "srv__run_terminal_command", Arguments: []byte(`{"command":"echo first; sleep 0.5; echo second"}`)})
	require.False(t, res.IsError, res.Text)

	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		var chunks int
		var output string
		for _, p := range got {
			if p.Path == "big.txt" {
				chunks++
			}
			output += p.Output
		}
		return chunks >= 2 && strings.Contains(output, "first")
	}, 5e9, 1e7, "progress received: %+v", snapshot(&mu, &got))
	mu.Lock()
	defer mu.Unlock()
	for _, p := range got {
		assert.True(t, strings.HasPrefix(p.Tool, "srv__"), "progress names the local tool: %+v", p)
	}
}

func snapshot(mu *sync.Mutex, got *[]tools.Progress) []tools.Progress {
	mu.Lock()
	defer mu.Unlock()
	return append([]tools.Progress(nil), *got...)
}
