package mcp

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
)

// TestServerPolicy serves the built-in tools and checks, call by call,
// that the safety policy decides before anything runs.
func TestServerPolicy(t *testing.T) {
	ws := workspace(t, map[string]string{"main.go": "package main\n", ".env": "TOKEN=secret\n"})
	var asked atomic.Int32
	confirmYes := ConfirmFunc(func(ctx context.Context, r ConfirmRequest) error {
		asked.Add(1)
		return nil
	})
	tests := []struct {
		name    string
		confirm Confirmer
		tool    string
		args    string
		wantErr bool
		want    string // substring of the result text
		asked   bool
		check   func(t *testing.T)
	}{
		{name: "read allowed", tool: "read_file", args: `{"path":"main.go"}`, want: "package main"},
		{name: "alias key normalised then checked", tool: "read_file", args: `{"filePath":"main.go"}`, want: "package main"},
		{name: "write plain file allowed", tool: "write_file", args: `{"path":"out.txt","content":"hi\n"}`,
			check: func(t *testing.T) { assertFile(t, ws, "out.txt", "hi\n") }},
		{name: "outside workspace denied by policy", tool: "read_file", args: `{"path":"../../etc/passwd"}`, wantErr: true, want: "denied by policy"},
		{name: "secret read needs approval, none configured", tool: "read_file", args: `{"path":".env"}`, wantErr: true, want: "no approver"},
		{name: "secret read confirmed", confirm: confirmYes, tool: "read_file", args: `{"path":".env"}`, want: "TOKEN=secret", asked: true},
		{name: "sensitive write denied headless", tool: "write_file", args: `{"path":".git/hooks/pre-commit","content":"x"}`, wantErr: true, want: "was not run",
			check: func(t *testing.T) { assertNoFile(t, ws, ".git/hooks/pre-commit") }},
		{name: "patch without path checks the diff's file", tool: "patch_file", args: `{"diff":"--- a/.env\n+++ b/.env\n@@ -1 +1 @@\n-TOKEN=secret\n+TOKEN=x\n"}`, wantErr: true, want: "no approver",
			check: func(t *testing.T) { assertFile(t, ws, ".env", "TOKEN=secret\n") }},
		{name: "command needs approval", tool: "run_terminal_command", args: `{"command":"rm -rf build"}`, wantErr: true, want: "no approver"},
		{name: "command confirmed runs", confirm: confirmYes, tool: "run_terminal_command", args: `{"command":"echo ran > ran.txt"}`, asked: true,
			check: func(t *testing.T) { assertFile(t, ws, "ran.txt", "ran\n") }},
		{name: "read-only command allowed", tool: "run_terminal_command", args: `{"command":"ls"}`, want: "main.go"},
		{name: "approver says no", confirm: ConfirmFunc(func(context.Context, ConfirmRequest) error { return errors.New("not today") }),
			tool: "run_terminal_command", args: `{"command":"touch x"}`, wantErr: true, want: "not today"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			asked.Store(0)
			c := connectInProcess(t, builtinServer(t, ws, ServeOptions{Confirm: tc.confirm}), ServerConfig{Rules: Rules{Allow: []string{"*"}}})
			var reg tools.Registry
			_, err := c.Register(context.Background(), &reg)
			require.NoError(t, err)
			res := call(t, &reg, "srv__"+tc.tool, tc.args)
			assert.Equal(t, tc.wantErr, res.IsError, res.Text)
			assert.Contains(t, res.Text, tc.want)
			assert.Equal(t, tc.asked, asked.Load() > 0, "confirmer asked")
			if tc.check != nil {
				tc.check(t)
			}
		})
	}
}

// TestServerMetaTravels: a Tether client gets the structured Meta of a
// Tether server's result, not only its text.
func TestServerMetaTravels(t *testing.T) {
	ws := workspace(t, map[string]string{"a.txt": "one\ntwo\nthree\n"})
	c := connectInProcess(t, builtinServer(t, ws, ServeOptions{}), ServerConfig{Rules: Rules{Allow: []string{"read_file"}}})
	var reg tools.Registry
	_, err := c.Register(context.Background(), &reg)
	require.NoError(t, err)
	res := call(t, &reg, "srv__read_file", `{"path":"a.txt"}`)
	require.False(t, res.IsError, res.Text)
	assert.Equal(t, "a.txt", res.Meta.Path)
	assert.Equal(t, 3, res.Meta.TotalLines)
	assert.NotContains(t, res.Text, "Structured result", "a Tether server's structured content is its Meta, not text for the model")

	// Any client gets the same Meta as structured content.
	raw, err := c.Session().CallTool(context.Background(), &sdk.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "a.txt"}})
	require.NoError(t, err)
	sc, ok := raw.StructuredContent.(map[string]any)
	require.True(t, ok, "%T", raw.StructuredContent)
	assert.Equal(t, "a.txt", sc["path"])
}

// TestServerAnnotations: read-only registry tools are announced read-only,
// so a Tether client runs them without asking.
func TestServerAnnotations(t *testing.T) {
	ws := workspace(t, nil)
	c := connectInProcess(t, builtinServer(t, ws, ServeOptions{}), ServerConfig{})
	ts, err := c.Tools(context.Background())
	require.NoError(t, err)
	got := map[string]safety.Decision{}
	for _, tl := range ts {
		d, _ := tl.Decision()
		got[tl.RemoteName()] = d
	}
	assert.Equal(t, safety.Allow, got["read_file"])
	assert.Equal(t, safety.Allow, got["search_workspace"])
	assert.Equal(t, safety.Confirm, got["write_file"])
	assert.Equal(t, safety.Confirm, got["run_terminal_command"])

	byName := map[string]*Tool{}
	for _, tl := range ts {
		byName[tl.RemoteName()] = tl
	}
	tests := []struct {
		tool                            string
		title                           string
		readOnly, idempotent, openWorld bool
	}{
		{"read_file", "Read file", true, true, false},
		{"write_file", "Write file", false, false, false},
		{"run_terminal_command", "Run terminal command", false, false, true},
	}
	for _, tt := range tests {
		tl := byName[tt.tool]
		require.NotNil(t, tl, tt.tool)
		a := tl.Annotations()
		assert.Equal(t, tt.title, a.Title, tt.tool)
		assert.Equal(t, tt.readOnly, a.ReadOnlyHint, tt.tool)
		assert.Equal(t, tt.idempotent, a.IdempotentHint, tt.tool)
		require.NotNil(t, a.OpenWorldHint, tt.tool)
		assert.Equal(t, tt.openWorld, *a.OpenWorldHint, tt.tool)
		assert.NotNil(t, tl.OutputSchema(), tt.tool)
	}
}

// TestServerNoPolicy: without a Policy, read-only tools run and others
// need confirmation.
func TestServerNoPolicy(t *testing.T) {
	ws := workspace(t, map[string]string{"a.txt": "x\n"})
	var reg tools.Registry
	require.NoError(t, reg.Register(
		tools.New("peek", "Peek.", func(ctx context.Context, a struct{}) (tools.Result, error) { return tools.Text("peeked"), nil }, tools.ReadOnly()),
		tools.New("poke", "Poke.", func(ctx context.Context, a struct{}) (tools.Result, error) { return tools.Text("poked"), nil }),
	))
	_ = ws
	srv, err := NewServer(&reg, ServeOptions{})
	require.NoError(t, err)
	c := connectInProcess(t, srv, ServerConfig{Rules: Rules{Allow: []string{"*"}}})
	var client tools.Registry
	_, err = c.Register(context.Background(), &client)
	require.NoError(t, err)
	assert.Equal(t, "peeked", call(t, &client, "srv__peek", `{}`).Text)
	res := call(t, &client, "srv__poke", `{}`)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text, "not read-only")
}

func TestActionOf(t *testing.T) {
	tests := []struct {
		tool, args string
		ok         bool
		want       safety.Action
	}{
		{"read_file", `{"path":"a.go"}`, true, safety.Action{Tool: "read_file", Paths: []safety.PathOp{{Path: "a.go", Op: safety.OpRead}}}},
		{"list_files", `{}`, true, safety.Action{Tool: "list_files", Paths: []safety.PathOp{{Path: ".", Op: safety.OpRead}}}},
		{"rename_file", `{"path":"a","new_path":"b"}`, true, safety.Action{Tool: "rename_file", Paths: []safety.PathOp{{Path: "a", Op: safety.OpWrite}, {Path: "b", Op: safety.OpWrite}}}},
		{"rename_file", `{"path":"a"}`, false, safety.Action{}},
		{"write_file", `{"content":"x"}`, false, safety.Action{}},
		{"patch_file", `{"diff":"--- a/x\n+++ b/src/x.go\t2024\n"}`, true, safety.Action{Tool: "patch_file", Paths: []safety.PathOp{{Path: "src/x.go", Op: safety.OpWrite}}}},
		{"patch_file", `{"diff":"+++ /dev/null\n"}`, false, safety.Action{}},
		{"run_terminal_command", `{"command":"ls","cwd":"sub"}`, true, safety.Action{Tool: "run_terminal_command", Command: "ls", Dir: "sub"}},
		{"run_terminal_command", `{}`, false, safety.Action{}},
		{"find_symbol", `{"query":"X"}`, true, safety.Action{Tool: "find_symbol", Paths: []safety.PathOp{{Path: ".", Op: safety.OpRead}}}},
		{"something_else", `{"path":"a"}`, false, safety.Action{}},
		{"read_file", `not json`, false, safety.Action{}},
	}
	for _, tc := range tests {
		a, ok := ActionOf(tools.Spec{Name: tc.tool}, tools.Call{Name: tc.tool, Arguments: []byte(tc.args)})
		assert.Equal(t, tc.ok, ok, "%s %s", tc.tool, tc.args)
		assert.Equal(t, tc.want, a, "%s %s", tc.tool, tc.args)
	}
}

func assertFile(t *testing.T, ws *safety.Workspace, rel, want string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(ws.Root(), filepath.FromSlash(rel)))
	require.NoError(t, err)
	assert.Equal(t, want, string(b))
}

func assertNoFile(t *testing.T, ws *safety.Workspace, rel string) {
	t.Helper()
	_, err := os.Stat(filepath.Join(ws.Root(), filepath.FromSlash(rel)))
	assert.True(t, errors.Is(err, os.ErrNotExist), "%s should not exist: %v", rel, err)
	_ = strings.TrimSpace
}

// BenchmarkRoundTrip measures one call of a trivial tool through a Tether
// client, the MCP SDK over an in-memory transport, and a Tether server.
func BenchmarkRoundTrip(b *testing.B) {
	var reg tools.Registry
	if err := reg.Register(tools.New("echo", "Echo.", func(ctx context.Context, a struct {
		S string `json:"s"`
	}) (tools.Result, error) {
		return tools.Text(a.S), nil
	}, tools.ReadOnly())); err != nil {
		b.Fatal(err)
	}
	srv, err := NewServer(&reg, ServeOptions{})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		b.Fatal(err)
	}
	c, err := Connect(ctx, ServerConfig{Name: "b", Transport: ct})
	if err != nil {
		b.Fatal(err)
	}
	defer func() { c.Close(); ss.Wait() }()
	var client tools.Registry
	if _, err := c.Register(ctx, &client); err != nil {
		b.Fatal(err)
	}
	call := tools.Call{Name: "b__echo", Arguments: []byte(`{"s":"hello"}`)}
	b.ReportAllocs()
	for b.Loop() {
		if res := client.Execute(ctx, call); res.Text != "hello" {
			b.Fatal(res.Text)
		}
	}
}
