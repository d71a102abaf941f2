package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tetherdev/tether/examples/internal/mcpmount/mcpmounttest"
)

// TestMCPConfig: -mcp-config starts the servers of the file (here this
// test binary, serving over stdio), offers their tools under the
// server's name, runs a call of one, and stops them when input ends; a
// bad file stops the gateway before it reads a request.
func TestMCPConfig(t *testing.T) {
	ws := project(t)
	dir := t.TempDir()
	server, _ := json.Marshal(map[string]any{"command": os.Args[0], "env": map[string]string{mcpmounttest.EnvVar: "1"}})
	config := filepath.Join(dir, "mcp.json")
	script := filepath.Join(dir, "s.jsonl")
	for name, body := range map[string]string{
		config: `{"mcpServers": {"probe": ` + string(server) + `}}`,
		script: `{"capabilities":{"tools":true}}
{"tool_calls":[{"name":"probe__echo","arguments":{"text":"from the model"}}]}
{"content":"Done. [TASK_COMPLETE]"}
`,
	} {
		if err := os.WriteFile(name, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var out, stderr bytes.Buffer
	in := strings.NewReader(`{"type":"prompt","text":"Echo something"}` + "\n")
	if code := run(t.Context(), []string{"-workspace", ws, "-model", "script:" + script, "-mcp-config", config}, in, &out, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	evs := parseEvents(t, out.Bytes())
	started := ofType(evs, "run_started")
	if len(started) != 1 || !slices.Contains(started[0]["tools"].([]any), any("probe__echo")) {
		t.Fatalf("probe__echo not offered: %v", started)
	}
	acts := finalActions(evs)
	if len(acts) != 1 || acts[0].str("status") != "success" || !strings.Contains(acts[0].str("output"), "echo: from the model") {
		t.Fatalf("the MCP call did not run: %v", acts)
	}
	if !strings.Contains(stderr.String(), "mcp server disconnected") {
		t.Errorf("the server was not stopped on exit; stderr:\n%s", stderr.String())
	}

	out.Reset()
	stderr.Reset()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"mcpServers": {"x": {"command": "srv", "env": {"K": "${TETHER_SURELY_UNSET_VAR}"}}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	code := run(t.Context(), []string{"-workspace", ws, "-model", "script:" + script, "-mcp-config", bad}, strings.NewReader(""), &out, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "-mcp-config") || !strings.Contains(stderr.String(), "TETHER_SURELY_UNSET_VAR") {
		t.Errorf("bad config: exit %d, stderr %q; want 1 naming the flag and the variable", code, stderr.String())
	}
}
