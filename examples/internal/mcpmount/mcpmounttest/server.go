// Package mcpmounttest is a small MCP server for the examples' tests: a
// test binary that calls ServeIfAsked first in its TestMain can be named
// as a stdio server's command in a -mcp-config file.
package mcpmounttest

import (
	"context"
	"fmt"
	"os"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// EnvVar, set to any value in a server's environment, makes ServeIfAsked
// serve.
const EnvVar = "TETHER_MCPMOUNT_TEST_SERVE"

// ServeIfAsked serves over stdin and stdout and exits when EnvVar is set,
// and returns at once otherwise. The server has two tools: echo
// ({"text": …} → "echo: …"), annotated read-only and local, and
// fetch_news, annotated read-only only, which the spec reads as reaching
// the open world.
func ServeIfAsked() {
	if os.Getenv(EnvVar) == "" {
		return
	}
	srv := sdk.NewServer(&sdk.Implementation{Name: "mcpmounttest", Version: "1"}, nil)
	local := false
	sdk.AddTool(srv, &sdk.Tool{Name: "echo", Description: "Repeat the text.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &local}},
		func(_ context.Context, _ *sdk.CallToolRequest, in struct {
			Text string `json:"text"`
		}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "echo: " + in.Text}}}, nil, nil
		})
	sdk.AddTool(srv, &sdk.Tool{Name: "fetch_news", Description: "Fetch today's headlines.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "FETCHED"}}}, nil, nil
		})
	if err := srv.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}
