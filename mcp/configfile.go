package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/tetherdev/tether/internal/lazyregexp"
)

// The config file: the JSON format MCP hosts share. Claude Desktop and
// Cursor keep servers under "mcpServers", VS Code (.vscode/mcp.json) under
// "servers"; each server has either a command (with args, env, cwd) or a
// url (with headers, and a type of "http", "streamable-http" or "sse").
//
//	{"mcpServers": {
//	  "github": {"command": "github-mcp-server", "args": ["stdio"],
//	             "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}},
//	  "docs":   {"url": "https://example.com/mcp",
//	             "headers": {"Authorization": "Bearer ${env:DOCS_TOKEN}"}}
//	}}
//
// Strings may use ${VAR} and ${env:VAR} (the host's environment),
// ${VAR:-default}, ${workspaceFolder} and ${userHome}. A variable that is
// not set is an error naming the field, so a missing token is found at
// startup rather than as a 401 later. A server with "disabled": true is
// skipped; "timeout" (milliseconds) sets its call timeout. Other keys are
// ignored, so files written for other hosts load as they are.

// ConfigOptions tell LoadConfig how to expand variables.
type ConfigOptions struct {
	// LookupEnv reads the environment; nil uses os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// WorkspaceFolder is what ${workspaceFolder} means; empty makes its
	// use an error.
	WorkspaceFolder string
}

type fileServer struct {
	Type     string            `json:"type"`
	Command  string            `json:"command"`
	Args     []string          `json:"args"`
	Env      map[string]string `json:"env"`
	Cwd      string            `json:"cwd"`
	URL      string            `json:"url"`
	Headers  map[string]string `json:"headers"`
	Disabled bool              `json:"disabled"`
	Timeout  float64           `json:"timeout"`
	// AllowOpenWorld sets Rules.AllowOpenWorld: the host trusts this
	// server's read-only open-world tools to run unasked.
	AllowOpenWorld bool `json:"allowOpenWorld"`
}

// LoadConfig reads a config file (see ParseConfig).
func LoadConfig(path string, opts ConfigOptions) ([]ServerConfig, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("mcp: read config: %w", err)
	}
	cfgs, err := ParseConfig(data, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return cfgs, nil
}

// ParseConfig reads the servers of a config file, in name order, as
// ServerConfigs with their connection fields set; trust (Rules, Confirm)
// and hooks are the host's to add. Errors wrap ErrConfig and name the
// field ("mcpServers.github.env.TOKEN: ...").
func ParseConfig(data []byte, opts ConfigOptions) ([]ServerConfig, error) {
	var top struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
		Servers    map[string]json.RawMessage `json:"servers"`
	}
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("%w: not a JSON object with \"mcpServers\" or \"servers\": %v", ErrConfig, err)
	}
	if top.MCPServers == nil && top.Servers == nil {
		return nil, fmt.Errorf("%w: no \"mcpServers\" (Claude Desktop, Cursor) or \"servers\" (VS Code) object", ErrConfig)
	}
	if opts.LookupEnv == nil {
		opts.LookupEnv = os.LookupEnv
	}
	var out []ServerConfig
	for _, section := range []struct {
		key  string
		list map[string]json.RawMessage
	}{{"mcpServers", top.MCPServers}, {"servers", top.Servers}} {
		for _, name := range slices.Sorted(maps.Keys(section.list)) {
			at := section.key + "." + name
			cfg, skip, err := parseServer(name, at, section.list[name], opts)
			if err != nil {
				return nil, err
			}
			if !skip {
				out = append(out, cfg)
			}
		}
	}
	return out, nil
}

func parseServer(name, at string, raw json.RawMessage, opts ConfigOptions) (ServerConfig, bool, error) {
	bad := func(field, format string, args ...any) error {
		if field != "" {
			field = "." + field
		}
		return fmt.Errorf("%w: %s%s: %s", ErrConfig, at, field, fmt.Sprintf(format, args...))
	}
	var fs fileServer
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&fs); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return ServerConfig{}, false, bad(te.Field, "is a JSON %s, want %s", te.Value, jsonKind(te.Type.Kind().String()))
		}
		return ServerConfig{}, false, bad("", "want an object: %v", err)
	}
	if fs.Disabled {
		return ServerConfig{}, true, nil
	}
	if !serverNameRE.MatchString(name) || strings.Contains(name, "__") {
		return ServerConfig{}, false, bad("", "the server name becomes its tools' prefix: use 1-40 letters, digits, '_' or '-', without \"__\"")
	}
	x := expander{opts: opts}
	cfg := ServerConfig{Name: name}
	switch {
	case fs.Command != "" && fs.URL != "":
		return cfg, false, bad("", "set either command (a local server) or url (a remote one), not both")
	case fs.Command != "":
		if fs.Type != "" && fs.Type != "stdio" {
			return cfg, false, bad("type", "%q does not go with command (use \"stdio\" or leave it out)", fs.Type)
		}
		cfg.Command = x.expand("command", fs.Command)
		for i, a := range fs.Args {
			cfg.Args = append(cfg.Args, x.expand(fmt.Sprintf("args[%d]", i), a))
		}
		for _, k := range slices.Sorted(maps.Keys(fs.Env)) {
			cfg.Env = append(cfg.Env, k+"="+x.expand("env."+k, fs.Env[k]))
		}
		cfg.Dir = x.expand("cwd", fs.Cwd)
	case fs.URL != "":
		switch fs.Type {
		case "", "http", "streamable-http", "streamableHttp":
		case "sse":
			cfg.LegacySSE = true
		default:
			return cfg, false, bad("type", "%q: want \"http\", \"streamable-http\" or \"sse\" for a url server", fs.Type)
		}
		cfg.URL = x.expand("url", fs.URL)
		if !strings.HasPrefix(cfg.URL, "http://") && !strings.HasPrefix(cfg.URL, "https://") && x.err == nil {
			return cfg, false, bad("url", "%q: want an http:// or https:// URL", cfg.URL)
		}
		if len(fs.Headers) > 0 {
			cfg.Header = http.Header{}
			for k, v := range fs.Headers {
				cfg.Header.Set(k, x.expand("headers."+k, v))
			}
		}
	default:
		return cfg, false, bad("", "set command (a local server) or url (a remote one)")
	}
	if x.err != nil {
		return cfg, false, bad(x.field, "%v", x.err)
	}
	if fs.Timeout < 0 {
		return cfg, false, bad("timeout", "must be a positive number of milliseconds")
	}
	cfg.CallTimeout = time.Duration(fs.Timeout * float64(time.Millisecond))
	cfg.Rules.AllowOpenWorld = fs.AllowOpenWorld
	return cfg, false, nil
}

func jsonKind(k string) string {
	switch k {
	case "slice":
		return "an array of strings"
	case "map":
		return "an object of strings"
	case "float64":
		return "a number"
	}
	return "a " + k
}

var varRE = lazyregexp.New(`\$\{([^}]*)\}`)

// expander expands variables, keeping the first error and its field.
type expander struct {
	opts  ConfigOptions
	err   error
	field string
}

func (x *expander) expand(field, s string) string {
	return varRE.ReplaceAllStringFunc(s, func(m string) string {
		v, err := x.lookup(m[2 : len(m)-1])
		if err != nil && x.err == nil {
			x.err, x.field = err, field
		}
		return v
	})
}

func (x *expander) lookup(name string) (string, error) {
	switch {
	case name == "workspaceFolder":
		if x.opts.WorkspaceFolder == "" {
			return "", errors.New("${workspaceFolder} is used but no workspace folder is known")
		}
		return x.opts.WorkspaceFolder, nil
	case name == "userHome":
		return os.UserHomeDir()
	case strings.HasPrefix(name, "input:"):
		return "", fmt.Errorf("${%s}: VS Code input prompts are not supported; use ${env:NAME} instead", name)
	}
	name = strings.TrimPrefix(name, "env:")
	name, def, hasDef := strings.Cut(name, ":-")
	if v, ok := x.opts.LookupEnv(name); ok && v != "" {
		return v, nil
	}
	if hasDef {
		return def, nil
	}
	return "", fmt.Errorf("environment variable %s is not set", name)
}
