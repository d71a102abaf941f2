package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestServerName: a server given on the command line is named after what
// it runs, so its tools' descriptions and the log say which server.
func TestServerName(t *testing.T) {
	for _, tc := range []struct {
		command []string
		url     string
		want    string
	}{
		{[]string{"/usr/bin/mcp-server-memory"}, "", "mcp-server-memory"},
		{[]string{"npx", "-y", "@modelcontextprotocol/server-memory@2026.8.31"}, "", "server-memory"},
		{[]string{"uvx", "mcp-server-git", "--repository", "."}, "", "mcp-server-git"},
		{[]string{"python3", "-u", "/srv/tools/weather_server.py"}, "", "weather_server"},
		{[]string{"go", "run", "./examples/tether-mcp", "serve"}, "", "tether-mcp"},
		{[]string{"docker", "run", "-i", "--rm", "ghcr.io/github/github-mcp-server"}, "", "github-mcp-server"},
		{[]string{"npx"}, "", "npx"},
		{[]string{"./weird name!.sh"}, "", "weird-name"},
		{nil, "http://127.0.0.1:8080/mcp", "127-0-0-1"},
		{nil, "https://mcp.example.com/sse", "mcp-example-com"},
		{[]string{"@@@"}, "", "server"},
	} {
		assert.Equal(t, tc.want, serverName(tc.command, tc.url), "%v %s", tc.command, tc.url)
	}
}
