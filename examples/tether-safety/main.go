// Command safety vets a shell command with Tether's analyser and rules.
//
//	go run ./examples/tether-safety [-allow 'ls,git status'] [-ask …] [-deny …] [-readonly] [-deny-critical] [-settings FILE] 'CMD'
//
// Rules come from the flags and, with -settings, from a JSON file: either
// {"allow":[…],"ask":[…],"deny":[…],"read_only":true} or an existing
// Claude Code settings.json, whose Bash(…) permissions are used as is.
// It prints the analysis and the verdict as JSON, and its exit status says
// the decision, so a script can branch on it without parsing:
//
//	0  allow
//	1  the verdict could not be written
//	2  usage or input error (nothing was judged)
//	3  confirm: a person must approve the command
//	4  deny
//
// With -hook it instead reads one PreToolUse-style JSON object on standard
// input, a shell call, a file write or a file read,
//
//	{"tool_name":"Bash","tool_input":{"command":"…"}}
//	{"tool_name":"Write","tool_input":{"file_path":"/repo/.env","content":"…"}}
//
// and answers in the Claude Code hook output shape, exiting 0,
//
//	{"hookSpecificOutput":{"hookEventName":"PreToolUse",
//	  "permissionDecision":"allow|ask|deny","permissionDecisionReason":"…"}}
//
// so that another agent can use Tether as its guard. Shell tools are judged
// by the command rules and the files each command touches; file tools
// (Claude Code's Write, Edit, MultiEdit and NotebookEdit, and the same
// tools under other agents' names) by workspace confinement and file
// sensitivity, so a write to .env or .git/hooks asks; read tools (Read,
// read_file) ask for secrets and for files outside the workspace, as `cat
// .env` does. The rule flags apply
// in hook mode too. Calls to other tools get no output (no opinion); with
// -passive, neither do actions Tether would allow, leaving them to the
// host's own rules. Input that cannot be read exits with status 2 and a
// message on standard error, which hook hosts treat as a block: the guard
// fails closed.
//
// To guard Claude Code, build the binary and register it in
// .claude/settings.json:
//
//	{"hooks": {"PreToolUse": [{"matcher": "Bash|Write|Edit|MultiEdit|Read", "hooks": [{"type": "command",
//	  "command": "tether-safety -hook -readonly -deny-critical -allow 'go test,npm run test' -deny 'git push --force'"}]}]}}
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/tetherdev/tether/safety"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// list is a repeatable flag of comma-separated rules.
type list []string

func (l *list) String() string     { return strings.Join(*l, ",") }
func (l *list) Set(s string) error { *l = append(*l, s); return nil }

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tether-safety", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var rules safety.CommandRules
	var allow, ask, deny list
	fs.Var(&allow, "allow", "comma-separated allow rules (repeatable), e.g. 'ls,git status,npm run test'")
	fs.Var(&ask, "ask", "comma-separated rules that always ask")
	fs.Var(&deny, "deny", "comma-separated rules that always deny")
	fs.BoolVar(&rules.AllowReadOnly, "readonly", false, "approve read-only commands (severity none) without a rule")
	denyCritical := fs.Bool("deny-critical", false, "deny critical commands outright instead of asking")
	settings := fs.String("settings", "", "read rules from a JSON file: {\"allow\":[…],\"ask\":[…],\"deny\":[…],\"read_only\":true}, or a Claude Code settings.json (its Bash(…) permissions)")
	hook := fs.Bool("hook", false, "read a PreToolUse hook object on stdin and answer allow, ask or deny")
	passive := fs.Bool("passive", false, "with -hook, answer only ask and deny; say nothing about commands Tether would allow")
	workspace := fs.String("workspace", "", "the workspace the command runs in, for file sensitivity and confinement (default: the hook's cwd, else the current directory)")
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	rules.Allow, rules.Ask, rules.Deny = allow, ask, deny
	if *settings != "" {
		if err := loadSettings(*settings, &rules); err != nil {
			fmt.Fprintln(stderr, "safety:", err)
			return 2
		}
	}

	if err := rules.Validate(); err != nil {
		fmt.Fprintln(stderr, "safety:", err)
		return 2
	}

	if *hook {
		if fs.NArg() != 0 {
			fmt.Fprintln(stderr, "safety: -hook reads the command from stdin; drop the command argument")
			return 2
		}
		if err := answerHook(guard{rules, *denyCritical}, *workspace, *passive, stdin, stdout); err != nil {
			fmt.Fprintln(stderr, "safety:", err)
			return 2
		}
		return 0
	}
	if fs.NArg() != 1 {
		fs.Usage()
		fmt.Fprintln(stderr, "safety: give exactly one command, quoted as a single argument")
		return 2
	}
	p, err := guard{rules, *denyCritical}.policy(*workspace)
	if err != nil {
		fmt.Fprintln(stderr, "safety:", err)
		return 2
	}
	a := p.AssessCommand(context.Background(), fs.Arg(0), "")
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(a); err != nil {
		fmt.Fprintln(stderr, "safety:", err)
		return 1
	}
	return exitCode(a.Decision)
}

const usage = `usage: tether-safety [-allow RULES] [-ask RULES] [-deny RULES] [-readonly] [-deny-critical] 'COMMAND'
       tether-safety -hook [same flags] < hook-input.json

Judges a shell command as a Tether agent would and prints the verdict as JSON.
Exit status: 0 allow, 3 confirm (ask a person), 4 deny, 2 usage or input error.

With -hook, reads a PreToolUse hook object (Claude Code, Gemini CLI and others)
on stdin: shell calls are judged as commands, file writes (Write, Edit,
MultiEdit, NotebookEdit…) by confinement and file sensitivity, file reads
(Read, read_file…) by secrets and confinement. Answers allow, ask or deny in
the hook output shape and exits 0.

Examples:
  tether-safety -readonly 'git log --oneline | head'        # exit 0
  tether-safety -allow 'npm run test' 'npm run test && curl -s x | sh'  # exit 3: critical
  tether-safety -allow git -deny effect:force-push 'git push origin +main'  # exit 4
  echo '{"tool_name":"Write","tool_input":{"file_path":".env"}}' | tether-safety -hook

Flags:
`

// Exit statuses of the command-line mode, one per decision.
const (
	exitAllow   = 0
	exitConfirm = 3
	exitDeny    = 4
)

func exitCode(d safety.Decision) int {
	switch d {
	case safety.Allow:
		return exitAllow
	case safety.Deny:
		return exitDeny
	default: // Confirm, or anything this program does not know: fail closed.
		return exitConfirm
	}
}

// settingsFile is either Tether's own rule file or a Claude Code
// settings.json, whose permissions hold rules such as "Bash(git log:*)".
type settingsFile struct {
	Allow       []string `json:"allow"`
	Ask         []string `json:"ask"`
	Deny        []string `json:"deny"`
	ReadOnly    bool     `json:"read_only"`
	Permissions *struct {
		Allow []string `json:"allow"`
		Ask   []string `json:"ask"`
		Deny  []string `json:"deny"`
	} `json:"permissions"`
}

// loadSettings adds the rules in the file at path to rules.
func loadSettings(path string, rules *safety.CommandRules) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading rules: %w", err)
	}
	var f settingsFile
	if err := json.Unmarshal(data, &f); err != nil {
		return fmt.Errorf("rules file %s is not valid JSON: %w", path, err)
	}
	if f.Allow == nil && f.Ask == nil && f.Deny == nil && f.Permissions == nil && !f.ReadOnly {
		return fmt.Errorf("rules file %s has no allow, ask, deny, read_only or permissions keys", path)
	}
	rules.Allow = append(rules.Allow, f.Allow...)
	rules.Ask = append(rules.Ask, f.Ask...)
	rules.Deny = append(rules.Deny, f.Deny...)
	rules.AllowReadOnly = rules.AllowReadOnly || f.ReadOnly
	if p := f.Permissions; p != nil {
		// Only Bash(…) entries are about commands; Read(…), Edit(…) and
		// the rest belong to other tools.
		rules.Allow = append(rules.Allow, bashRules(p.Allow)...)
		rules.Ask = append(rules.Ask, bashRules(p.Ask)...)
		rules.Deny = append(rules.Deny, bashRules(p.Deny)...)
	}
	return nil
}

func bashRules(entries []string) []string {
	var out []string
	for _, e := range entries {
		switch {
		case e == "Bash":
			out = append(out, "*")
		case strings.HasPrefix(e, "Bash(") && strings.HasSuffix(e, ")"):
			out = append(out, e)
		}
	}
	return out
}

// hookInput is the part of a PreToolUse event the guard reads.
type hookInput struct {
	HookEventName string          `json:"hook_event_name"`
	Cwd           string          `json:"cwd"`
	ToolName      string          `json:"tool_name"`
	ToolInput     json.RawMessage `json:"tool_input"`
}

type hookOutput struct {
	HookSpecificOutput hookDecision `json:"hookSpecificOutput"`
}

type hookDecision struct {
	HookEventName            string `json:"hookEventName"`
	PermissionDecision       string `json:"permissionDecision"`
	PermissionDecisionReason string `json:"permissionDecisionReason"`
}

// shellTools are tool names other agents use for running a command.
var shellTools = map[string]bool{
	"Bash": true, "bash": true, "shell": true, "Shell": true, "run_shell_command": true,
	"execute_command": true, "run_terminal_cmd": true, "run_terminal_command": true,
	"terminal": true, "exec_command": true, "run_command": true,
}

// fileTools are tool names other agents use for writing a file, with the
// tool_input keys that may hold the path, in the order tried.
var fileTools = map[string][]string{
	"Write": {"file_path"}, "Edit": {"file_path"}, "MultiEdit": {"file_path"}, "NotebookEdit": {"notebook_path"},
	"write_file": {"file_path", "path"}, "replace": {"file_path"}, // Gemini CLI, MCP filesystem servers
	"edit_file": {"path", "file_path"}, "create_file": {"path", "file_path"}, "str_replace_based_edit_tool": {"path"},
}

// toolName is the name the tables know a tool by: an MCP tool as a host
// names it (Claude Code's mcp__filesystem__write_file) is its own name.
func toolName(name string) string {
	if rest, ok := strings.CutPrefix(name, "mcp__"); ok {
		if _, tool, ok := strings.Cut(rest, "__"); ok {
			return tool
		}
	}
	return name
}

// pathArg returns the first non-empty string among the keys of ti.
func pathArg(ti map[string]json.RawMessage, keys []string) string {
	for _, k := range keys {
		var p string
		if json.Unmarshal(ti[k], &p) == nil && p != "" {
			return p
		}
	}
	return ""
}

// readTools are tool names other agents use for reading a file, with the
// tool_input keys that may hold the path, in the order tried.
var readTools = map[string][]string{
	"Read": {"file_path"}, "NotebookRead": {"notebook_path"},
	"read_file":      {"absolute_path", "file_path", "path"}, // Gemini CLI, MCP filesystem servers
	"read_text_file": {"path"}, "view_file": {"path", "file_path"},
}

var errNoCommand = errors.New(`hook input has no tool_input.command string (want {"tool_name":"Bash","tool_input":{"command":"…"}})`)

func answerHook(g guard, workspace string, passive bool, stdin io.Reader, stdout io.Writer) error {
	data, err := io.ReadAll(io.LimitReader(stdin, 16<<20))
	if err != nil {
		return fmt.Errorf("reading hook input: %w", err)
	}
	var in hookInput
	if err := json.Unmarshal(data, &in); err != nil {
		return fmt.Errorf("hook input is not a JSON object: %w", err)
	}
	name := toolName(in.ToolName)
	writeKeys, isFile := fileTools[name]
	readKeys, isRead := readTools[name]
	if !shellTools[in.ToolName] && !isFile && !isRead {
		return nil // neither a shell call nor a file access: no opinion
	}
	var ti map[string]json.RawMessage
	if len(in.ToolInput) == 0 || json.Unmarshal(in.ToolInput, &ti) != nil {
		return fmt.Errorf("hook input's tool_input is not a JSON object: %s", in.ToolInput)
	}
	if workspace == "" {
		workspace = in.Cwd
	}
	p, err := g.policy(workspace)
	if err != nil {
		return err
	}
	var v safety.Assessment
	switch {
	case isRead:
		path := pathArg(ti, readKeys)
		if path == "" {
			return fmt.Errorf("hook input for %s has no tool_input.%s string", in.ToolName, readKeys[0])
		}
		// Reading a secret asks, as `cat .env` does; reading outside the
		// workspace asks too (a command reading there would), rather than
		// being refused as a write there is.
		v = p.AssessFile(context.Background(), path, safety.OpRead)
		if v.Decision == safety.Deny && len(v.Paths) > 0 && errors.Is(v.Paths[0].Err, safety.ErrOutsideWorkspace) {
			v.Decision = safety.Confirm
		}
	case isFile:
		path := pathArg(ti, writeKeys)
		if path == "" {
			return fmt.Errorf("hook input for %s has no tool_input.%s string", in.ToolName, writeKeys[0])
		}
		v = p.AssessFile(context.Background(), path, safety.OpWrite)
	default:
		var command string
		if json.Unmarshal(ti["command"], &command) != nil || ti["command"] == nil {
			return errNoCommand
		}
		v = p.AssessCommand(context.Background(), command, "")
	}
	if passive && v.Decision == safety.Allow {
		return nil
	}
	decision := "ask" // Confirm, or a decision this program does not know
	switch v.Decision {
	case safety.Allow:
		decision = "allow"
	case safety.Deny:
		decision = "deny"
	}
	event := in.HookEventName
	if event == "" {
		event = "PreToolUse"
	}
	reason := "Tether: " + decision
	if !isFile && !isRead {
		reason += fmt.Sprintf(" (severity %s)", v.Severity)
	}
	if len(v.Reasons) > 0 {
		reason += ": " + strings.Join(v.Reasons, "; ")
	}
	return json.NewEncoder(stdout).Encode(hookOutput{hookDecision{
		HookEventName:            event,
		PermissionDecision:       decision,
		PermissionDecisionReason: reason,
	}})
}

// guard is what the flags say about judging.
type guard struct {
	rules        safety.CommandRules
	denyCritical bool
}

// policy judges actions as the agent would: for a command the rules'
// verdict, then the files it reads or writes against the workspace's
// sensitivity and confinement, so `cat .env` asks even when `cat` is
// allowed; for a file write the same confinement and sensitivity.
func (g guard) policy(workspace string) (*safety.Policy, error) {
	if workspace == "" {
		workspace = "."
	}
	ws, err := safety.OpenWorkspace(workspace)
	if err != nil {
		return nil, fmt.Errorf("opening workspace %q: %w", workspace, err)
	}
	return &safety.Policy{Workspace: ws, Rules: g.rules, DenyCritical: g.denyCritical}, nil
}
