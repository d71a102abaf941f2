package mcp

import (
	"context"
	"encoding/json"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/tetherdev/tether/tools"
)

// TestForeignSchemas: the input schemas that the common server SDKs
// generate (Python's pydantic with $defs and anyOf-null, TypeScript's zod
// with draft-07 and additionalProperties false) register, and calls reach
// the server with arguments fitted to them, or are refused with a reason.
func TestForeignSchemas(t *testing.T) {
	schemas := map[string]string{
		"pydantic": `{"type":"object","properties":{"item":{"$ref":"#/$defs/Item"},"note":{"anyOf":[{"type":"string"},{"type":"null"}],"default":null,"title":"Note"}},"required":["item"],"$defs":{"Item":{"type":"object","properties":{"name":{"type":"string"},"qty":{"type":"integer"}},"required":["name"]}},"title":"add_itemArguments"}`,
		"zod":      `{"type":"object","properties":{"path":{"type":"string"},"n":{"type":"number","default":3},"tags":{"type":"array","items":{"type":"string"}}},"required":["path"],"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"}`,
		"empty":    `{"type":"object","properties":{}}`,
		"enum":     `{"type":"object","properties":{"mode":{"type":"string","enum":["fast","slow"]}},"required":["mode"]}`,
		"nested":   `{"type":"object","properties":{"filter":{"type":"object","properties":{"since":{"type":"string","format":"date-time"},"limit":{"type":"integer","minimum":1}}}}}`,
		"oneof":    `{"type":"object","properties":{"target":{"oneOf":[{"type":"string"},{"type":"integer"}]}},"required":["target"]}`,
	}
	srv := sdk.NewServer(&sdk.Implementation{Name: "py", Version: "1"}, nil)
	for name, s := range schemas {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(s), &m))
		srv.AddTool(&sdk.Tool{Name: name, InputSchema: m, Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: closedWorld()}},
			func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(req.Params.Arguments)}}}, nil
			})
	}
	c := connectInProcess(t, srv, ServerConfig{Name: "py"})
	var reg tools.Registry
	names, err := c.Register(context.Background(), &reg)
	require.NoError(t, err)
	assert.Len(t, names, len(schemas), "skipped: %v", c.Skipped())

	cases := []struct {
		tool, args string
		sent       string // the arguments the server received; "" when refused
		refusal    string
	}{
		{"pydantic", `{"item":{"name":"x"},"note":null}`, `{"item":{"name":"x"},"note":null}`, ""},
		{"zod", `{"path":"a","tags":"x"}`, `{"n":3,"path":"a","tags":["x"]}`, ""},
		{"zod", `{"path":"a","n":"2.5"}`, `{"n":2.5,"path":"a"}`, ""},
		{"zod", `{"path":"a","extra":1}`, `{"n":3,"path":"a"}`, ""}, // what the schema forbids is not sent
		{"empty", ``, `{}`, ""},
		{"enum", `{"mode":"medium"}`, "", `"mode" must be one of "fast", "slow"`},
		{"nested", `{"filter":{"limit":"5"}}`, `{"filter":{"limit":5}}`, ""},
		{"oneof", `{"target":5}`, `{"target":5}`, ""},
		{"oneof", `{"target":"x"}`, `{"target":"x"}`, ""},
	}
	for _, tc := range cases {
		t.Run(tc.tool+" "+tc.args, func(t *testing.T) {
			res := call(t, &reg, "py__"+tc.tool, tc.args)
			if tc.refusal != "" {
				assert.True(t, res.IsError)
				assert.Contains(t, res.Text, tc.refusal)
				return
			}
			require.False(t, res.IsError, res.Text)
			assert.JSONEq(t, tc.sent, res.Text)
		})
	}
}
