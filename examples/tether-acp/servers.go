package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/tetherdev/tether/acp"
	"github.com/tetherdev/tether/mcp"
	"github.com/tetherdev/tether/tools"
)

// mountMCP connects the MCP servers the editor handed the session through
// Tether's MCP client and registers their tools as SERVER__TOOL; each
// server gets the session's directory as its only root. Their calls are
// judged like any other tool's. The returned func stops them.
func mountMCP(ctx context.Context, env acp.SessionEnv, root string, reg *tools.Registry, logger *slog.Logger) (func(), error) {
	var clients []*mcp.Client
	stop := func() {
		for i := len(clients) - 1; i >= 0; i-- {
			if err := clients[i].Close(); err != nil {
				logger.Warn("acp: stopping an MCP server", "server", clients[i].Name(), "err", err)
			}
		}
	}
	for _, s := range env.MCPServers {
		cfg := mcp.ServerConfig{Name: s.Name, Command: s.Command, Args: s.Args, Env: s.Env, Dir: root,
			URL: s.URL, LegacySSE: s.Transport == "sse", Roots: []string{root}, Logger: logger}
		if len(s.Headers) > 0 {
			cfg.Header = http.Header{}
			for k, v := range s.Headers {
				cfg.Header.Set(k, v)
			}
		}
		c, err := mcp.Connect(ctx, cfg)
		if err != nil {
			stop()
			return nil, fmt.Errorf("MCP server %q: %w", s.Name, err)
		}
		clients = append(clients, c)
		names, err := c.Register(ctx, reg)
		if err != nil {
			stop()
			return nil, fmt.Errorf("MCP server %q: %w", s.Name, err)
		}
		logger.Info("acp: MCP server from the editor started", "server", s.Name, "tools", len(names))
	}
	return stop, nil
}

// openAIAuthMethod is the one way to authenticate an openai: model: the
// key in the agent's environment, which the editor's agent settings set.
const openAIAuthMethod = "openai-api-key"

func openAIAuth() *acp.Auth {
	desc := "Set OPENAI_API_KEY in the agent's environment (the \"env\" of its entry in the editor's agent settings), then restart the agent."
	return &acp.Auth{
		Methods: []sdk.AuthMethod{{Agent: &sdk.AuthMethodAgent{Id: openAIAuthMethod, Name: "OpenAI API key", Description: &desc}}},
		Ready: func() error {
			if os.Getenv("OPENAI_API_KEY") == "" && os.Getenv("OPENAI_BASE_URL") == "" {
				return errors.New("OPENAI_API_KEY is not set in the agent's environment")
			}
			return nil
		},
		Authenticate: func(_ context.Context, method string) error {
			if method != openAIAuthMethod {
				return fmt.Errorf("unknown method %q: this agent offers %q", method, openAIAuthMethod)
			}
			if os.Getenv("OPENAI_API_KEY") == "" && os.Getenv("OPENAI_BASE_URL") == "" {
				return errors.New("OPENAI_API_KEY is still not set: set it in the agent's environment and restart the agent")
			}
			return nil
		},
	}
}
