package mcpmount

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetherdev/tether/examples/internal/mcpmount/mcpmounttest"
	"github.com/tetherdev/tether/mcp"
	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
)

func TestMain(m *testing.M) {
	mcpmounttest.ServeIfAsked()
	os.Exit(m.Run())
}

// writeConfig writes an mcpServers file with the given JSON servers.
func writeConfig(t *testing.T, servers string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(file, []byte(`{"mcpServers": {`+servers+`}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// selfServer is a server entry that runs this test binary as the MCP
// server of package mcpmounttest.
func selfServer(t *testing.T) string {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"command": os.Args[0], "env": map[string]string{mcpmounttest.EnvVar: "1"}})
	return string(b)
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// TestMount starts a real stdio server (this test binary) from a config
// file: its tools are registered under its name, it is offered the
// workspace as its root, a disabled server is skipped, and Close stops it.
func TestMount(t *testing.T) {
	root := t.TempDir()
	file := writeConfig(t, `"probe": `+selfServer(t)+`, "off": {"command": "no-such-server", "disabled": true}`)
	reg := &tools.Registry{}
	ctx := context.Background()
	s, err := Mount(ctx, file, openWS(t, root), reg, quiet())
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(s.Tools(), ","); got != "probe__echo,probe__fetch_news" {
		t.Errorf("registered %s, want probe__echo,probe__fetch_news", got)
	}
	if res := reg.Execute(ctx, tools.Call{Name: "probe__echo", Arguments: json.RawMessage(`{"text":"hi"}`)}); res.IsError || res.Text != "echo: hi" {
		t.Errorf("probe__echo: %q (error %v), want %q", res.Text, res.IsError, "echo: hi")
	}
	if got, want := strings.Join(s.clients[0].Roots(), ","), "file://"+filepath.ToSlash(root); got != want {
		t.Errorf("roots offered: %s, want the workspace %s", got, want)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if res := reg.Execute(ctx, tools.Call{Name: "probe__echo", Arguments: json.RawMessage(`{"text":"x"}`)}); !res.IsError {
		t.Errorf("a closed server still answered: %q", res.Text)
	}
}

// TestMountErrors: a bad file or a server that cannot start is an error
// naming it, and servers started before it are stopped.
func TestMountErrors(t *testing.T) {
	root := t.TempDir()
	for _, tt := range []struct{ name, file, want string }{
		{"missing file", filepath.Join(root, "none.json"), "none.json"},
		{"bad JSON", writeConfig(t, `"x": `), "mcp.json"},
		{"unset variable", writeConfig(t, `"x": {"command": "srv", "env": {"K": "${TETHER_SURELY_UNSET_VAR}"}}`), "TETHER_SURELY_UNSET_VAR"},
		{"server that does not start", writeConfig(t, `"a": `+selfServer(t)+`, "b": {"command": "/nonexistent/mcp-server"}`), `server "b"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			reg := &tools.Registry{}
			s, err := Mount(context.Background(), tt.file, openWS(t, root), reg, quiet())
			if err == nil {
				s.Close()
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not name %s", err, tt.want)
			}
			if res := reg.Execute(context.Background(), tools.Call{Name: "a__echo", Arguments: json.RawMessage(`{"text":"x"}`)}); !res.IsError {
				t.Errorf("server a still answers after the failed mount: %q", res.Text)
			}
		})
	}
}

// TestMountReferenceServers mounts the npm reference servers the way
// editors' config files start them: the knowledge-graph server keeping
// its file in the workspace through ${workspaceFolder}, beside the
// sequential-thinking server; both answer through the registry.
func TestMountReferenceServers(t *testing.T) {
	const install = "npm install -g @modelcontextprotocol/server-memory@2026.8.31 @modelcontextprotocol/server-sequential-thinking@2026.8.31"
	for _, bin := range []string{"node", "mcp-server-memory", "mcp-server-sequential-thinking"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Skip(bin + " is not installed; install Node.js, then: " + install)
		}
	}
	root := t.TempDir()
	file := writeConfig(t, `
		"memory": {"command": "mcp-server-memory", "env": {"MEMORY_FILE_PATH": "${workspaceFolder}/.memory/graph.jsonl"}},
		"thinking": {"command": "mcp-server-sequential-thinking", "env": {"DISABLE_THOUGHT_LOGGING": "true"}}`)
	if err := os.Mkdir(filepath.Join(root, ".memory"), 0o755); err != nil {
		t.Fatal(err)
	}
	reg := &tools.Registry{}
	ctx := context.Background()
	s, err := Mount(ctx, file, openWS(t, root), reg, quiet())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, c := range []struct{ tool, args, want string }{
		{"memory__create_entities", `{"entities":[{"name":"Tether","entityType":"project","observations":["Go SDK"]}]}`, "Go SDK"},
		{"memory__search_nodes", `{"query":"Tether"}`, `"entityType": "project"`},
		{"thinking__sequentialthinking", `{"thought":"Plan","nextThoughtNeeded":false,"thoughtNumber":1,"totalThoughts":1}`, `"thoughtHistoryLength": 1`},
	} {
		// Mount leaves judging to the agent; the test approves as it would.
		res := reg.Execute(mcp.WithApproved(ctx), tools.Call{Name: c.tool, Arguments: json.RawMessage(c.args)})
		if res.IsError || !strings.Contains(res.Text, c.want) {
			t.Errorf("%s: %q (error %v), want it to contain %s", c.tool, res.Text, res.IsError, c.want)
		}
	}
	graph, err := os.ReadFile(filepath.Join(root, ".memory", "graph.jsonl"))
	if err != nil || !strings.Contains(string(graph), "Go SDK") {
		t.Errorf("the graph is not in the workspace: %q, %v", graph, err)
	}
}

// openWS opens root as the agent's workspace.
func openWS(t *testing.T, root string) *safety.Workspace {
	t.Helper()
	ws, err := safety.OpenWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws
}
