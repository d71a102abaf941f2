package mcp

import (
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tetherdev/tether/tools"
)

// DefaultMaxOutput bounds the text of one MCP tool result handed to the
// model; what is cut is counted in Meta.OmittedLines and flagged with
// Meta.Truncated.
const DefaultMaxOutput = 64 << 10

// metaKey is where a Tether server puts tools.Meta in a result's _meta, so
// that a Tether client can give hosts the same structured information.
const metaKey = "tether/meta"

// convertResult renders an MCP result as text for the model: text parts
// verbatim, other parts described in one line (their bytes mean nothing
// to a text model), structured content as JSON when there is nothing else.
func convertResult(res *sdk.CallToolResult, limit int) tools.Result {
	if limit <= 0 {
		limit = DefaultMaxOutput
	}
	var parts []string
	for _, c := range res.Content {
		parts = append(parts, describeContent(c))
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if b, err := json.MarshalIndent(res.StructuredContent, "", "  "); err == nil {
			parts = append(parts, string(b))
		}
	}
	text := strings.Join(parts, "\n")
	out := tools.Result{IsError: res.IsError}
	if m, ok := res.Meta[metaKey]; ok {
		if b, err := json.Marshal(m); err == nil {
			_ = json.Unmarshal(b, &out.Meta) // best effort: a foreign _meta is not ours to validate
		}
	}
	if text == "" {
		if res.IsError {
			text = "The tool failed without saying why."
		} else {
			text = "The tool returned no content."
		}
	}
	if len(text) > limit {
		cut := strings.LastIndexByte(text[:limit], '\n')
		if cut <= 0 {
			cut = limit
		}
		omitted := strings.Count(text[cut:], "\n") + 1
		text = fmt.Sprintf("%s\n[output truncated: %d more lines (%d bytes) not shown]", text[:cut], omitted, len(text)-cut)
		out.Meta.Truncated = true
		out.Meta.OmittedLines = omitted
	}
	out.Text = text
	return out
}

func describeContent(c sdk.Content) string {
	switch c := c.(type) {
	case *sdk.TextContent:
		return c.Text
	case *sdk.ImageContent:
		return fmt.Sprintf("[image: %s, %d bytes]", c.MIMEType, len(c.Data))
	case *sdk.AudioContent:
		return fmt.Sprintf("[audio: %s, %d bytes]", c.MIMEType, len(c.Data))
	case *sdk.ResourceLink:
		s := "[resource link: " + c.URI
		if c.Name != "" {
			s += " (" + c.Name + ")"
		}
		if c.Description != "" {
			s += ": " + c.Description
		}
		return s + "]"
	case *sdk.EmbeddedResource:
		if c.Resource == nil {
			return "[embedded resource]"
		}
		if c.Resource.Text != "" {
			return fmt.Sprintf("[resource %s]\n%s", c.Resource.URI, c.Resource.Text)
		}
		return fmt.Sprintf("[resource %s: %s, %d bytes of binary data]", c.Resource.URI, c.Resource.MIMEType, len(c.Resource.Blob))
	}
	b, err := json.Marshal(c)
	if err != nil {
		return fmt.Sprintf("[%T content]", c)
	}
	return string(b)
}
