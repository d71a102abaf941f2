package main

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/acp"
	"github.com/tetherdev/tether/tools"
)

// The MCP servers an editor hands a session are started through Tether's
// MCP client, their tools registered as SERVER__TOOL, and stopped with
// the session. The server here is this repository's own MCP example.
func TestEditorMCPServersAreMounted(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "tether-mcp")
	out, err := exec.Command("go", "build", "-o", bin, "../tether-mcp").CombinedOutput()
	require.NoError(t, err, "go build ../mcp: %s", out)
	ws := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("hello\n"), 0o644))

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	reg := &tools.Registry{}
	env := acp.SessionEnv{Cwd: ws, MCPServers: []acp.MCPServer{{Name: "repo", Command: bin, Args: []string{"serve", "-workspace", ws}, Transport: "stdio"}}}
	stop, err := mountMCP(ctx, env, ws, reg, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	assert.True(t, slices.Contains(reg.Names(), "repo__read_file"), "tools: %v", reg.Names())
	stop()

	// A server that cannot start names itself in the error.
	env.MCPServers = []acp.MCPServer{{Name: "broken", Command: filepath.Join(ws, "no-such-server"), Transport: "stdio"}}
	_, err = mountMCP(ctx, env, ws, &tools.Registry{}, slog.New(slog.DiscardHandler))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"broken"`)
}

// The settings' mcpServers join the editor's; a server of the same name
// is the editor's (the settings' one here could not even start).
func TestSettingsMCPServersJoinTheEditors(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "tether-mcp")
	out, err := exec.Command("go", "build", "-o", bin, "../tether-mcp").CombinedOutput()
	require.NoError(t, err, "go build ../mcp: %s", out)
	ws := t.TempDir()
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	user := `{"mcpServers": {"repo": {"command": "/no/such/server"}, "extra": {"command": "` + bin + `", "args": ["serve", "-workspace", "` + ws + `"]}}}`
	require.NoError(t, os.MkdirAll(filepath.Join(cfg, "tether"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(cfg, "tether", "settings.json"), []byte(user), 0o644))
	script := filepath.Join(t.TempDir(), "s.jsonl")
	require.NoError(t, os.WriteFile(script, []byte(`{"content":"hi"}`+"\n"), 0o644))

	r := openBlindEnv(t, []string{"-model", "script:" + script, "-db", "memory", "-sandbox", "off"}, acp.SessionEnv{Cwd: ws,
		MCPServers: []acp.MCPServer{{Name: "repo", Command: bin, Args: []string{"serve", "-workspace", ws}, Transport: "stdio"}}})
	require.NoError(t, r.err)
	names := r.setup.Agent.Tools.Names()
	assert.True(t, slices.Contains(names, "repo__read_file") && slices.Contains(names, "extra__read_file"), "tools: %v", names)
}
