package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tetherdev/tether/approval"
	"github.com/tetherdev/tether/llm"
	"github.com/tetherdev/tether/safety"
)

// Sampling: a server asks the host's model to write something (a summary,
// a classification). The request goes to ServerConfig.SamplingModel only
// after Approver allowed it, and the answer goes back only after Approver
// allowed that too, so the person sees what the server asked and what it
// will receive. Without an Approver every request is refused.

// ErrSamplingDenied is returned to a server whose sampling request, or
// its answer, was not approved.
var ErrSamplingDenied = errors.New("sampling request denied by the user")

// sample is the client's CreateMessageHandler.
func (c *Client) sample(ctx context.Context, req *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
	p := req.Params
	if p == nil || len(p.Messages) == 0 {
		return nil, errors.New("sampling request has no messages")
	}
	var lr llm.Request
	var shown strings.Builder
	if p.SystemPrompt != "" {
		lr.Messages = append(lr.Messages, llm.Message{Role: llm.RoleSystem, Content: p.SystemPrompt})
		fmt.Fprintf(&shown, "system: %s\n", p.SystemPrompt)
	}
	for _, m := range p.Messages {
		msg := llm.Message{Role: llm.RoleUser}
		if m.Role == "assistant" {
			msg.Role = llm.RoleAssistant
		}
		if img, ok := imageOf(m.Content); ok {
			msg.Images = []llm.Image{img}
		}
		msg.Content = describeContent(m.Content, c.cfg.Name)
		lr.Messages = append(lr.Messages, msg)
		fmt.Fprintf(&shown, "%s: %s\n", msg.Role, msg.Content)
	}
	if p.Temperature != 0 {
		lr.Temperature = &p.Temperature
	}
	if err := c.approve(ctx, "MCP server "+c.cfg.Name+" asks your model to answer:\n"+shown.String(),
		"the server's sampling request"); err != nil {
		return nil, err
	}
	resp, err := llm.Collect(c.cfg.SamplingModel.Chat(ctx, lr))
	if err != nil {
		return nil, fmt.Errorf("the host's model failed to answer: %w", err)
	}
	answer := resp.Message.Content
	if err := c.approve(ctx, "Send this answer from your model to MCP server "+c.cfg.Name+"?\n"+answer,
		"the model's answer to a sampling request"); err != nil {
		return nil, err
	}
	stop := "endTurn"
	if resp.StopReason == llm.StopLength {
		stop = "maxTokens"
	}
	return &sdk.CreateMessageResult{Role: "assistant", Content: &sdk.TextContent{Text: answer},
		Model: modelName(c.cfg.SamplingModel), StopReason: stop}, nil
}

// approve asks the Approver about one sampling step; an error when there
// is none, it says no, or it fails.
func (c *Client) approve(ctx context.Context, summary, what string) error {
	if c.cfg.Approver == nil {
		c.logRefusal(ctx, what, "no approver configured")
		return fmt.Errorf("%w: no approver is configured to show %s to", ErrSamplingDenied, what)
	}
	resp, err := c.cfg.Approver.Approve(ctx, approval.Request{
		Kind: approval.KindOther, ToolName: c.cfg.Name + "__sampling", Summary: summary,
		Decision: safety.Confirm, Reasons: []string{"MCP server " + c.cfg.Name + " wants to use the host's model"},
	})
	if err != nil {
		c.logRefusal(ctx, what, err.Error())
		return fmt.Errorf("%w: %v", ErrSamplingDenied, err)
	}
	if !resp.Allowed() {
		c.logRefusal(ctx, what, "denied: "+resp.Message)
		return fmt.Errorf("%w: %s", ErrSamplingDenied, firstNonEmpty(resp.Message, "not approved"))
	}
	return nil
}

func (c *Client) logRefusal(ctx context.Context, what, why string) {
	if c.cfg.Logger != nil {
		c.cfg.Logger.WarnContext(ctx, "mcp request refused", "server", c.cfg.Name, "request", what, "reason", why)
	}
}

// modelName is the model's name for the server's records: what the model
// reports about itself when it can, else its Go type.
func modelName(m llm.Model) string {
	if n, ok := m.(interface{ Name() string }); ok {
		return n.Name()
	}
	return fmt.Sprintf("%T", m)
}
