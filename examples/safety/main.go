// Command safety vets a shell command with Tether's analyser and rules.
//
//	go run ./examples/safety [-allow 'ls,git status'] [-ask …] [-deny …] [-readonly] [-settings FILE] 'CMD'
//
// Rules come from the flags and, with -settings, from a JSON file: either
// {"allow":[…],"ask":[…],"deny":[…],"read_only":true} or an existing
// Claude Code settings.json, whose Bash(…) permissions are used as is.
// prints the analysis and the verdict as JSON. With -hook it instead reads
// one PreToolUse-style JSON object on standard input,
//
//	{"tool_name":"Bash","tool_input":{"command":"…"}}
//
// and answers in the Claude Code hook output shape,
//
//	{"hookSpecificOutput":{"hookEventName":"PreToolUse",
//	  "permissionDecision":"allow|ask|deny","permissionDecisionReason":"…"}}
//
// so that another agent can use Tether as its command guard. Calls to
// tools that are not shells get no output (no opinion); with -passive,
// neither do commands Tether would allow, leaving them to the host's own
// rules. Input that cannot be read exits with status 2 and a message on
// standard error, which hook hosts treat as a block: the guard fails
// closed.
//
// To guard Claude Code, build the binary and register it in
// .claude/settings.json:
//
//	{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
//	  "command": "tether-safety -hook -readonly -allow 'go test,npm run test' -deny 'git push --force'"}]}]}}
package main

import (
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
	fs := flag.NewFlagSet("safety", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var rules safety.CommandRules
	var allow, ask, deny list
	fs.Var(&allow, "allow", "comma-separated allow rules (repeatable), e.g. 'ls,git status,npm run test'")
	fs.Var(&ask, "ask", "comma-separated rules that always ask")
	fs.Var(&deny, "deny", "comma-separated rules that always deny")
	fs.BoolVar(&rules.AllowReadOnly, "readonly", false, "approve read-only commands (severity none) without a rule")
	settings := fs.String("settings", "", "read rules from a JSON file: {\"allow\":[…],\"ask\":[…],\"deny\":[…],\"read_only\":true}, or a Claude Code settings.json (its Bash(…) permissions)")
	hook := fs.Bool("hook", false, "read a PreToolUse hook object on stdin and answer allow, ask or deny")
	passive := fs.Bool("passive", false, "with -hook, answer only ask and deny; say nothing about commands Tether would allow")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: safety [-allow RULES] [-ask RULES] [-deny RULES] [-readonly] 'COMMAND'")
		fmt.Fprintln(stderr, "       safety -hook [rules…] < hook-input.json")
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

	if *hook {
		if fs.NArg() != 0 {
			fmt.Fprintln(stderr, "safety: -hook reads the command from stdin; drop the command argument")
			return 2
		}
		if err := answerHook(rules, *passive, stdin, stdout); err != nil {
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
	v := rules.Evaluate(fs.Arg(0))
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		fmt.Fprintln(stderr, "safety:", err)
		return 1
	}
	return 0
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

var errNoCommand = errors.New(`hook input has no tool_input.command string (want {"tool_name":"Bash","tool_input":{"command":"…"}})`)

func answerHook(rules safety.CommandRules, passive bool, stdin io.Reader, stdout io.Writer) error {
	data, err := io.ReadAll(io.LimitReader(stdin, 16<<20))
	if err != nil {
		return fmt.Errorf("reading hook input: %w", err)
	}
	var in hookInput
	if err := json.Unmarshal(data, &in); err != nil {
		return fmt.Errorf("hook input is not a JSON object: %w", err)
	}
	if !shellTools[in.ToolName] {
		return nil // not a shell call: no opinion
	}
	var ti struct {
		Command *string `json:"command"`
	}
	if len(in.ToolInput) == 0 || json.Unmarshal(in.ToolInput, &ti) != nil || ti.Command == nil {
		return errNoCommand
	}
	v := rules.Evaluate(*ti.Command)
	if passive && v.Decision == safety.Allow {
		return nil
	}
	decision := map[safety.Decision]string{safety.Allow: "allow", safety.Confirm: "ask", safety.Deny: "deny"}[v.Decision]
	event := in.HookEventName
	if event == "" {
		event = "PreToolUse"
	}
	reason := fmt.Sprintf("Tether: %s (severity %s)", decision, v.Severity)
	if len(v.Reasons) > 0 {
		reason += ": " + strings.Join(v.Reasons, "; ")
	}
	return json.NewEncoder(stdout).Encode(hookOutput{hookDecision{
		HookEventName:            event,
		PermissionDecision:       decision,
		PermissionDecisionReason: reason,
	}})
}
