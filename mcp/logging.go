package mcp

import (
	"context"
	"log/slog"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Server log messages (notifications/message) go to ServerConfig.Logger
// at the slog level that matches the MCP level; the client asks the
// server for the least severe level the logger records, so a server does
// not send what would be thrown away.

// slogLevel maps an MCP (syslog) level to slog.
func slogLevel(l sdk.LoggingLevel) slog.Level {
	switch l {
	case "debug":
		return slog.LevelDebug
	case "info", "notice":
		return slog.LevelInfo
	case "warning":
		return slog.LevelWarn
	default: // error, critical, alert, emergency, and anything unknown
		return slog.LevelError
	}
}

// mcpLevel is the MCP level matching the least severe level l records.
func mcpLevel(ctx context.Context, l *slog.Logger) sdk.LoggingLevel {
	switch {
	case l.Enabled(ctx, slog.LevelDebug):
		return "debug"
	case l.Enabled(ctx, slog.LevelInfo):
		return "info"
	case l.Enabled(ctx, slog.LevelWarn):
		return "warning"
	}
	return "error"
}

// startServerLog chooses the level to ask the server for, when a logger
// is configured and the server logs. Servers on protocol versions before
// 2026-07-28 are told once (logging/setLevel, a refusal is logged, not
// fatal); later ones read it from each call's _meta (see Tool.Execute).
func (c *Client) startServerLog(ctx context.Context) {
	init := c.session.InitializeResult()
	if c.cfg.Logger == nil || init == nil || init.Capabilities == nil || init.Capabilities.Logging == nil {
		return
	}
	c.logLevel = mcpLevel(ctx, c.cfg.Logger)
	if init.ProtocolVersion >= "2026-07-28" {
		return
	}
	if err := c.session.SetLoggingLevel(ctx, &sdk.SetLoggingLevelParams{Level: c.logLevel}); err != nil {
		c.cfg.Logger.WarnContext(ctx, "mcp server refused a log level", "server", c.cfg.Name, "error", err.Error())
	}
}

// serverLog is the client's LoggingMessageHandler.
func (c *Client) serverLog(ctx context.Context, req *sdk.LoggingMessageRequest) {
	if c.cfg.Logger == nil || req == nil || req.Params == nil {
		return
	}
	p := req.Params
	attrs := []any{"server", c.cfg.Name}
	if p.Logger != "" {
		attrs = append(attrs, "logger", p.Logger)
	}
	msg := "mcp server log"
	if s, ok := p.Data.(string); ok {
		msg = s
	} else {
		attrs = append(attrs, "data", p.Data)
	}
	c.cfg.Logger.Log(ctx, slogLevel(p.Level), msg, attrs...)
}
