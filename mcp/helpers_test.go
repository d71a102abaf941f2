package mcp

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
	"github.com/tetherdev/tether/tools/builtin"
)

// workspace makes a temporary workspace holding files (path → content).
func workspace(t *testing.T, files map[string]string) *safety.Workspace {
	t.Helper()
	dir := t.TempDir()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, []byte(c), 0o644))
	}
	ws, err := safety.OpenWorkspace(dir)
	require.NoError(t, err)
	t.Cleanup(func() { ws.Close() })
	return ws
}

// builtinServer serves the built-in tools on ws behind a policy.
func builtinServer(t *testing.T, ws *safety.Workspace, opts ServeOptions) *sdk.Server {
	t.Helper()
	var reg tools.Registry
	sh, err := builtin.Register(&reg, ws, builtin.Options{})
	require.NoError(t, err)
	if opts.Policy == nil {
		opts.Policy = &safety.Policy{Workspace: ws, Rules: safety.CommandRules{AllowReadOnly: true}}
	}
	opts.Cwd = sh.Cwd
	srv, err := NewServer(&reg, opts)
	require.NoError(t, err)
	return srv
}

// connectInProcess runs srv and connects a Client to it in memory.
func connectInProcess(t testing.TB, srv *sdk.Server, cfg ServerConfig) *Client {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	require.NoError(t, err)
	cfg.Transport = ct
	if cfg.Name == "" {
		cfg.Name = "srv"
	}
	c, err := Connect(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(func() {
		c.Close()
		ss.Wait()
		cancel()
	})
	return c
}

// call runs one call through a registry the client registered into.
func call(t *testing.T, reg *tools.Registry, name, args string) tools.Result {
	t.Helper()
	return reg.Execute(context.Background(), tools.Call{Name: name, Arguments: []byte(args)})
}

// closedWorld is an openWorldHint of false: a read-only tool the client
// lets run unasked (an open-world one needs the host's trust).
func closedWorld() *bool {
	f := false
	return &f
}
