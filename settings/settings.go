// Package settings reads the settings Tether's programs share: the model,
// command rules, sensitive files, the sandbox, MCP and language servers,
// modes, disabled tools and web domains, written once and read by every
// host (the coder, web and headless examples, an editor agent) through
// Load.
//
// # Files and precedence
//
// Three files are read, each optional, in this order:
//
//	user     $XDG_CONFIG_HOME/tether/settings.json (os.UserConfigDir()/tether when XDG_CONFIG_HOME is unset)
//	project  WORKSPACE/.tether/settings.json        shared with the repository
//	local    WORKSPACE/.tether/settings.local.json  this machine only; keep it out of git
//
// and the host's flags come last (Settings.Override). A later scalar
// replaces an earlier one; lists are joined, so a deny rule holds
// whichever file says it; maps (mcpServers, lspServers, modes) merge by
// name, a later entry replacing an earlier one of the same name.
//
// The files are JSON with comments and trailing commas (JWCC). Every
// error names the file, the line and column, the field and what is
// allowed (see Error); a field Tether does not know is an error, so a
// misspelt setting is not silently ignored.
//
// # Trust
//
// A project's files arrive with the repository, and a model working in
// it may write them. So the fields that loosen what a person is asked
// (allow rules, allowReadOnly, autoApproveSensitiveEdits, sandbox "off",
// web.allow) and the ones that start programs (mcpServers, lspServers)
// apply from the project and local files only once the user has trusted
// those files as they are now (Trust records their SHA-256 under the
// user's config directory); any change to a file needs trusting again.
// Until then Load leaves those fields out and lists them in
// Loaded.Untrusted, so a host can say what it ignored. What only
// tightens (deny and ask rules, sensitive files, disabled tools, modes)
// always applies. The user's own file is always trusted.
package settings

import (
	"encoding/json"
	"fmt"
	"time"
)

// Settings are the contents of one settings file, or the merge of
// several. The zero value sets nothing: every host keeps its defaults.
type Settings struct {
	// Schema is the JSON Schema an editor validates the file with; Tether
	// ignores it.
	Schema string `json:"$schema,omitempty" jsonschema:"description=URL or path of the JSON Schema editors check this file with"`
	// Model is the model to use: ollama:NAME, openai:NAME or script:FILE.
	Model string `json:"model,omitempty" jsonschema:"description=ollama:NAME (server from OLLAMA_HOST)\\, openai:NAME (OPENAI_BASE_URL) or script:FILE,pattern=^(ollama|openai|script):.+$"`
	// ModelOptions tune the model.
	ModelOptions ModelOptions `json:"modelOptions,omitzero" jsonschema:"description=options passed to the model"`
	// ToolCalling is how tool calls travel between the agent and the
	// model: "native" (the server's tool API), "text" (calls written in
	// the reply) or "envelope" (one fenced JSON action block per reply,
	// writes staged then applied by token, for small models). Unset, the
	// host picks from what the model reports.
	ToolCalling string `json:"toolCalling,omitempty" jsonschema:"enum=native,enum=text,enum=envelope,description=how tool calls travel: native (the server's tool API)\\, text (written in the reply) or envelope (one fenced JSON action block per reply\\, for small models); unset picks from the model"`
	// Mode is the mode a new session starts in: a built-in one (agent,
	// explore, plan, review) or one of Modes.
	Mode string `json:"mode,omitempty" jsonschema:"description=mode a new session starts in: agent\\, explore\\, plan\\, review or a name from modes"`
	// Permissions are the command rules.
	Permissions Permissions `json:"permissions,omitzero" jsonschema:"description=which commands run without asking\\, which always ask and which never run"`
	// SensitiveFiles are doublestar globs (relative to the workspace, as
	// in .gitignore) of files whose changes need approval, on top of the
	// built-in ones (.env, keys, CI workflows…), which cannot be loosened.
	SensitiveFiles []string `json:"sensitiveFiles,omitempty" jsonschema:"description=globs of files whose changes need approval\\, added to the built-in ones"`
	// SecretFiles are globs of files that even reading needs approval
	// for, since their content would reach the model.
	SecretFiles []string `json:"secretFiles,omitempty" jsonschema:"description=globs of files that even reading needs approval for"`
	// AutoApproveSensitiveEdits lets file tools change sensitive files
	// without asking. Reading secrets and commands still ask.
	AutoApproveSensitiveEdits *bool `json:"autoApproveSensitiveEdits,omitempty" jsonschema:"description=change sensitive files without asking (reading secrets still asks)"`
	// Sandbox confines commands with Landlock: "auto" where the kernel
	// supports it, "on" (fail when it cannot) or "off".
	Sandbox string `json:"sandbox,omitempty" jsonschema:"enum=auto,enum=on,enum=off,description=confine commands to the workspace with Landlock"`
	// ApprovalTimeout is how long a question waits before the action is
	// denied, as a Go duration ("5m", "90s").
	ApprovalTimeout Duration `json:"approvalTimeout,omitzero" jsonschema:"type=string,pattern=^([0-9]+(\\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$,description=how long an approval waits before it denies\\, e.g. 5m"`
	// MCPServers are the MCP servers whose tools are offered, in the
	// mcpServers format Claude Desktop, Cursor and Gemini CLI share.
	MCPServers map[string]MCPServer `json:"mcpServers,omitempty" jsonschema:"description=MCP servers whose tools are offered as SERVER__TOOL (the common mcpServers format)"`
	// LSP turns on the code-intelligence tools.
	LSP *bool `json:"lsp,omitempty" jsonschema:"description=offer the code-intelligence tools (find_definition\\, find_references…) served by language servers"`
	// LSPServers add or replace language servers, by name ("gopls").
	LSPServers map[string]LSPServer `json:"lspServers,omitempty" jsonschema:"description=language servers to use\\, by name; a built-in name replaces that server"`
	// Modes add modes or replace built-in ones, by name.
	Modes map[string]Mode `json:"modes,omitempty" jsonschema:"description=modes to add (or built-in ones to replace) with their tools and prompt"`
	// DisabledTools are tools never offered to the model.
	DisabledTools []string `json:"disabledTools,omitempty" jsonschema:"description=tools never offered to the model\\, by name"`
	// Web configures read_webpage.
	Web Web `json:"web,omitzero" jsonschema:"description=domains read_webpage may reach"`
}

// ModelOptions tune the model.
type ModelOptions struct {
	// NumCtx is the context window in tokens (Ollama's num_ctx); 0 keeps
	// the server's default.
	NumCtx int `json:"numCtx,omitempty" jsonschema:"minimum=0,maximum=10000000,description=context window in tokens (Ollama num_ctx)"`
	// Temperature overrides the model's sampling temperature.
	Temperature *float64 `json:"temperature,omitempty" jsonschema:"minimum=0,maximum=2,description=sampling temperature"`
}

// Permissions are command rules in Tether's syntax (see
// safety.CommandRules: "go test", "git log:*") or Claude Code's
// ("Bash(npm run test:*)"). Precedence is deny, then ask, then allow.
type Permissions struct {
	Allow []string `json:"allow,omitempty" jsonschema:"description=commands that run without asking: a word prefix such as go test or Bash(npm run:*)"`
	Ask   []string `json:"ask,omitempty" jsonschema:"description=commands that always ask\\, even when an allow rule matches"`
	Deny  []string `json:"deny,omitempty" jsonschema:"description=commands that never run"`
	// AllowReadOnly runs read-only commands (ls, cat, git status…)
	// without asking; hosts default it to true.
	AllowReadOnly *bool `json:"allowReadOnly,omitempty" jsonschema:"description=run read-only commands (ls\\, cat\\, git status…) without asking"`
}

// MCPServer is one server of the mcpServers map: a command to start
// (stdio) or a URL (streamable HTTP or SSE). Keys other hosts add
// ("trust", "alwaysAllow"…) are kept and ignored, so a file written for
// them loads as it is.
type MCPServer struct {
	Type     string            `json:"type,omitempty" jsonschema:"enum=stdio,enum=http,enum=streamable-http,enum=sse,description=transport; default stdio with command\\, http with url"`
	Command  string            `json:"command,omitempty" jsonschema:"description=program to start (stdio)"`
	Args     []string          `json:"args,omitempty"`
	Env      map[string]string `json:"env,omitempty" jsonschema:"description=environment of the server; ${VAR} and ${VAR:-default} are expanded"`
	Cwd      string            `json:"cwd,omitempty"`
	URL      string            `json:"url,omitempty" jsonschema:"description=endpoint of an HTTP or SSE server"`
	Headers  map[string]string `json:"headers,omitempty"`
	Disabled bool              `json:"disabled,omitempty"`
	Timeout  float64           `json:"timeout,omitempty" jsonschema:"minimum=0,description=call timeout in milliseconds"`

	// raw is the entry as written (standard JSON), other hosts' keys
	// included; MCPConfig hands it to the MCP package unchanged.
	raw json.RawMessage
}

// LSPServer is a language server: a command and the file extensions it
// serves with their LSP language ids.
type LSPServer struct {
	Command   string            `json:"command" jsonschema:"required,description=program to start\\, looked up on PATH"`
	Args      []string          `json:"args,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
	Languages map[string]string `json:"languages,omitempty" jsonschema:"description=file extension (with the dot) to LSP language id\\, e.g. {\".go\": \"go\"}; optional for a server Tether knows (gopls…)"`
}

// Mode is a mode the model can be put in: the tools it is offered and
// what its prompt adds.
type Mode struct {
	Description string `json:"description,omitempty"`
	// Prompt is added to the system prompt in this mode.
	Prompt string `json:"prompt,omitempty" jsonschema:"description=added to the system prompt in this mode"`
	// Tools, when not empty, are the only tools offered.
	Tools []string `json:"tools,omitempty" jsonschema:"description=the only tools offered in this mode; empty offers all"`
	// ReadOnly offers and runs only tools that change nothing.
	ReadOnly bool `json:"readOnly,omitempty" jsonschema:"description=offer only tools that change nothing"`
}

// Web says which domains read_webpage may reach; each covers its
// subdomains, "*" is every public domain.
type Web struct {
	Allow []string `json:"allow,omitempty" jsonschema:"description=domains read without asking (each with its subdomains); * for every public one"`
	Deny  []string `json:"deny,omitempty" jsonschema:"description=domains never read"`
}

// Duration is a time.Duration written as a Go duration string ("5m").
type Duration time.Duration

// MarshalJSON writes d as a duration string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// UnmarshalJSON reads a duration string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("want a duration string such as \"5m\"")
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%q is not a duration; write e.g. \"90s\" or \"5m\"", s)
	}
	*d = Duration(v)
	return nil
}
