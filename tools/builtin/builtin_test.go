package builtin

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
)

func openWS(t *testing.T) *safety.Workspace {
	t.Helper()
	ws, err := safety.OpenWorkspace(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { ws.Close() })
	return ws
}

func run(t *testing.T, r *tools.Registry, name, args string) tools.Result {
	t.Helper()
	return r.Execute(context.Background(), tools.Call{Name: name, Arguments: json.RawMessage(args)})
}

func TestRegisterAll(t *testing.T) {
	ws := openWS(t)
	var r tools.Registry
	_, err := Register(&r, ws, Options{})
	require.NoError(t, err)
	assert.Equal(t, []string{
		"read_file", "write_file", "create_file", "edit_file", "modify_lines", "patch_file", "list_files",
		"search_workspace", "get_file_size", "create_folder", "rename_file", "get_diagnostics", "run_terminal_command",
	}, r.Names())
	assert.Equal(t, []string{"read_file", "list_files", "search_workspace", "get_file_size", "get_diagnostics"}, r.ReadOnly().Names())

	// A session: write, run, search, read, through the names small models use.
	res := run(t, &r, "write_file", `{"filePath":"src/main.go","content":"package main\n\nfunc main() {}\n"}`)
	require.False(t, res.IsError, res.Text)
	res = run(t, &r, "bash", `{"command":"cd src && ls"}`)
	assert.Equal(t, "main.go\n[exit code: 0]\n[cwd: src]", res.Text)
	res = run(t, &r, "grep", `{"pattern":"func main"}`)
	assert.Contains(t, res.Text, "── src/main.go ──\n  2: \n→ 3: func main() {}")
	res = run(t, &r, "cat", `{"file":"src/main.go","start_line":3}`)
	assert.Contains(t, res.Text, "     3\tfunc main() {}")
	res = run(t, &r, "ls", `{"path":"src"}`)
	assert.Contains(t, res.Text, "main.go (")
	res = run(t, &r, "nonexistent_tool", `{}`)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text, "Available tools: read_file, write_file")

	// The shell may not wander out of the workspace.
	res = run(t, &r, "run_terminal_command", `{"command":"pwd","cwd":"/"}`)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text, "outside the workspace")
}

func TestSandboxedTerminal(t *testing.T) {
	ws := openWS(t)
	exe, err := os.Executable()
	require.NoError(t, err)
	sb := ws.NewSandbox()
	sb.Helper = exe
	if err := sb.Available(); err != nil {
		t.Skipf("no Landlock here: %v", err)
	}
	outside := t.TempDir()
	var r tools.Registry
	_, err = Register(&r, ws, Options{Sandbox: sb})
	require.NoError(t, err)
	res := run(t, &r, "run_terminal_command", `{"command":"echo inside > in.txt && cat in.txt"}`)
	assert.Equal(t, "inside\n[exit code: 0]", res.Text)
	res = run(t, &r, "run_terminal_command", `{"command":"echo x > `+filepath.Join(outside, "out.txt")+`"}`)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Text, "Permission denied")
	_, err = os.Stat(filepath.Join(outside, "out.txt"))
	assert.True(t, os.IsNotExist(err))
}
