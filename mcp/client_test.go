package mcp

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
	"github.com/tetherdev/tether/tools/builtin"
)

// TestMain doubles as an MCP server: with TETHER_MCP_TEST_SERVE set to a
// directory, the test binary serves the built-in tools on it over stdio,
// so the client is tested against a real subprocess.
func TestMain(m *testing.M) {
	if dir := os.Getenv("TETHER_MCP_TEST_SERVE"); dir != "" {
		os.Exit(serveForTest(dir))
	}
	goleak.VerifyTestMain(m)
}

func serveForTest(dir string) int {
	if banner := os.Getenv("TETHER_MCP_TEST_BANNER"); banner != "" {
		// As many servers do: a greeting on stdout before the protocol.
		os.Stdout.WriteString(banner + "\n")
	}
	ws, err := safety.OpenWorkspace(dir)
	if err != nil {
		os.Stderr.WriteString(err.Error())
		return 2
	}
	var reg tools.Registry
	if _, err := builtin.Register(&reg, ws, builtin.Options{NoTerminal: true}); err != nil {
		os.Stderr.WriteString(err.Error())
		return 2
	}
	die := tools.New("die", "Exit the server process mid-call.", func(ctx context.Context, a struct{}) (tools.Result, error) {
		os.Exit(7)
		return tools.Result{}, nil
	}, tools.ReadOnly())
	if err := reg.Register(die); err != nil {
		os.Stderr.WriteString(err.Error())
		return 2
	}
	srv, err := NewServer(&reg, ServeOptions{Policy: &safety.Policy{Workspace: ws}})
	if err != nil {
		os.Stderr.WriteString(err.Error())
		return 2
	}
	if err := ServeStdio(context.Background(), srv); err != nil && !errors.Is(err, context.Canceled) {
		os.Stderr.WriteString(err.Error())
		return 1
	}
	return 0
}

// fakeServer is a third-party MCP server with the quirks real ones have.
func fakeServer() *sdk.Server {
	srv := sdk.NewServer(&sdk.Implementation{Name: "fake", Version: "1"}, nil)
	obj := map[string]any{"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string"}}, "required": []any{"q"}}
	text := func(s string) *sdk.CallToolResult {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
	}
	srv.AddTool(&sdk.Tool{Name: "lookup", Description: "Look something up.", InputSchema: obj,
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: closedWorld()}},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return text("found " + string(req.Params.Arguments)), nil
		})
	srv.AddTool(&sdk.Tool{Name: "delete.everything", Description: "Delete it all.", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return text("deleted"), nil
		})
	srv.AddTool(&sdk.Tool{Name: "delete_everything", Description: "Same name once sanitised.", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return text("deleted too"), nil
		})
	srv.AddTool(&sdk.Tool{Name: "picture", InputSchema: map[string]any{"type": "object"}, Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: closedWorld(), Title: "Take a picture"}},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{
				&sdk.TextContent{Text: "here:"},
				&sdk.ImageContent{MIMEType: "image/png", Data: []byte("12345")},
				&sdk.ResourceLink{URI: "file:///x", Name: "x"},
			}}, nil
		})
	srv.AddTool(&sdk.Tool{Name: "fail", InputSchema: map[string]any{"type": "object"}, Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: closedWorld()}},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "quota exceeded"}}}, nil
		})
	srv.AddTool(&sdk.Tool{Name: "structured", InputSchema: map[string]any{"type": "object"}, Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: closedWorld()}},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{}, StructuredContent: map[string]any{"n": 3}}, nil
		})
	srv.AddTool(&sdk.Tool{Name: "big", InputSchema: map[string]any{"type": "object"}, Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: closedWorld()}},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return text(strings.Repeat("line of output\n", 10000)), nil
		})
	return srv
}

func TestClientDecisions(t *testing.T) {
	tests := []struct {
		name  string
		rules Rules
		want  map[string]safety.Decision
	}{
		{"annotations decide", Rules{}, map[string]safety.Decision{"lookup": safety.Allow, "delete.everything": safety.Confirm, "picture": safety.Allow}},
		{"annotations ignored", Rules{IgnoreAnnotations: true}, map[string]safety.Decision{"lookup": safety.Confirm, "picture": safety.Confirm}},
		{"allow rule", Rules{Allow: []string{"delete*"}}, map[string]safety.Decision{"delete.everything": safety.Allow, "delete_everything": safety.Allow}},
		{"deny beats allow and annotations", Rules{Allow: []string{"*"}, Deny: []string{"fake/look*"}}, map[string]safety.Decision{"lookup": safety.Deny, "fail": safety.Allow}},
		{"server-qualified rule for another server", Rules{Allow: []string{"other/*"}}, map[string]safety.Decision{"delete.everything": safety.Confirm}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := connectInProcess(t, fakeServer(), ServerConfig{Name: "fake", Rules: tc.rules})
			ts, err := c.Tools(context.Background())
			require.NoError(t, err)
			got := map[string]safety.Decision{}
			for _, tl := range ts {
				got[tl.RemoteName()], _ = tl.Decision()
				assert.Equal(t, got[tl.RemoteName()] == safety.Allow && tl.Annotations() != nil && tl.Annotations().ReadOnlyHint, tl.Describe().ReadOnly, tl.RemoteName())
			}
			for name, want := range tc.want {
				assert.Equal(t, want, got[name], name)
			}
		})
	}
}

func TestClientCalls(t *testing.T) {
	var asked []ConfirmRequest
	confirm := ConfirmFunc(func(ctx context.Context, r ConfirmRequest) error {
		asked = append(asked, r)
		if strings.Contains(string(r.Call.Arguments), "no") {
			return errors.New("user said no")
		}
		return nil
	})
	c := connectInProcess(t, fakeServer(), ServerConfig{Name: "fake", Confirm: confirm, MaxOutput: 1000})
	var reg tools.Registry
	names, err := c.Register(context.Background(), &reg)
	require.NoError(t, err)
	assert.Contains(t, names, "fake__lookup")
	for _, n := range names {
		assert.LessOrEqual(t, len(n), 64)
	}

	res := call(t, &reg, "fake__lookup", `{"q":"cats"}`)
	assert.Equal(t, `found {"q":"cats"}`, res.Text)
	// The registry validates against the server's schema before calling.
	res = call(t, &reg, "fake__lookup", `{}`)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text, `missing required "q"`)
	// A model that drops the namespace still reaches a unique tool.
	assert.Equal(t, `found {"q":"dogs"}`, call(t, &reg, "lookup", `{"q":"dogs"}`).Text)

	// Sanitised names that collide are told apart by a hash.
	var del []string
	for _, n := range names {
		if strings.HasPrefix(n, "fake__delete_everything_") {
			del = append(del, n)
		}
	}
	require.Len(t, del, 2, names)
	asked = nil
	outs := []string{call(t, &reg, del[0], `{}`).Text, call(t, &reg, del[1], `{}`).Text}
	assert.ElementsMatch(t, []string{"deleted", "deleted too"}, outs)
	require.Len(t, asked, 2, "confirm-level tools ask first")
	assert.Equal(t, "fake", asked[0].Server)
	assert.Equal(t, safety.Confirm, asked[0].Decision)

	res = call(t, &reg, del[0], `{"why":"no"}`)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text, "user said no")

	// A host that already asked marks the context; no second question.
	asked = nil
	r := reg.Execute(WithApproved(context.Background()), tools.Call{Name: del[0], Arguments: []byte(`{"why":"no"}`)})
	assert.False(t, r.IsError, r.Text)
	assert.Empty(t, asked)

	assert.Equal(t, "here:\n[image: image/png, 5 bytes]\n[resource link: file:///x (x); read it with fake__mcp_read_resource]", call(t, &reg, "fake__picture", `{}`).Text)
	res = call(t, &reg, "fake__fail", `{}`)
	assert.True(t, res.IsError)
	assert.Equal(t, "quota exceeded", res.Text)
	assert.JSONEq(t, `{"n":3}`, call(t, &reg, "fake__structured", `{}`).Text)
	res = call(t, &reg, "fake__big", `{}`)
	assert.True(t, res.Meta.Truncated)
	assert.Less(t, len(res.Text), 1100)
	assert.Contains(t, res.Text, "more lines")

	// Registering again replaces the namespace instead of failing.
	again, err := c.Register(context.Background(), &reg)
	require.NoError(t, err)
	assert.Equal(t, names, again)
}

func TestClientDecider(t *testing.T) {
	c := connectInProcess(t, fakeServer(), ServerConfig{Name: "fake"})
	var reg tools.Registry
	_, err := c.Register(context.Background(), &reg)
	require.NoError(t, err)
	tl, _, err := reg.Lookup("fake__lookup")
	require.NoError(t, err)
	d, ok := tl.(Decider)
	require.True(t, ok, "the registry must hand back the *Tool so hosts can read its decision")
	dec, reasons := d.Decision()
	assert.Equal(t, safety.Allow, dec)
	assert.Contains(t, reasons[0], "read-only")

	dec, _, ok = DecisionOf(&reg, "lookup") // the bare name a model may send
	assert.True(t, ok)
	assert.Equal(t, safety.Allow, dec)
	_, _, ok = DecisionOf(&reg, "nope")
	assert.False(t, ok)

	// Without a confirmer a confirm-level call is refused, never run.
	var del string
	for _, n := range reg.Names() {
		if strings.HasPrefix(n, "fake__delete_everything_") {
			del = n
		}
	}
	res := call(t, &reg, del, `{}`)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text, "denied by no approver")
	assert.NotContains(t, res.Text, "deleted")
}

func TestConnectErrors(t *testing.T) {
	ctx := context.Background()
	for _, cfg := range []ServerConfig{
		{Name: "", Command: "x"},
		{Name: "a__b", Command: "x"},
		{Name: "ok"},
		{Name: "ok", Command: "x", URL: "http://x"},
		{Name: "ok", Command: "x", Rules: Rules{Allow: []string{"["}}},
	} {
		_, err := Connect(ctx, cfg)
		assert.ErrorIs(t, err, ErrConfig, "%+v", cfg)
	}
	// A command that is not an MCP server: the error carries its stderr.
	_, err := Connect(ctx, ServerConfig{Name: "sh", Command: "sh", Args: []string{"-c", "echo boom >&2; exit 3"}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "boom")
}

// TestSubprocess runs the test binary as a stdio MCP server.
func TestSubprocess(t *testing.T) {
	ws := workspace(t, map[string]string{"hello.txt": "hello from a subprocess\n", ".env": "K=V\n"})
	ctx := context.Background()
	// The race-instrumented test binary takes about a second to exit.
	c, err := Connect(ctx, ServerConfig{Name: "tether", Command: os.Args[0], Env: []string{"TETHER_MCP_TEST_SERVE=" + ws.Root()},
		Rules: Rules{Allow: []string{"*"}}, TerminateGrace: 10 * time.Second})
	require.NoError(t, err)
	defer c.Close()
	var reg tools.Registry
	names, err := c.Register(ctx, &reg)
	require.NoError(t, err)
	assert.Contains(t, names, "tether__read_file")
	assert.NotContains(t, names, "tether__run_terminal_command")
	res := call(t, &reg, "tether__read_file", `{"path":"hello.txt"}`)
	assert.Contains(t, res.Text, "hello from a subprocess")
	res = call(t, &reg, "tether__read_file", `{"path":".env"}`)
	assert.True(t, res.IsError, "the server's own policy still guards secrets: %s", res.Text)
	require.NoError(t, c.Close())
}

// TestStreamableHTTP serves the built-in tools over HTTP: streamable,
// and legacy HTTP+SSE at /sse for older clients, which a client given
// that URL reaches by falling back.
func TestStreamableHTTP(t *testing.T) {
	ws := workspace(t, map[string]string{"a.txt": "over http\n"})
	h := Handler(builtinServer(t, ws, ServeOptions{}))
	var mu sync.Mutex
	var gotAuth []string
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		gotAuth = append(gotAuth, r.Header.Get("Authorization"))
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	defer hs.Close()
	for _, tc := range []struct {
		name, path string
		legacy     bool
	}{
		{"streamable", "/mcp", false},
		{"legacy SSE", "/sse", true},
		{"fallback to legacy SSE", "/sse", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			c, err := Connect(ctx, ServerConfig{Name: "web", URL: hs.URL + tc.path, LegacySSE: tc.legacy,
				Header: http.Header{"Authorization": {"Bearer t0ken"}}, Rules: Rules{Allow: []string{"read_file"}}})
			require.NoError(t, err)
			defer c.Close()
			var reg tools.Registry
			_, err = c.Register(ctx, &reg)
			require.NoError(t, err)
			assert.Equal(t, "1\tover http", firstLine(call(t, &reg, "web__read_file", `{"path":"a.txt"}`).Text))
		})
	}
	mu.Lock()
	defer mu.Unlock()
	require.NotEmpty(t, gotAuth)
	for _, a := range gotAuth {
		assert.Equal(t, "Bearer t0ken", a, "every request carries the header")
	}
}

func firstLine(s string) string {
	for l := range strings.Lines(s) {
		if strings.Contains(l, "over http") {
			return strings.TrimSpace(l)
		}
	}
	return s
}

// TestToolsChanged: a server that adds a tool tells the client, which can
// re-register its namespace.
func TestToolsChanged(t *testing.T) {
	srv := fakeServer()
	changed := make(chan *Client, 1)
	c := connectInProcess(t, srv, ServerConfig{Name: "fake", OnToolsChanged: func(c *Client) {
		select {
		case changed <- c:
		default:
		}
	}})
	var reg tools.Registry
	_, err := c.Register(context.Background(), &reg)
	require.NoError(t, err)
	assert.NotContains(t, reg.Names(), "fake__late")

	srv.AddTool(&sdk.Tool{Name: "late", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{}, nil
		})
	select {
	case got := <-changed:
		_, err := got.Register(context.Background(), &reg)
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("no tools/list_changed notification")
	}
	assert.Contains(t, reg.Names(), "fake__late")
	assert.Contains(t, reg.Names(), "fake__lookup")
}

// TestDeniedToolsNotOffered: a deny rule keeps a tool out of the registry.
func TestDeniedToolsNotOffered(t *testing.T) {
	c := connectInProcess(t, fakeServer(), ServerConfig{Name: "fake", Rules: Rules{Deny: []string{"delete*"}}})
	var reg tools.Registry
	names, err := c.Register(context.Background(), &reg)
	require.NoError(t, err)
	assert.Contains(t, names, "fake__lookup")
	for _, n := range names {
		assert.NotContains(t, n, "delete")
	}
	ts, err := c.Tools(context.Background())
	require.NoError(t, err)
	var denied int
	for _, tl := range ts {
		if d, _ := tl.Decision(); d == safety.Deny {
			denied++
			_, err := tl.Execute(context.Background(), tools.Call{Name: tl.Describe().Name})
			assert.ErrorIs(t, err, ErrDenied, "enforced even when called directly")
		}
	}
	assert.Equal(t, 2, denied)
}

// TestSubprocessDies: a server that exits in the middle of a call gives
// the model an error, not a hang, and the client still closes.
func TestSubprocessDies(t *testing.T) {
	ws := workspace(t, map[string]string{"a.txt": "x\n"})
	ctx := context.Background()
	// die is a tool Tether does not know, so its server calls it
	// open-world: a rule lets it run.
	c, err := Connect(ctx, ServerConfig{Name: "tether", Command: os.Args[0], Env: []string{"TETHER_MCP_TEST_SERVE=" + ws.Root()},
		Rules: Rules{Allow: []string{"die"}}})
	require.NoError(t, err)
	var reg tools.Registry
	_, err = c.Register(ctx, &reg)
	require.NoError(t, err)
	done := make(chan tools.Result, 1)
	go func() { done <- call(t, &reg, "tether__die", `{}`) }()
	select {
	case res := <-done:
		assert.True(t, res.IsError)
		assert.Contains(t, res.Text, `MCP server "tether" failed to run die`)
	case <-time.After(30 * time.Second):
		t.Fatal("call hung after the server died")
	}
	res := call(t, &reg, "tether__read_file", `{"path":"a.txt"}`)
	assert.True(t, res.IsError)
	c.Close()
}
