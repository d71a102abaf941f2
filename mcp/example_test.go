package mcp_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tetherdev/tether/mcp"
	"github.com/tetherdev/tether/safety"
	"github.com/tetherdev/tether/tools"
	"github.com/tetherdev/tether/tools/builtin"
)

// Serve the built-in tools of a workspace over MCP and use them from a
// Tether client, both in one process.
func Example() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("hello, MCP\n"), 0o644)

	ws, _ := safety.OpenWorkspace(dir)
	defer ws.Close()
	var builtins tools.Registry
	builtin.Register(&builtins, ws, builtin.Options{NoTerminal: true})
	srv, _ := mcp.NewServer(&builtins, mcp.ServeOptions{Policy: &safety.Policy{Workspace: ws, Headless: true}})

	serverEnd, clientEnd := sdk.NewInMemoryTransports()
	session, _ := srv.Connect(ctx, serverEnd, nil)
	defer session.Wait()

	client, err := mcp.Connect(ctx, mcp.ServerConfig{Name: "tether", Transport: clientEnd})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer client.Close()
	var reg tools.Registry
	client.Register(ctx, &reg)

	res := reg.Execute(ctx, tools.Call{Name: "tether__read_file", Arguments: []byte(`{"path":"hello.txt"}`)})
	fmt.Println(res.Meta.Path, res.Meta.TotalLines)

	// write_file is not read-only: it needs confirmation, and no one was
	// configured to give it.
	res = reg.Execute(ctx, tools.Call{Name: "tether__write_file", Arguments: []byte(`{"path":"x.txt","content":"x"}`)})
	fmt.Println(res.IsError)
	// Output:
	// hello.txt 1
	// true
}

// An agent's tool runner reads a tool's decision through Decider.
func ExampleDecider() {
	var reg tools.Registry
	// … c.Register(ctx, &reg) for some server …
	for _, t := range reg.Tools() {
		if d, ok := t.(mcp.Decider); ok {
			dec, reasons := d.Decision()
			fmt.Println(t.Describe().Name, dec, reasons)
		}
	}
}

// A config file in the format Claude Desktop, Cursor and VS Code share
// becomes ServerConfigs; variables come from the environment.
func ExampleParseConfig() {
	file := []byte(`{"mcpServers": {
		"github": {"command": "github-mcp-server", "args": ["stdio"], "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}},
		"docs":   {"url": "https://example.com/mcp", "type": "sse"}
	}}`)
	env := map[string]string{"GITHUB_TOKEN": "ghp_example"}
	cfgs, err := mcp.ParseConfig(file, mcp.ConfigOptions{LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range cfgs {
		fmt.Println(c.Name, c.Command, c.Env, c.URL, c.LegacySSE)
	}
	// Output:
	// docs  [] https://example.com/mcp true
	// github github-mcp-server [GITHUB_TOKEN=ghp_example]  false
}
