package mcp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tetherdev/tether/llm"
)

// Prompt is a prompt template a server offers, for a host to show as a
// slash command ("/<server>:<name>") and fill with GetPrompt.
type Prompt struct {
	Server      string
	Name        string
	Title       string
	Description string
	Arguments   []PromptArgument
}

// PromptArgument is one named value a prompt takes.
type PromptArgument struct {
	Name        string
	Description string
	Required    bool
}

// Prompts lists the server's prompts; none when it offers no prompts.
func (c *Client) Prompts(ctx context.Context) ([]Prompt, error) {
	init := c.session.InitializeResult()
	if init == nil || init.Capabilities == nil || init.Capabilities.Prompts == nil {
		return nil, nil
	}
	var out []Prompt
	for p, err := range c.session.Prompts(ctx, nil) {
		if err != nil {
			return nil, c.fail("list prompts", err)
		}
		pr := Prompt{Server: c.cfg.Name, Name: p.Name, Title: p.Title, Description: p.Description}
		for _, a := range p.Arguments {
			pr.Arguments = append(pr.Arguments, PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
		}
		out = append(out, pr)
	}
	return out, nil
}

// GetPrompt fills the prompt name with args and returns its messages,
// ready to be added to a conversation: text as Content, images as Images,
// embedded resources as text, anything else described in a line. A
// missing required argument is an error naming it, before the server is
// asked.
func (c *Client) GetPrompt(ctx context.Context, name string, args map[string]string) ([]llm.Message, error) {
	prompts, err := c.Prompts(ctx)
	if err != nil {
		return nil, err
	}
	var found *Prompt
	for i := range prompts {
		if prompts[i].Name == name {
			found = &prompts[i]
		}
	}
	if found == nil {
		names := make([]string, len(prompts))
		for i, p := range prompts {
			names[i] = p.Name
		}
		return nil, fmt.Errorf("mcp: server %q has no prompt %q (it has: %s)", c.cfg.Name, name, strings.Join(names, ", "))
	}
	for _, a := range found.Arguments {
		if a.Required && args[a.Name] == "" {
			return nil, fmt.Errorf("mcp: prompt %q of server %q needs argument %q: %s", name, c.cfg.Name, a.Name, a.Description)
		}
	}
	if c.cfg.CallTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.cfg.CallTimeout)
		defer cancel()
	}
	res, err := c.session.GetPrompt(ctx, &sdk.GetPromptParams{Name: name, Arguments: args})
	if err != nil {
		return nil, c.fail("get prompt "+name, err)
	}
	out := make([]llm.Message, 0, len(res.Messages))
	for _, m := range res.Messages {
		msg := llm.Message{Role: llm.RoleUser}
		if m.Role == "assistant" {
			msg.Role = llm.RoleAssistant
		}
		if img, ok := imageOf(m.Content); ok {
			msg.Images = append(msg.Images, img)
		} else {
			msg.Content = describeContent(m.Content, c.cfg.Name)
		}
		out = append(out, msg)
	}
	return out, nil
}
