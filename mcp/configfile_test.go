package mcp

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseConfig(t *testing.T) {
	env := map[string]string{"GITHUB_TOKEN": "ghp_x", "DOCS": "d0cs"}
	opts := ConfigOptions{WorkspaceFolder: "/ws", LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
	tests := []struct {
		name    string
		in      string
		want    []ServerConfig
		wantErr string
	}{
		{name: "claude desktop",
			in: `{"mcpServers":{"github":{"command":"gh-mcp","args":["stdio","${workspaceFolder}"],"env":{"GITHUB_TOKEN":"${GITHUB_TOKEN}"},"timeout":1500},
			      "off":{"command":"x","disabled":true}}}`,
			want: []ServerConfig{{Name: "github", Command: "gh-mcp", Args: []string{"stdio", "/ws"}, Env: []string{"GITHUB_TOKEN=ghp_x"},
				CallTimeout: 1500 * time.Millisecond}}},
		{name: "vs code servers with http and sse",
			in: `{"servers":{"docs":{"type":"http","url":"https://e.com/mcp","headers":{"Authorization":"Bearer ${env:DOCS}"}},
			      "old":{"type":"sse","url":"http://127.0.0.1:3001/sse"}}}`,
			want: []ServerConfig{
				{Name: "docs", URL: "https://e.com/mcp", Header: http.Header{"Authorization": {"Bearer d0cs"}}},
				{Name: "old", URL: "http://127.0.0.1:3001/sse", LegacySSE: true}}},
		{name: "trusting a server's open-world tools", in: `{"mcpServers":{"search":{"command":"web-search","allowOpenWorld":true}}}`,
			want: []ServerConfig{{Name: "search", Command: "web-search", Rules: Rules{AllowOpenWorld: true}}}},
		{name: "default value", in: `{"mcpServers":{"a":{"command":"${BIN:-node}"}}}`,
			want: []ServerConfig{{Name: "a", Command: "node"}}},
		{name: "unset variable", in: `{"mcpServers":{"a":{"command":"x","env":{"K":"${NOPE}"}}}}`,
			wantErr: "mcpServers.a.env.K: environment variable NOPE is not set"},
		{name: "input variable", in: `{"servers":{"a":{"url":"https://e.com","headers":{"X":"${input:key}"}}}}`,
			wantErr: "servers.a.headers.X: ${input:key}: VS Code input prompts are not supported"},
		{name: "args not an array", in: `{"mcpServers":{"a":{"command":"x","args":"--flag"}}}`,
			wantErr: "mcpServers.a.args: is a JSON string, want an array of strings"},
		{name: "neither command nor url", in: `{"mcpServers":{"a":{"env":{}}}}`,
			wantErr: "mcpServers.a: set command (a local server) or url (a remote one)"},
		{name: "both", in: `{"mcpServers":{"a":{"command":"x","url":"http://y"}}}`,
			wantErr: "mcpServers.a: set either command"},
		{name: "bad type", in: `{"servers":{"a":{"type":"ws","url":"http://y"}}}`,
			wantErr: `servers.a.type: "ws": want "http"`},
		{name: "bad url", in: `{"servers":{"a":{"url":"ftp://y"}}}`,
			wantErr: `servers.a.url: "ftp://y": want an http:// or https:// URL`},
		{name: "bad name", in: `{"mcpServers":{"my server":{"command":"x"}}}`,
			wantErr: "mcpServers.my server: the server name becomes its tools' prefix"},
		{name: "no servers", in: `{"other":{}}`, wantErr: `no "mcpServers"`},
		{name: "not json", in: `[`, wantErr: "not a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseConfig([]byte(tt.in), opts)
			if tt.wantErr != "" {
				require.ErrorIs(t, err, ErrConfig)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			for _, c := range got {
				assert.NoError(t, c.validate(), "a parsed config is a valid ServerConfig")
			}
		})
	}
}

func TestLoadConfigNamesFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "mcp.json")
	require.NoError(t, os.WriteFile(p, []byte(`{"mcpServers":{"a":{}}}`), 0o600))
	_, err := LoadConfig(p, ConfigOptions{})
	require.ErrorIs(t, err, ErrConfig)
	assert.Contains(t, err.Error(), p+": ")
	_, err = LoadConfig(filepath.Join(t.TempDir(), "missing.json"), ConfigOptions{})
	assert.ErrorIs(t, err, os.ErrNotExist)
}
