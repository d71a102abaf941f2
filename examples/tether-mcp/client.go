package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	neturl "net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/tetherdev/tether/mcp"
)

// clientFlags are the flags the client subcommands share.
type clientFlags struct {
	url        string
	sse        bool
	config     string
	server     string
	allowTool  string
	headers    multiFlag
	env        multiFlag
	inheritEnv bool
	roots      multiFlag
	timeout    time.Duration
	grace      time.Duration
	verbose    bool
	mediaDir   string
	// media is set by serverConfig when -save-media is given.
	media *mediaSaver
}

func (c *clientFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.url, "url", "", "remote endpoint of the server (streamable HTTP, falling back to legacy HTTP+SSE)")
	fs.BoolVar(&c.sse, "sse", false, "with -url: speak the legacy HTTP+SSE transport only")
	fs.StringVar(&c.config, "mcp-config", "", "read the server from this JSON file (\"mcpServers\" as in Claude Desktop and Cursor, or VS Code's \"servers\")")
	fs.StringVar(&c.server, "server", "", "with -mcp-config: the server to use, when the file has several")
	fs.StringVar(&c.allowTool, "allow-tool", "", "comma-separated tool name patterns that run without confirmation")
	fs.Var(&c.headers, "header", "'Name: value' sent with every HTTP request (repeatable)")
	fs.Var(&c.env, "env", "KEY=value given to a command server (repeatable); it gets only HOME, LOGNAME, PATH, SHELL, TERM, USER besides")
	fs.BoolVar(&c.inheritEnv, "inherit-env", false, "give a command server this process's whole environment, secrets included")
	fs.Var(&c.roots, "root", "directory offered to the server as a root (repeatable; default: the current directory)")
	fs.DurationVar(&c.timeout, "timeout", 0, "bound each tool call, e.g. 30s (0: no limit)")
	fs.DurationVar(&c.grace, "grace", 500*time.Millisecond, "how long a command server may take to exit after its input closes before it is terminated")
	fs.BoolVar(&c.verbose, "v", false, "log connection events and the server's own log messages to standard error")
	fs.StringVar(&c.mediaDir, "save-media", "", "write the audio and binary resources of results to this existing directory as media-N.EXT (the output describes them in a line, as the model sees them)")
}

// multiFlag is a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ", ") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// serverConfig builds the server's config from the flags, the config
// file and the command after "--".
func (c *clientFlags) serverConfig(fs *flag.FlagSet, stderr io.Writer) (mcp.ServerConfig, error) {
	command := fs.Args()
	sources := 0
	for _, set := range []bool{c.url != "", len(command) > 0, c.config != ""} {
		if set {
			sources++
		}
	}
	if sources != 1 {
		return mcp.ServerConfig{}, errors.New("give the server one way: -url URL, -mcp-config FILE, or a command after --")
	}
	cfg := mcp.ServerConfig{Name: serverName(command, c.url), URL: c.url, LegacySSE: c.sse}
	if len(command) > 0 {
		cfg.Command, cfg.Args = command[0], command[1:]
	}
	if c.config != "" {
		wd, _ := os.Getwd()
		cfgs, err := mcp.LoadConfig(c.config, mcp.ConfigOptions{WorkspaceFolder: wd})
		if err != nil {
			return cfg, err
		}
		if cfg, err = pick(cfgs, c.server, c.config); err != nil {
			return cfg, err
		}
	}
	for _, h := range c.headers {
		k, v, ok := strings.Cut(h, ":")
		if !ok {
			return cfg, fmt.Errorf("-header %q: want 'Name: value'", h)
		}
		if cfg.Header == nil {
			cfg.Header = http.Header{}
		}
		cfg.Header.Set(strings.TrimSpace(k), strings.TrimSpace(v))
	}
	cfg.Env = append(cfg.Env, c.env...)
	cfg.InheritEnv = cfg.InheritEnv || c.inheritEnv
	if c.allowTool != "" {
		cfg.Rules.Allow = strings.Split(c.allowTool, ",")
	}
	if c.timeout > 0 {
		cfg.CallTimeout = c.timeout
	}
	cfg.TerminateGrace = c.grace
	cfg.Roots = nil
	for _, r := range c.roots {
		abs, err := filepath.Abs(r)
		if err != nil {
			return cfg, fmt.Errorf("-root %s: %w", r, err)
		}
		cfg.Roots = append(cfg.Roots, abs)
	}
	if len(cfg.Roots) == 0 {
		if wd, err := os.Getwd(); err == nil {
			cfg.Roots = []string{wd}
		}
	}
	if c.verbose {
		cfg.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	if c.mediaDir != "" {
		if st, err := os.Stat(c.mediaDir); err != nil || !st.IsDir() {
			return cfg, fmt.Errorf("-save-media %s: not an existing directory", c.mediaDir)
		}
		c.media = &mediaSaver{dir: c.mediaDir, stderr: stderr}
		cfg.OnMedia = c.media.save
	}
	return cfg, nil
}

// launchers run the package or script named by their first argument
// that is not a flag, which names the server better than they do.
var launchers = map[string]bool{"npx": true, "bunx": true, "uvx": true, "pnpx": true, "node": true, "python": true,
	"python3": true, "uv": true, "deno": true, "bun": true, "go": true, "docker": true, "npm": true, "pipx": true}

// serverName names a server given on the command line, for its tools'
// descriptions and the log: the command ("mcp-server-memory"), the
// package a launcher runs ("server-memory" for "npx -y
// @modelcontextprotocol/server-memory@1.0"), or the URL's host; "server"
// when nothing usable is left.
func serverName(command []string, url string) string {
	name := ""
	switch {
	case len(command) > 0:
		name = filepath.Base(command[0])
		if launchers[strings.TrimSuffix(name, filepath.Ext(name))] {
			for _, a := range command[1:] {
				if !strings.HasPrefix(a, "-") && a != "run" && a != "exec" && a != "x" {
					name = a
					break
				}
			}
		}
		if at := strings.LastIndex(name, "@"); at > 0 {
			name = name[:at] // a version: pkg@1.2
		}
		name = path.Base(filepath.ToSlash(name))
		name = strings.TrimSuffix(name, filepath.Ext(name))
	case url != "":
		if u, err := neturl.Parse(url); err == nil {
			name = u.Hostname()
		}
	}
	clean := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			return r
		}
		return '-'
	}, name)
	clean = strings.Trim(clean, "-")
	if len(clean) > 40 {
		clean = clean[:40]
	}
	if clean == "" {
		return "server"
	}
	return clean
}

// pick chooses the named server of a config file, or its only one.
func pick(cfgs []mcp.ServerConfig, name, file string) (mcp.ServerConfig, error) {
	names := make([]string, len(cfgs))
	for i, c := range cfgs {
		names[i] = c.Name
		if c.Name == name {
			return c, nil
		}
	}
	switch {
	case name != "":
		return mcp.ServerConfig{}, fmt.Errorf("-server %s: %s has no such server (it has: %s)", name, file, strings.Join(names, ", "))
	case len(cfgs) == 1:
		return cfgs[0], nil
	case len(cfgs) == 0:
		return mcp.ServerConfig{}, fmt.Errorf("%s lists no enabled server", file)
	}
	return mcp.ServerConfig{}, fmt.Errorf("%s has several servers (%s): choose one with -server", file, strings.Join(names, ", "))
}

func (c *clientFlags) connect(ctx context.Context, fs *flag.FlagSet, stderr io.Writer, confirm mcp.Confirmer) (*mcp.Client, error) {
	cfg, err := c.serverConfig(fs, stderr)
	if err != nil {
		return nil, err
	}
	cfg.Confirm = confirm
	return mcp.Connect(ctx, cfg)
}
