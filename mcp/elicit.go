package mcp

import (
	"context"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/safety"
)

// ElicitRequest is a server's request for input from the user: a form
// (Mode "form": Message and a JSON Schema of flat fields in Schema) or a
// page to visit (Mode "url": Message and URL, where the user does
// something the client must not see, such as entering a password).
type ElicitRequest struct {
	Server  string
	Mode    string
	Message string
	Schema  any
	URL     string
}

// ElicitResult is the user's answer: Action "accept" (with Content for a
// form), "decline" or "cancel".
type ElicitResult struct {
	Action  string
	Content map[string]any
}

// ElicitFunc asks the user and returns their answer; an error is sent to
// the server as a failed request.
type ElicitFunc func(ctx context.Context, req ElicitRequest) (ElicitResult, error)

// elicit is the client's ElicitationHandler. Without an ElicitFunc a URL
// request is shown to the Approver (allowing it means the person was
// shown the URL and will visit it) and a form is declined: an approver can
// say yes or no but cannot fill in fields.
func (c *Client) elicit(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	p := req.Params
	r := ElicitRequest{Server: c.cfg.Name, Mode: p.Mode, Message: p.Message, Schema: p.RequestedSchema, URL: p.URL}
	if r.Mode == "" {
		r.Mode = "form"
	}
	if c.cfg.Elicit != nil {
		res, err := c.cfg.Elicit(ctx, r)
		if err != nil {
			return nil, err
		}
		return &sdk.ElicitResult{Action: res.Action, Content: res.Content}, nil
	}
	decline := &sdk.ElicitResult{Action: "decline"}
	if r.Mode != "url" || c.cfg.Approver == nil {
		c.logRefusal(ctx, "elicitation ("+r.Mode+")", "declined: no way to ask the user")
		return decline, nil
	}
	resp, err := c.cfg.Approver.Approve(ctx, approval.Request{
		Kind: approval.KindOther, ToolName: c.cfg.Name + "__elicitation",
		Summary:  "MCP server " + c.cfg.Name + " asks you to open " + r.URL + "\n" + r.Message,
		Decision: safety.Confirm, Reasons: []string{"the server needs something done outside this client"},
	})
	if err != nil || !resp.Allowed() {
		c.logRefusal(ctx, "elicitation (url)", "declined by the approver")
		return decline, nil
	}
	return &sdk.ElicitResult{Action: "accept"}, nil
}
