// Package mcpmount gives the agent examples their -mcp-config flag: it
// starts the MCP servers a config file lists and offers their tools to
// the agent, each server's under its own name as namespace
// ("github__create_issue").
//
// The file is the mcpServers JSON format editors share (Claude Desktop,
// Cursor, VS Code's "servers"; see mcp.ParseConfig). Every server is
// offered the workspace as its only root, and ${workspaceFolder} in the
// file means the workspace. Calls are judged by the agent like any other
// tool's: without allow rules, a server's tools are confirm-level.
package mcpmount

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/tetherdev/tether/mcp"
	"github.com/tetherdev/tether/tools"
)

// Usage is the help text of the -mcp-config flag.
const Usage = "start the MCP servers listed in `FILE` (the mcpServers JSON format of Claude Desktop, Cursor and VS Code) and offer their tools as SERVER__TOOL; each gets the workspace as its root"

// Servers are the running servers of one config file.
type Servers struct {
	clients []*mcp.Client
	tools   []string
}

// Mount starts every enabled server of the config file and registers its
// tools in reg. root is the workspace. If any server cannot be started
// or listed, the ones already started are stopped and the error names
// the server. logger receives the servers' own log messages.
func Mount(ctx context.Context, file, root string, reg *tools.Registry, logger *slog.Logger) (*Servers, error) {
	cfgs, err := mcp.LoadConfig(file, mcp.ConfigOptions{WorkspaceFolder: root})
	if err != nil {
		return nil, err
	}
	return start(ctx, cfgs, file, root, reg, logger)
}

// MountData is Mount for an mcpServers document held in memory (the
// settings' mcpServers); source names it in errors.
func MountData(ctx context.Context, data []byte, source, root string, reg *tools.Registry, logger *slog.Logger) (*Servers, error) {
	cfgs, err := mcp.ParseConfig(data, mcp.ConfigOptions{WorkspaceFolder: root})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	return start(ctx, cfgs, source, root, reg, logger)
}

func start(ctx context.Context, cfgs []mcp.ServerConfig, file, root string, reg *tools.Registry, logger *slog.Logger) (*Servers, error) {
	s := &Servers{}
	for _, cfg := range cfgs {
		cfg.Roots, cfg.Logger = []string{root}, logger
		c, err := mcp.Connect(ctx, cfg)
		if err != nil {
			return nil, errors.Join(fmt.Errorf("%s: %w", file, err), s.Close())
		}
		s.clients = append(s.clients, c)
		names, err := c.Register(ctx, reg)
		if err != nil {
			return nil, errors.Join(fmt.Errorf("%s: %w", file, err), s.Close())
		}
		s.tools = append(s.tools, names...)
		logger.Info("mcp: server started", "server", cfg.Name, "tools", len(names))
	}
	return s, nil
}

// Tools are the names of the tools registered, in the order of the
// servers.
func (s *Servers) Tools() []string { return s.tools }

// Close stops every server (a stdio server's process ends).
func (s *Servers) Close() error {
	var errs []error
	for i := len(s.clients) - 1; i >= 0; i-- {
		if err := s.clients[i].Close(); err != nil {
			errs = append(errs, fmt.Errorf("closing MCP server %q: %w", s.clients[i].Name(), err))
		}
	}
	s.clients = nil
	return errors.Join(errs...)
}
