package mcpmount

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetherdev/tether/examples/internal/mcpmount/mcpmounttest"
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
	s, err := Mount(ctx, file, root, reg, quiet())
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(s.Tools(), ","); got != "probe__echo" {
		t.Errorf("registered %s, want probe__echo", got)
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
			s, err := Mount(context.Background(), tt.file, root, reg, quiet())
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
