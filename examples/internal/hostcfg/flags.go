// Package hostcfg gives the agent examples (coder, web, headless, acp) one
// flag vocabulary and one way to read settings: each flag is defined
// once, in the table here, with one name, one meaning and one help
// line, and every flag the user sets overrides the settings files
// (see package settings), which override the examples' defaults.
package hostcfg

import (
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tetherdev/tether/settings"
)

// A flag of the table. Set applies a value to the settings the flags
// make; a flag whose Set is nil holds a value of its own (-workspace,
// -trust, -db…), read through Values.
type entry struct {
	name, arg, usage string
	boolean          bool
	set              func(s *settings.Settings, v string) error
}

// table is every shared flag, in the order -h lists them.
var table = []entry{
	{name: "workspace", arg: "DIR", usage: "DIR the agent works in; every file tool is confined to it (default: the current directory)"},
	{name: "model", arg: "MODEL", usage: "the MODEL: ollama:NAME (OLLAMA_HOST), openai:NAME (OPENAI_BASE_URL, OPENAI_API_KEY) or script:FILE, a scripted model for offline runs (settings: model)",
		set: func(s *settings.Settings, v string) error {
			if err := settings.CheckModel(v); err != nil {
				return err
			}
			s.Model = v
			return nil
		}},
	{name: "mode", arg: "MODE", usage: "the MODE a new session starts in: agent, explore, plan, review or one of the settings' modes (settings: mode)",
		set: func(s *settings.Settings, v string) error { s.Mode = v; return nil }},
	{name: "num-ctx", arg: "TOKENS", usage: "context window in TOKENS to ask an Ollama model for (settings: modelOptions.numCtx)",
		set: func(s *settings.Settings, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 {
				return fmt.Errorf("want a positive number of tokens, e.g. 16384")
			}
			s.ModelOptions.NumCtx = n
			return nil
		}},
	{name: "temperature", arg: "T", usage: "sampling temperature T, 0 to 2, sent with every model request (settings: modelOptions.temperature)",
		set: func(s *settings.Settings, v string) error {
			t, err := strconv.ParseFloat(v, 64)
			if err != nil || t < 0 || t > 2 {
				return fmt.Errorf("want a number from 0 to 2, e.g. 0.2")
			}
			s.ModelOptions.Temperature = &t
			return nil
		}},
	{name: "tool-calling", arg: "HOW", usage: "HOW tool calls travel: native (the server's tool API), text (written in the reply) or envelope (one fenced JSON action block per reply, writes staged then applied by token, 6 rounds, for small models); unset picks from the model (settings: toolCalling)",
		set: func(s *settings.Settings, v string) error {
			if !slices.Contains(toolCallings, v) {
				return fmt.Errorf("want %s", strings.Join(toolCallings, ", "))
			}
			s.ToolCalling = v
			return nil
		}},
	{name: "wire-log", arg: "FILE", usage: "append every HTTP request and response to the model server to FILE as JSON lines (keys redacted), for debugging"},
	{name: "allow", arg: "RULES", usage: "comma-separated command RULES that run without asking, e.g. 'go test,npm run test' (settings: permissions.allow; both apply)",
		set: rules("allow", func(s *settings.Settings) *[]string { return &s.Permissions.Allow })},
	{name: "ask", arg: "RULES", usage: "comma-separated command RULES that always ask (settings: permissions.ask)",
		set: rules("ask", func(s *settings.Settings) *[]string { return &s.Permissions.Ask })},
	{name: "deny", arg: "RULES", usage: "comma-separated command RULES that never run (settings: permissions.deny)",
		set: rules("deny", func(s *settings.Settings) *[]string { return &s.Permissions.Deny })},
	{name: "allow-read-only", boolean: true, usage: "run read-only commands (ls, cat, git status…) without asking; default true (settings: permissions.allowReadOnly)",
		set: func(s *settings.Settings, v string) error {
			b, err := strconv.ParseBool(v)
			s.Permissions.AllowReadOnly = &b
			return err
		}},
	{name: "sandbox", arg: "auto|on|off", usage: `confine commands with Landlock (auto|on|off) to the workspace: "auto" where the kernel can, "on" (fail when it cannot) or "off" (settings: sandbox)`,
		set: func(s *settings.Settings, v string) error {
			if v != "auto" && v != "on" && v != "off" {
				return fmt.Errorf("want auto, on or off")
			}
			s.Sandbox = v
			return nil
		}},
	{name: "approval-timeout", arg: "DURATION", usage: "DURATION a question waits before the action is denied, e.g. 5m (settings: approvalTimeout)",
		set: func(s *settings.Settings, v string) error {
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return fmt.Errorf("want a positive duration such as 90s or 5m")
			}
			s.ApprovalTimeout = settings.Duration(d)
			return nil
		}},
	{name: "lsp", boolean: true, usage: "offer the code-intelligence tools (find_definition, find_references…), served by installed language servers (settings: lsp, lspServers)",
		set: func(s *settings.Settings, v string) error {
			b, err := strconv.ParseBool(v)
			s.LSP = &b
			return err
		}},
	{name: "web-allow", arg: "DOMAINS", usage: `comma-separated DOMAINS read_webpage may read without asking, each with its subdomains; "*" for every public one (settings: web.allow)`,
		set: domains(func(s *settings.Settings) *[]string { return &s.Web.Allow }, true)},
	{name: "web-deny", arg: "DOMAINS", usage: "comma-separated DOMAINS read_webpage never reads (settings: web.deny)",
		set: domains(func(s *settings.Settings) *[]string { return &s.Web.Deny }, false)},
	{name: "disable-tools", arg: "NAMES", usage: "comma-separated tool NAMES never offered to the model (settings: disabledTools)",
		set: func(s *settings.Settings, v string) error {
			for _, t := range split(v) {
				s.DisabledTools = append(s.DisabledTools, t)
			}
			return nil
		}},
	{name: "trust", boolean: true, usage: "trust this workspace's .tether/settings.json and settings.local.json as they are now, so their allow rules, MCP and language servers apply (remembered until a file changes)"},
}

// toolCallings are the values of -tool-calling, as the settings' enum.
var toolCallings = []string{"native", "text", "envelope"}

func rules(list string, field func(*settings.Settings) *[]string) func(*settings.Settings, string) error {
	return func(s *settings.Settings, v string) error {
		for _, r := range split(v) {
			if _, err := settings.CommandRule(list, r); err != nil {
				return err
			}
			*field(s) = append(*field(s), r)
		}
		return nil
	}
}

func domains(field func(*settings.Settings) *[]string, star bool) func(*settings.Settings, string) error {
	return func(s *settings.Settings, v string) error {
		for _, d := range split(v) {
			if d == "*" && star {
				*field(s) = append(*field(s), d)
				continue
			}
			if strings.ContainsAny(d, "/:*@ ") {
				return fmt.Errorf("%q: want a bare host name such as example.com", d)
			}
			*field(s) = append(*field(s), d)
		}
		return nil
	}
}

func split(v string) []string {
	var out []string
	for p := range strings.SplitSeq(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// Flags are the shared flags one example registered, and what was given.
type Flags struct {
	// Workspace is -workspace; "." unless given.
	Workspace string
	// Trust is -trust.
	Trust bool
	// WireLog is -wire-log: the file to log the model's HTTP traffic to,
	// or "" (see OpenWireLog).
	WireLog string
	// Over are the settings the flags given make, applied last.
	Over settings.Settings
	// Set names the flags given.
	Set map[string]bool

	names []string
}

// Register adds the named flags of the table to fs. It panics on a name
// the table does not have: that is a mistake in the example.
func Register(fs *flag.FlagSet, names ...string) *Flags {
	f := &Flags{Workspace: ".", Set: map[string]bool{}, names: names}
	for _, n := range names {
		e, ok := lookup(n)
		if !ok {
			panic("hostcfg: no flag " + n)
		}
		usage := e.usage
		if e.arg != "" {
			// The flag package names the argument by the first
			// back-quoted word of the help.
			usage = strings.Replace(usage, e.arg, "`"+e.arg+"`", 1)
		}
		switch {
		case n == "workspace":
			fs.Func(n, usage, func(v string) error { f.Workspace, f.Set[n] = v, true; return nil })
		case n == "wire-log":
			fs.Func(n, usage, func(v string) error {
				if v == "" {
					return fmt.Errorf("want a file name")
				}
				f.WireLog, f.Set[n] = v, true
				return nil
			})
		case n == "trust":
			fs.BoolFunc(n, usage, func(v string) error {
				b, err := strconv.ParseBool(v)
				f.Trust, f.Set[n] = b, true
				return err
			})
		case e.boolean:
			fs.BoolFunc(n, usage, func(v string) error { f.Set[n] = true; return e.set(&f.Over, v) })
		default:
			fs.Func(n, usage, func(v string) error { f.Set[n] = true; return e.set(&f.Over, v) })
		}
	}
	return f
}

func lookup(name string) (entry, bool) {
	for _, e := range table {
		if e.name == name {
			return e, true
		}
	}
	return entry{}, false
}

// SettingsHelp is the paragraph of -h that says where the settings are.
const SettingsHelp = `Settings: the flags marked "settings:" can be set once in JSON (comments
allowed) in $XDG_CONFIG_HOME/tether/settings.json (you), .tether/settings.json
(the project, in git) and .tether/settings.local.json (this machine), read in
that order; a flag given overrides them. A project's allow rules, MCP and
language servers apply only once you trust its files with -trust. Schema:
https://github.com/tetherdev/tether/raw/main/settings/settings.schema.json
`

// Common are the shared flags the agent examples all take.
var Common = []string{"workspace", "model", "mode", "num-ctx", "temperature", "tool-calling", "wire-log", "allow", "ask", "deny", "allow-read-only",
	"sandbox", "approval-timeout", "lsp", "web-allow", "web-deny", "disable-tools", "trust"}

// WriteTable writes the shared flags as a Markdown table, for the docs.
func WriteTable(w io.Writer) {
	fmt.Fprintln(w, "| flag | meaning |")
	fmt.Fprintln(w, "|---|---|")
	for _, e := range table {
		name := "-" + e.name
		if e.arg != "" {
			name += " " + e.arg
		}
		fmt.Fprintf(w, "| `%s` | %s |\n", name, strings.ReplaceAll(e.usage, "|", `\|`))
	}
}

// OpenWireLog opens path (-wire-log) for appending, readable by its
// owner only since it will hold prompts and file contents; nil when path
// is "". The caller closes it.
func OpenWireLog(path string) (*os.File, error) {
	if path == "" {
		return nil, nil
	}
	w, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("-wire-log: %w", err)
	}
	return w, nil
}
