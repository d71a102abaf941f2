package agent

import (
	"context"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/mcp"
)

// deployServer connects an in-process MCP server with one tool, "deploy",
// that counts its calls, and registers it in e's registry under rules.
func deployServer(t *testing.T, e *env, rules mcp.Rules) *atomic.Int32 {
	t.Helper()
	var calls atomic.Int32
	srv := sdk.NewServer(&sdk.Implementation{Name: "ci", Version: "1"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "deploy", Description: "Deploy the build"},
		func(ctx context.Context, _ *sdk.CallToolRequest, in struct {
			Env string `json:"env"`
		}) (*sdk.CallToolResult, any, error) {
			calls.Add(1)
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "deployed to " + in.Env}}}, nil, nil
		})
	ctx, cancel := context.WithCancel(context.Background())
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	require.NoError(t, err)
	c, err := mcp.Connect(ctx, mcp.ServerConfig{Name: "ci", Transport: ct, Rules: rules, Logger: quietLogger()})
	require.NoError(t, err)
	t.Cleanup(func() { c.Close(); ss.Wait(); cancel() })
	_, err = c.Register(ctx, e.reg)
	require.NoError(t, err)
	return &calls
}

const deployScript = `{"capabilities":{"tools":true}}
{"tool_calls":[{"name":"ci__deploy","arguments":{"env":"staging"}}]}
{"content":"Finished. [TASK_COMPLETE]"}
`

// An MCP tool without an allow rule or a read-only annotation is asked
// about, and once the user approves it really runs on the server: the
// approval reaches the tool, which would otherwise refuse for lack of its
// own confirmer.
func TestMCPToolAskedThenRuns(t *testing.T) {
	e := newEnv(t, deployScript, nil)
	calls := deployServer(t, e, mcp.Rules{})
	ap := &approver{answer: allowAll}
	cfg := e.config()
	cfg.Approver = ap
	_, err := e.run(cfg, "Deploy to staging")
	require.NoError(t, err)
	require.Len(t, ap.asked, 1, "a confirm-level MCP tool is asked about")
	assert.Equal(t, "ci__deploy", ap.asked[0].ToolName)
	assert.EqualValues(t, 1, calls.Load(), "the approved call must reach the server")
	assert.Contains(t, lastResult(e.model.Requests()[1]), "deployed to staging")
}

// A host allow rule for the tool runs it without asking; a refusal keeps it
// from the server.
func TestMCPToolRules(t *testing.T) {
	t.Run("allowed", func(t *testing.T) {
		e := newEnv(t, deployScript, nil)
		calls := deployServer(t, e, mcp.Rules{Allow: []string{"deploy"}})
		ap := &approver{answer: denyAll}
		cfg := e.config()
		cfg.Approver = ap
		_, err := e.run(cfg, "Deploy to staging")
		require.NoError(t, err)
		assert.Empty(t, ap.asked, "an allowed MCP tool runs unasked")
		assert.EqualValues(t, 1, calls.Load())
	})
	t.Run("refused", func(t *testing.T) {
		e := newEnv(t, deployScript, nil)
		calls := deployServer(t, e, mcp.Rules{})
		cfg := e.config()
		cfg.Approver = &approver{answer: denyAll}
		_, err := e.run(cfg, "Deploy to staging")
		require.NoError(t, err)
		assert.EqualValues(t, 0, calls.Load(), "a refused call never reaches the server")
	})
}

// An MCP tool's arguments are prepared like any tool's: an alias reaches
// the server under the schema's own name, and a file named twice is
// refused before the server sees anything.
func TestMCPToolArgumentsPrepared(t *testing.T) {
	for _, tc := range []struct {
		name, args string
		want       string // the path the server got; "" when refused
	}{
		{"alias", `{"fileName":"notes.md"}`, "notes.md"},
		{"conflict", `{"file":"notes.md","fileName":".env"}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, `{"capabilities":{"tools":true}}
{"tool_calls":[{"name":"docs__upload","arguments":`+tc.args+`}]}
{"content":"Done. [TASK_COMPLETE]"}
`, nil)
			var got atomic.Value
			srv := sdk.NewServer(&sdk.Implementation{Name: "docs", Version: "1"}, nil)
			sdk.AddTool(srv, &sdk.Tool{Name: "upload", Description: "Upload a file"},
				func(ctx context.Context, _ *sdk.CallToolRequest, in struct {
					Path string `json:"path"`
				}) (*sdk.CallToolResult, any, error) {
					got.Store(in.Path)
					return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "uploaded"}}}, nil, nil
				})
			ctx, cancel := context.WithCancel(context.Background())
			st, ct := sdk.NewInMemoryTransports()
			ss, err := srv.Connect(ctx, st, nil)
			require.NoError(t, err)
			c, err := mcp.Connect(ctx, mcp.ServerConfig{Name: "docs", Transport: ct, Rules: mcp.Rules{Allow: []string{"upload"}}, Logger: quietLogger()})
			require.NoError(t, err)
			t.Cleanup(func() { c.Close(); ss.Wait(); cancel() })
			_, err = c.Register(ctx, e.reg)
			require.NoError(t, err)

			_, err = e.run(e.config(), "Upload the notes")
			require.NoError(t, err)
			acts := e.rec.actions()
			require.Len(t, acts, 1)
			if tc.want == "" {
				assert.Nil(t, got.Load(), "the server was called")
				assert.Contains(t, acts[0].Output, "given twice")
				return
			}
			assert.Equal(t, event.StatusSuccess, acts[0].Status, acts[0].Output)
			assert.Equal(t, tc.want, got.Load())
		})
	}
}
