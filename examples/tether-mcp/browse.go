package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tetherdev/tether/mcp"
	"github.com/tetherdev/tether/tools"
)

// resources and prompts: what a server offers besides tools.

// connectFor parses the flags of subcommand name and connects to the
// server they name, for the subcommands that only read from it.
func connectFor(ctx context.Context, name string, args []string, stderr io.Writer) (*mcp.Client, *options, error) {
	fs, o := newFlagSet(name, stderr)
	if err := fs.Parse(args); err != nil {
		return nil, nil, err
	}
	c, err := o.client.connect(ctx, fs, stderr, nil)
	return c, o, err
}

func resources(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, o, err := connectFor(ctx, "resources", args, stderr)
	if err != nil {
		return err
	}
	defer c.Close()
	var reg tools.Registry
	if _, err := c.Register(ctx, &reg); err != nil {
		return err
	}
	name, callArgs := c.Name()+"__mcp_list_resources", "{}"
	if o.uri != "" {
		b, _ := json.Marshal(map[string]string{"uri": o.uri})
		name, callArgs = c.Name()+"__mcp_read_resource", string(b)
	}
	if _, _, err := reg.Lookup(name); err != nil {
		return errors.New("the server offers no resources")
	}
	// Reading resources changes nothing: no confirmation is asked.
	res := reg.Execute(mcp.WithApproved(ctx), tools.Call{Name: name, Arguments: json.RawMessage(callArgs)})
	if res.IsError {
		fmt.Fprintln(stderr, res.Text)
		return toolFailed{}
	}
	fmt.Fprintln(stdout, res.Text)
	return o.client.media.failed()
}

func prompts(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, o, err := connectFor(ctx, "prompts", args, stderr)
	if err != nil {
		return err
	}
	defer c.Close()
	if o.name == "" {
		ps, err := c.Prompts(ctx)
		if err != nil {
			return err
		}
		for _, p := range ps {
			var params []string
			for _, a := range p.Arguments {
				if a.Required {
					params = append(params, a.Name)
				} else {
					params = append(params, "["+a.Name+"]")
				}
			}
			fmt.Fprintf(stdout, "/%s %s\t%s\n", p.Name, strings.Join(params, " "), p.Description)
		}
		return nil
	}
	values := map[string]string{}
	for _, kv := range o.arguments {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return fmt.Errorf("-arg %q: want KEY=VALUE", kv)
		}
		values[k] = v
	}
	msgs, err := c.GetPrompt(ctx, o.name, values)
	if err != nil {
		return err
	}
	for _, m := range msgs {
		fmt.Fprintf(stdout, "%s: %s\n", m.Role, m.Content)
		if len(m.Images) > 0 {
			fmt.Fprintf(stdout, "%s: (%d images)\n", m.Role, len(m.Images))
		}
	}
	return nil
}
