package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetherdev/tether/examples/internal/mcpmount/mcpmounttest"
)

// TestMCPConfig: with -mcp-config the page's agent can call the tools of
// the servers in the file (this test binary over stdio) as SERVER__TOOL.
func TestMCPConfig(t *testing.T) {
	server, _ := json.Marshal(map[string]any{"command": os.Args[0], "env": map[string]string{mcpmounttest.EnvVar: "1"}})
	config := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(config, []byte(`{"mcpServers": {"probe": `+string(server)+`}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, `{"capabilities":{"tools":true}}
{"tool_calls":[{"name":"probe__echo","arguments":{"text":"from the model"}}]}
{"content":"Done. [TASK_COMPLETE]"}
`, nil, func(o *options) { o.mcpConfig = config })
	session := ts.newSession(t)
	ts.post(t, "/api/prompt", map[string]string{"session": session, "text": "echo something"})
	var output string
	ts.events(t, session, func(ev map[string]any) bool {
		if ev["type"] == "tool_action" && ev["tool"] == "probe__echo" && ev["status"] == "success" {
			output, _ = ev["output"].(string)
		}
		return ev["type"] == "run_finished"
	})
	if !strings.Contains(output, "echo: from the model") {
		t.Errorf("probe__echo output %q, want the server's echo", output)
	}
}
