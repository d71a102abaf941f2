package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tetherdev/tether/tools"
)

// Resource tools: a server's resources (and resource templates) reach the
// model through two tools per server, "<server>__mcp_list_resources" and
// "<server>__mcp_read_resource", registered with the server's own tools
// when it has resources. A resource link in a tool result names the read
// tool, so the model can follow it. Reading a resource changes nothing on
// the server, so both tools are judged as read-only tools of that server
// (Rules and the environment still apply: see decide).

const (
	listResourcesTool = "mcp_list_resources"
	readResourceTool  = "mcp_read_resource"
)

// ResourceUpdate says that a resource the client subscribed to changed.
type ResourceUpdate struct {
	Server string
	URI    string
}

// resourceTools returns the two resource tools, or none when the server
// offers no resources.
func (c *Client) resourceTools() []*Tool {
	init := c.session.InitializeResult()
	if init == nil || init.Capabilities == nil || init.Capabilities.Resources == nil {
		return nil
	}
	// Not a server's claim but the protocol's: resources/list and
	// resources/read only read what the server offers.
	closed := false
	readOnly := &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &closed}
	list := c.newTool(c.cfg.Name+"__"+listResourcesTool, listResourcesTool,
		"List the resources (files, records, documents) that MCP server "+c.cfg.Name+
			" offers, with their URIs, and the URI templates it can fill",
		[]byte(`{"type":"object","properties":{}}`), readOnly)
	list.local = func(ctx context.Context, _ json.RawMessage) (tools.Result, error) { return c.listResources(ctx) }
	read := c.newTool(c.cfg.Name+"__"+readResourceTool, readResourceTool,
		"Read one resource of MCP server "+c.cfg.Name+" by URI (from its resource list, a filled URI template, or a resource link a tool returned)",
		[]byte(`{"type":"object","properties":{"uri":{"type":"string","description":"the resource's URI"}},"required":["uri"]}`), readOnly)
	read.local = func(ctx context.Context, args json.RawMessage) (tools.Result, error) {
		var a struct {
			URI string `json:"uri"`
		}
		if err := json.Unmarshal(args, &a); err != nil || strings.TrimSpace(a.URI) == "" {
			return tools.Result{IsError: true, Text: `read_resource needs {"uri": "<resource URI>"}; list the URIs with ` +
				c.cfg.Name + "__" + listResourcesTool}, nil
		}
		return c.readResource(ctx, a.URI)
	}
	return []*Tool{list, read}
}

func (c *Client) listResources(ctx context.Context) (tools.Result, error) {
	var b strings.Builder
	n := 0
	for r, err := range c.session.Resources(ctx, nil) {
		if err != nil {
			return tools.Result{}, c.fail("list resources", err)
		}
		if n == 0 {
			b.WriteString("Resources:\n")
		}
		n++
		fmt.Fprintf(&b, "- %s", r.URI)
		if label := firstNonEmpty(r.Title, r.Name); label != "" {
			fmt.Fprintf(&b, " (%s)", label)
		}
		if r.MIMEType != "" {
			fmt.Fprintf(&b, " [%s]", r.MIMEType)
		}
		if r.Description != "" {
			fmt.Fprintf(&b, ": %s", oneLine(r.Description))
		}
		b.WriteByte('\n')
	}
	t := 0
	for r, err := range c.session.ResourceTemplates(ctx, nil) {
		if err != nil {
			return tools.Result{}, c.fail("list resource templates", err)
		}
		if t == 0 {
			b.WriteString("URI templates (fill the {placeholders}, then read the URI):\n")
		}
		t++
		fmt.Fprintf(&b, "- %s", r.URITemplate)
		if label := firstNonEmpty(r.Title, r.Name); label != "" {
			fmt.Fprintf(&b, " (%s)", label)
		}
		if r.Description != "" {
			fmt.Fprintf(&b, ": %s", oneLine(r.Description))
		}
		b.WriteByte('\n')
	}
	if n+t == 0 {
		return tools.Result{Text: "MCP server " + c.cfg.Name + " lists no resources."}, nil
	}
	out := tools.Result{Text: strings.TrimRight(b.String(), "\n")}
	return limitText(out, c.cfg.MaxOutput), nil
}

func (c *Client) readResource(ctx context.Context, uri string) (tools.Result, error) {
	res, err := c.session.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
	if err != nil {
		if ctx.Err() != nil {
			return tools.Result{}, err
		}
		// A wrong URI is the model's mistake to fix, not a broken server.
		return tools.Result{IsError: true, Text: fmt.Sprintf("MCP server %q could not read %s: %s", c.cfg.Name, uri,
			strings.TrimPrefix(err.Error(), "mcp: "))}, nil
	}
	cr := &sdk.CallToolResult{}
	for _, rc := range res.Contents {
		cr.Content = append(cr.Content, &sdk.EmbeddedResource{Resource: rc})
	}
	deliverMedia(ctx, c.cfg.OnMedia, cr, c.cfg.Name, c.cfg.Name+"__"+readResourceTool)
	return convertResult(cr, c.cfg.Name, c.cfg.MaxOutput), nil
}

// Subscribe asks the server to report changes of the resource at uri;
// each arrives as a call of ServerConfig.OnResourceUpdated.
func (c *Client) Subscribe(ctx context.Context, uri string) error {
	if err := c.session.Subscribe(ctx, &sdk.SubscribeParams{URI: uri}); err != nil {
		return c.fail("subscribe to "+uri, err)
	}
	return nil
}

// Unsubscribe ends a subscription made with Subscribe.
func (c *Client) Unsubscribe(ctx context.Context, uri string) error {
	if err := c.session.Unsubscribe(ctx, &sdk.UnsubscribeParams{URI: uri}); err != nil {
		return c.fail("unsubscribe from "+uri, err)
	}
	return nil
}

func (c *Client) resourceUpdated(_ context.Context, req *sdk.ResourceUpdatedNotificationRequest) {
	if c.cfg.OnResourceUpdated == nil || req == nil || req.Params == nil {
		return
	}
	c.cfg.OnResourceUpdated(ResourceUpdate{Server: c.cfg.Name, URI: req.Params.URI})
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
