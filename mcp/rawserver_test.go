package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/tools"
)

// rawServer is an MCP server written by hand, line by line, so that a
// test can send what no SDK would: the shapes sloppy third-party servers
// answer with. It speaks protocol 2025-06-18 and has the tools of
// toolsJSON (a JSON array); each tools/call's raw response line ("result"
// or "error" member, without the envelope) comes from answer.
func rawServer(t *testing.T, toolsJSON string, answer func(name string) string) sdk.Transport {
	t.Helper()
	toServer, fromClient := io.Pipe()
	fromServer, toClient := io.Pipe()
	go func() {
		defer toClient.Close()
		sc := bufio.NewScanner(toServer)
		for sc.Scan() {
			var req struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params struct {
					Name string `json:"name"`
				} `json:"params"`
			}
			if json.Unmarshal(sc.Bytes(), &req) != nil || req.ID == nil {
				continue // notifications
			}
			var body string
			switch req.Method {
			case "initialize":
				body = `"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"raw","version":"0"}}`
			case "tools/list":
				body = `"result":{"tools":` + toolsJSON + `}`
			case "tools/call":
				body = answer(req.Params.Name)
			default:
				body = `"error":{"code":-32601,"message":"method not found"}`
			}
			if _, err := io.WriteString(toClient, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,`+body+"}\n"); err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { fromClient.Close(); fromServer.Close() })
	return &sdk.IOTransport{Reader: fromServer, Writer: fromClient}
}

// TestSloppyServerResults: results real servers send that stray from the
// spec still reach the model as something it can use, and failures say
// what the server said.
func TestSloppyServerResults(t *testing.T) {
	answers := map[string]string{
		"null_content":     `"result":{"content":null,"structuredContent":{"answer":42}}`,
		"no_content":       `"result":{"structuredContent":{"answer":42}}`,
		"empty_content":    `"result":{"content":[],"structuredContent":{"answer":42}}`,
		"nothing":          `"result":{}`,
		"error_no_text":    `"result":{"isError":true}`,
		"rpc_error":        `"error":{"code":-32603,"message":"workspace name cannot be empty"}`,
		"summary_and_data": `"result":{"content":[{"type":"text","text":"Scraped 1 URL."}],"structuredContent":{"chunks":["evidence"]}}`,
		"unknown_type":     `"result":{"content":[{"type":"text","text":"ok"},{"type":"video","uri":"x"}]}`,
		"image_no_mime":    `"result":{"content":[{"type":"image","data":"iVBORw0KGgo="}]}`,
		"link_no_name":     `"result":{"content":[{"type":"resource_link","uri":"file:///a.txt"}]}`,
	}
	var list []map[string]any
	for name := range answers {
		list = append(list, map[string]any{"name": name, "inputSchema": map[string]any{"type": "object"},
			"annotations": map[string]any{"readOnlyHint": true, "openWorldHint": false}})
	}
	b, err := json.Marshal(list)
	require.NoError(t, err)
	ctx := context.Background()
	c, err := Connect(ctx, ServerConfig{Name: "raw", Transport: rawServer(t, string(b), func(name string) string { return answers[name] })})
	require.NoError(t, err)
	defer c.Close()
	var reg tools.Registry
	_, err = c.Register(ctx, &reg)
	require.NoError(t, err)

	for _, tc := range []struct {
		tool    string
		isError bool
		want    []string
	}{
		{"null_content", false, []string{`"answer": 42`}},
		{"no_content", false, []string{`"answer": 42`}},
		{"empty_content", false, []string{`"answer": 42`}},
		{"nothing", false, []string{"The tool returned no content."}},
		{"error_no_text", true, []string{"The tool failed without saying why."}},
		{"rpc_error", true, []string{"workspace name cannot be empty"}},
		{"summary_and_data", false, []string{"Scraped 1 URL.", "Structured result:", "evidence"}},
		{"unknown_type", false, []string{"ok\n[content of a type Tether does not know (\"video\"): {\"type\":\"video\",\"uri\":\"x\"}]"}},
		{"image_no_mime", false, []string{"[image"}},
		{"link_no_name", false, []string{"[resource link: file:///a.txt"}},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			res := call(t, &reg, "raw__"+tc.tool, `{}`)
			assert.Equal(t, tc.isError, res.IsError, res.Text)
			for _, w := range tc.want {
				assert.Contains(t, res.Text, w)
			}
		})
	}
}

// TestSloppyToolLists: one malformed tool in a server's list costs that
// tool, not the server.
func TestSloppyToolLists(t *testing.T) {
	for _, tc := range []struct {
		name, list string
		want       []string
	}{
		{"no input schema", `[{"name":"no_schema"},{"name":"ok","inputSchema":{"type":"object"}}]`, []string{"raw__no_schema", "raw__ok"}},
		{"input schema not an object", `[{"name":"bad","inputSchema":{"type":"string"}},{"name":"ok","inputSchema":{"type":"object"}}]`, []string{"raw__ok"}},
		{"duplicate names", `[{"name":"twice","inputSchema":{"type":"object"}},{"name":"twice","inputSchema":{"type":"object"}},{"name":"ok","inputSchema":{"type":"object"}}]`, []string{"raw__twice", "raw__ok"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			c, err := Connect(ctx, ServerConfig{Name: "raw", Transport: rawServer(t, tc.list, func(string) string {
				return `"result":{"content":[{"type":"text","text":"ran"}]}`
			})})
			require.NoError(t, err)
			defer c.Close()
			var reg tools.Registry
			names, err := c.Register(ctx, &reg)
			require.NoError(t, err)
			for _, w := range tc.want {
				assert.Contains(t, names, w, "skipped: %v", c.Skipped())
			}
		})
	}
}

// replacingWriter rewrites what a handler writes, so that a test server
// built with the SDK can send a part no SDK would.
type replacingWriter struct {
	http.ResponseWriter
	old, new []byte
}

func (w replacingWriter) Write(p []byte) (int, error) {
	if _, err := w.ResponseWriter.Write(bytes.ReplaceAll(p, w.old, w.new)); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (w replacingWriter) Flush() { w.ResponseWriter.(http.Flusher).Flush() }

// TestUnknownContentOverHTTP: over streamable HTTP (event stream or JSON
// replies) and legacy SSE too, an unknown content part is described and
// the rest of the result kept.
func TestUnknownContentOverHTTP(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "future", Version: "1"}, nil)
	srv.AddTool(&sdk.Tool{Name: "clip", InputSchema: map[string]any{"type": "object"}, Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: closedWorld()}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "caption"}, &sdk.TextContent{Text: "VIDEO_PART"}}}, nil
		})
	get := func(*http.Request) *sdk.Server { return srv }
	old, new := []byte(`{"type":"text","text":"VIDEO_PART"}`), []byte(`{"type":"video","uri":"v://1"}`)
	for _, tc := range []struct {
		name    string
		handler http.Handler
		path    string
		legacy  bool
	}{
		{"streamable, event stream", sdk.NewStreamableHTTPHandler(get, nil), "/mcp", false},
		{"streamable, JSON replies", sdk.NewStreamableHTTPHandler(get, &sdk.StreamableHTTPOptions{JSONResponse: true}), "/mcp", false},
		{"legacy SSE", sdk.NewSSEHandler(get, nil), "/sse", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				tc.handler.ServeHTTP(replacingWriter{w, old, new}, r)
			}))
			defer hs.Close()
			ctx := context.Background()
			c, err := Connect(ctx, ServerConfig{Name: "future", URL: hs.URL + tc.path, LegacySSE: tc.legacy})
			require.NoError(t, err)
			defer c.Close()
			var reg tools.Registry
			_, err = c.Register(ctx, &reg)
			require.NoError(t, err)
			res := call(t, &reg, "future__clip", `{}`)
			require.False(t, res.IsError, res.Text)
			assert.Equal(t, "caption\n[content of a type Tether does not know (\"video\"): {\"type\":\"video\",\"uri\":\"v://1\"}]", res.Text)
		})
	}
}
