package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tetherdev/tether/examples/internal/mcpmount/mcpmounttest"
)

// TestMCPTrustEndToEnd: through the gateway, with no human, an MCP
// server's annotations grant nothing the host did not configure. A
// read-only tool that does not say it is closed-world (fetch_news) is
// refused, with the reason; a read-only local tool (echo) whose argument
// leads through a link in the workspace to a secret outside it is refused;
// the same tool with a harmless argument runs.
func TestMCPTrustEndToEnd(t *testing.T) {
	ws := project(t)
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, ".env"), []byte("TOKEN=x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, ".env"), filepath.Join(ws, "notes.txt")); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	server, _ := json.Marshal(map[string]any{"command": os.Args[0], "env": map[string]string{mcpmounttest.EnvVar: "1"}})
	config := filepath.Join(dir, "mcp.json")
	script := filepath.Join(dir, "s.jsonl")
	for name, body := range map[string]string{
		config: `{"mcpServers": {"probe": ` + string(server) + `}}`,
		script: `{"capabilities":{"tools":true}}
{"tool_calls":[{"name":"probe__fetch_news","arguments":{}}]}
{"tool_calls":[{"name":"probe__echo","arguments":{"text":"notes.txt"}}]}
{"tool_calls":[{"name":"probe__echo","arguments":{"text":"hello"}}]}
{"content":"Done. [TASK_COMPLETE]"}
`,
	} {
		if err := os.WriteFile(name, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var out, stderr bytes.Buffer
	in := strings.NewReader(`{"type":"prompt","text":"Read the news and my notes"}` + "\n")
	if code := run(t.Context(), []string{"-workspace", ws, "-model", "script:" + script, "-mcp-config", config}, in, &out, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	acts := finalActions(parseEvents(t, out.Bytes()))
	if len(acts) != 3 {
		t.Fatalf("want 3 finished actions, got %v", acts)
	}
	want := []struct{ tool, status, detail string }{
		{"probe__fetch_news", "denied", "open-world"},
		{"probe__echo", "denied", "notes.txt"},
		{"probe__echo", "success", ""},
	}
	for i, w := range want {
		a := acts[i]
		if a.str("tool") != w.tool || a.str("status") != w.status || !strings.Contains(a.str("detail")+a.str("output"), w.detail) {
			t.Errorf("action %d: %s %s %q %q; want %s %s mentioning %q", i+1, a.str("tool"), a.str("status"), a.str("detail"), a.str("output"), w.tool, w.status, w.detail)
		}
	}
	if strings.Contains(out.String(), "FETCHED") || strings.Contains(out.String(), "TOKEN=x") {
		t.Error("a refused call reached the server's answer")
	}
}
