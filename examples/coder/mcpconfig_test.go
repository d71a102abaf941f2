package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tetherdev/tether/agent/event"
	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/examples/internal/mcpmount/mcpmounttest"
)

func TestMain(m *testing.M) {
	mcpmounttest.ServeIfAsked() // this binary is also the tests' MCP server
	// The user's own settings stay out of the tests.
	cfg, err := os.MkdirTemp("", "tether-config")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CONFIG_HOME", cfg)
	code := m.Run()
	os.RemoveAll(cfg)
	os.Exit(code)
}

// TestMCPConfig: -mcp-config starts the servers of the file (this test
// binary, over stdio), the model can call their tools as SERVER__TOOL,
// and closing the app stops them.
func TestMCPConfig(t *testing.T) {
	ws, dir := t.TempDir(), t.TempDir()
	t.Chdir(ws)
	server, _ := json.Marshal(map[string]any{"command": os.Args[0], "env": map[string]string{mcpmounttest.EnvVar: "1"}})
	config, script, logFile := filepath.Join(dir, "mcp.json"), filepath.Join(dir, "s.jsonl"), filepath.Join(dir, "coder.log")
	writeFile(t, config, `{"mcpServers": {"probe": `+string(server)+`}}`)
	writeFile(t, script, `{"capabilities":{"tools":true}}
{"tool_calls":[{"name":"probe__echo","arguments":{"text":"from the model"}}]}
{"content":"Done. [TASK_COMPLETE]"}
`)
	var (
		mu   sync.Mutex
		acts []event.ToolAction
	)
	sink := event.SinkFunc(func(_ context.Context, e event.Event) error {
		if a, ok := e.(event.ToolAction); ok && a.Status != event.StatusRunning {
			mu.Lock()
			acts = append(acts, a)
			mu.Unlock()
		}
		return nil
	})
	o := options{model: "script:" + script, db: ":memory:", logFile: logFile, mode: "agent", approvalTimeout: time.Minute, mcpConfig: config}
	a, err := openApp(context.Background(), o, approval.Func(func(context.Context, approval.Request) (approval.Response, error) {
		return approval.Response{Choice: approval.Deny, Reason: "not in this test"}, nil
	}), sink)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := a.ensureSession(ctx, "echo"); err != nil {
		a.close()
		t.Fatal(err)
	}
	_, err = a.sess.Run(ctx, a.input("echo something"))
	a.close()
	if err != nil {
		t.Fatal(err)
	}
	if len(acts) != 1 || acts[0].Tool != "probe__echo" || acts[0].Status != event.StatusSuccess || !strings.Contains(acts[0].Output, "echo: from the model") {
		t.Fatalf("the MCP call did not run: %+v", acts)
	}
	if b, _ := os.ReadFile(logFile); !strings.Contains(string(b), "mcp server disconnected") {
		t.Errorf("the server was not stopped on close; log:\n%s", b)
	}

	o.mcpConfig = filepath.Join(dir, "none.json")
	if _, err := openApp(context.Background(), o, nil, sink); err == nil || !strings.Contains(err.Error(), "-mcp-config") || !strings.Contains(err.Error(), "none.json") {
		t.Errorf("missing config file: %v", err)
	}
}
