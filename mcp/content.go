package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/tools"
)

// DefaultMaxOutput bounds the text of one MCP tool result handed to the
// model; what is cut is counted in Meta.OmittedLines and flagged with
// Meta.Truncated.
const DefaultMaxOutput = 64 << 10

// metaKey is where a Tether server puts tools.Meta in a result's _meta, so
// that a Tether client can give hosts the same structured information.
const metaKey = "tether/meta"

// convertResult renders an MCP result for the model: text parts verbatim;
// images as Result.Images (for models that see them) plus a line of text
// (for those that do not); other parts described in one line; structured
// content as JSON unless a text part already is that JSON (servers are
// asked to send both). Audio and binary resources are described in a
// line; their bytes are for the host (see Media).
func convertResult(res *sdk.CallToolResult, server string, limit int) tools.Result {
	var parts []string
	out := tools.Result{IsError: res.IsError}
	for _, c := range res.Content {
		parts = append(parts, describeContent(c, server))
		if img, ok := imageOf(c); ok {
			out.Images = append(out.Images, img)
		}
	}
	_, fromTether := res.Meta[metaKey]
	// A Tether server's structured content is its tools.Meta, which goes
	// to Result.Meta rather than to the model.
	if res.StructuredContent != nil && !fromTether {
		if b, err := json.Marshal(res.StructuredContent); err == nil && !textIsJSON(parts, b) {
			var pretty bytes.Buffer
			_ = json.Indent(&pretty, b, "", "  ")
			if len(parts) > 0 {
				parts = append(parts, "Structured result:")
			}
			parts = append(parts, pretty.String())
		}
	}
	if m, ok := res.Meta[metaKey]; ok {
		if b, err := json.Marshal(m); err == nil {
			_ = json.Unmarshal(b, &out.Meta) // best effort: a foreign _meta is not ours to validate
		}
	}
	out.Text = strings.Join(parts, "\n")
	if out.Text == "" {
		if res.IsError {
			out.Text = "The tool failed without saying why."
		} else {
			out.Text = "The tool returned no content."
		}
	}
	return limitText(out, limit)
}

// limitText cuts r.Text to limit bytes (DefaultMaxOutput when limit ≤ 0)
// at a line end, saying how much is missing.
func limitText(r tools.Result, limit int) tools.Result {
	if limit <= 0 {
		limit = DefaultMaxOutput
	}
	text := r.Text
	if len(text) <= limit {
		return r
	}
	cut := strings.LastIndexByte(text[:limit], '\n')
	if cut <= 0 {
		cut = limit
	}
	omitted := strings.Count(text[cut:], "\n") + 1
	r.Text = fmt.Sprintf("%s\n[output truncated: %d more lines (%d bytes) not shown]", text[:cut], omitted, len(text)-cut)
	r.Meta.Truncated = true
	r.Meta.OmittedLines = omitted
	return r
}

// textIsJSON reports whether one of the text parts is the JSON b, or the
// value of b's only field: structured content must be an object, so a
// server whose text is a JSON array or scalar wraps it in one
// ({"entities":[…]} beside the text [{…}]), and the model need not read
// the same data twice.
func textIsJSON(parts []string, b []byte) bool {
	var want any
	if json.Unmarshal(b, &want) != nil {
		return false
	}
	candidates := []any{want}
	if obj, ok := want.(map[string]any); ok && len(obj) == 1 {
		for _, v := range obj {
			candidates = append(candidates, v)
		}
	}
	for _, p := range parts {
		var got any
		if json.Unmarshal([]byte(p), &got) != nil {
			continue
		}
		for _, w := range candidates {
			if reflect.DeepEqual(got, w) {
				return true
			}
		}
	}
	return false
}

// imageOf returns an image part (or an embedded image resource) as an
// llm.Image.
func imageOf(c sdk.Content) (llm.Image, bool) {
	switch c := c.(type) {
	case *sdk.ImageContent:
		return llm.Image{MIMEType: c.MIMEType, Data: c.Data}, len(c.Data) > 0
	case *sdk.EmbeddedResource:
		if c.Resource != nil && len(c.Resource.Blob) > 0 && strings.HasPrefix(c.Resource.MIMEType, "image/") {
			return llm.Image{MIMEType: c.Resource.MIMEType, Data: c.Resource.Blob}, true
		}
	}
	return llm.Image{}, false
}

func describeContent(c sdk.Content, server string) string {
	switch c := c.(type) {
	case *sdk.TextContent:
		return c.Text
	case *sdk.ImageContent:
		return fmt.Sprintf("[image: %s, %d bytes]", c.MIMEType, len(c.Data))
	case *sdk.AudioContent:
		return describeAudio(c.MIMEType, c.Data)
	case *sdk.ResourceLink:
		s := "[resource link: " + c.URI
		if c.Name != "" {
			s += " (" + c.Name + ")"
		}
		if c.Description != "" {
			s += ": " + oneLine(c.Description)
		}
		return s + "; read it with " + server + "__" + readResourceTool + "]"
	case *sdk.EmbeddedResource:
		if c.Resource == nil {
			return "[embedded resource]"
		}
		if c.Resource.Text != "" {
			return fmt.Sprintf("[resource %s]\n%s", c.Resource.URI, c.Resource.Text)
		}
		if text, ok := blobText(c.Resource); ok {
			return fmt.Sprintf("[resource %s]\n%s", c.Resource.URI, text)
		}
		if _, ok := imageOf(c); ok {
			return fmt.Sprintf("[resource %s: %s, %s, shown as an image]", c.Resource.URI, c.Resource.MIMEType, byteSize(len(c.Resource.Blob)))
		}
		return fmt.Sprintf("[resource %s: %s, %s of binary data, not passed to the model]", c.Resource.URI, c.Resource.MIMEType, byteSize(len(c.Resource.Blob)))
	}
	b, err := json.Marshal(c)
	if err != nil {
		return fmt.Sprintf("[%T content]", c)
	}
	return string(b)
}
