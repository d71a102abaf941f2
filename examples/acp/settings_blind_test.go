package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tetherdev/tether/acp"
	"github.com/tetherdev/tether/agent"
	"github.com/tetherdev/tether/settings"
)

// A blindCase is one expectation about how the editor agent applies the
// settings files and the flags to a session, written before acp read
// settings, from the sources cited: the settings documentation of
// Claude Code (code.claude.com/docs/en/settings, "Settings precedence",
// "Permission settings"), Tether's settings package doc (docs/settings.md)
// and the ACP specification (agentclientprotocol.com/protocol/session-setup
// for cwd and mcpServers, /protocol/session-modes for modes).
type blindCase struct {
	name, source string
	user         string // $XDG_CONFIG_HOME/tether/settings.json; "" for none
	project      string // CWD/.tether/settings.json; "" for none
	local        string // CWD/.tether/settings.local.json
	trust        bool   // the user trusted the project files beforehand
	args         []string
	// check says what is wrong with the session opened in a fresh
	// directory, or "".
	check func(r blindResult) string
}

type blindResult struct {
	setup *acp.Setup
	err   error
	log   string
	cwd   string
}

func (r blindResult) rules() (allow, ask, deny []string, readOnly bool) {
	c := r.setup.Agent.CommandRules
	return c.Allow, c.Ask, c.Deny, c.AllowReadOnly
}

func (r blindResult) hasTool(name string) bool {
	return slices.Contains(r.setup.Agent.Tools.Names(), name)
}

func opened(r blindResult) string {
	if r.err != nil {
		return "session/new failed: " + r.err.Error()
	}
	return ""
}

func both(checks ...func(blindResult) string) func(blindResult) string {
	return func(r blindResult) string {
		for _, c := range checks {
			if msg := c(r); msg != "" {
				return msg
			}
		}
		return ""
	}
}

func failsNaming(words ...string) func(blindResult) string {
	return func(r blindResult) string {
		if r.err == nil {
			return "session/new succeeded; want an error naming " + strings.Join(words, ", ")
		}
		for _, w := range words {
			if !strings.Contains(r.err.Error(), w) {
				return fmt.Sprintf("error %q does not name %q", r.err, w)
			}
		}
		return ""
	}
}

var blindCases = []blindCase{
	{name: "project deny applies untrusted", source: "anthropics/claude-code#12713: a deny in one scope holds over an allow in another; Tether settings doc: what only tightens always applies",
		project: `{"permissions": {"deny": ["rm"]}}`,
		check: both(opened, func(r blindResult) string {
			if _, _, deny, _ := r.rules(); !slices.Contains(deny, "rm") {
				return fmt.Sprintf("deny %q lacks rm", deny)
			}
			return ""
		})},
	{name: "project allow left out untrusted", source: "Tether settings doc, Trust: allow rules of a project apply only once trusted",
		project: `{"permissions": {"allow": ["go test"]}}`,
		check: both(opened, func(r blindResult) string {
			if allow, _, _, _ := r.rules(); slices.Contains(allow, "go test") {
				return "untrusted allow rule applied"
			}
			return ""
		})},
	{name: "what was left out is said", source: "issue 28: untrusted project fields left out and said; Tether settings doc: Loaded.Untrusted so a host can say what it ignored",
		project: `{"permissions": {"allow": ["go test"]}}`,
		check: both(opened, func(r blindResult) string {
			if !strings.Contains(r.log, "permissions.allow") {
				return "the log does not say permissions.allow was left out: " + r.log
			}
			return ""
		})},
	{name: "project allow applies trusted", source: "Tether settings doc, Trust: once trusted, all fields apply",
		project: `{"permissions": {"allow": ["go test"]}}`, trust: true,
		check: both(opened, func(r blindResult) string {
			if allow, _, _, _ := r.rules(); !slices.Contains(allow, "go test") {
				return fmt.Sprintf("allow %q lacks go test", allow)
			}
			return ""
		})},
	{name: "user Bash(cmd:*) form", source: "Claude Code settings, permission rules: Bash(npm run test:*) matches commands starting with npm run test",
		user: `{"permissions": {"allow": ["Bash(npm run test:*)"]}}`,
		check: both(opened, func(r blindResult) string {
			if allow, _, _, _ := r.rules(); !slices.Contains(allow, "npm run test") {
				return fmt.Sprintf("allow %q lacks npm run test", allow)
			}
			return ""
		})},
	{name: "flag deny joins project deny", source: "Claude Code settings precedence: command line arguments above project settings; Tether: lists are joined",
		project: `{"permissions": {"deny": ["rm"]}}`, args: []string{"-deny", "curl"},
		check: both(opened, func(r blindResult) string {
			if _, _, deny, _ := r.rules(); !slices.Contains(deny, "rm") || !slices.Contains(deny, "curl") {
				return fmt.Sprintf("deny %q, want rm and curl", deny)
			}
			return ""
		})},
	{name: "flag beats user scalar", source: "Claude Code settings precedence: command line overrides user settings",
		user: `{"permissions": {"allowReadOnly": true}}`, args: []string{"-allow-read-only=false"},
		check: both(opened, func(r blindResult) string {
			if _, _, _, ro := r.rules(); ro {
				return "read-only commands still allowed"
			}
			return ""
		})},
	{name: "project ask applies", source: "Claude Code settings: ask rules; Tether: ask only tightens",
		project: `{"permissions": {"ask": ["git push"]}}`,
		check: both(opened, func(r blindResult) string {
			if _, ask, _, _ := r.rules(); !slices.Contains(ask, "git push") {
				return fmt.Sprintf("ask %q lacks git push", ask)
			}
			return ""
		})},
	{name: "disabled tool not offered", source: "Tether settings doc: disabledTools are never offered to the model",
		project: `{"disabledTools": ["run_terminal_command"]}`,
		check: both(opened, func(r blindResult) string {
			if r.hasTool("run_terminal_command") {
				return "run_terminal_command still offered"
			}
			return ""
		})},
	{name: "flag disables a tool", source: "hostcfg flag table: -disable-tools",
		args: []string{"-disable-tools", "write_file"},
		check: both(opened, func(r blindResult) string {
			if r.hasTool("write_file") {
				return "write_file still offered"
			}
			return ""
		})},
	{name: "unknown disabled tool refused", source: "Tether settings doc: every error names the field and what is allowed",
		project: `{"disabledTools": ["no_such_tool"]}`,
		check:   failsNaming("disabledTools", "no_such_tool")},
	{name: "settings modes are session modes", source: "ACP session-modes: the agent advertises availableModes; Tether settings: modes with tools and prompt",
		project: `{"modes": {"ask": {"prompt": "Answer only.", "tools": ["read_file"], "readOnly": true}}}`,
		check: both(opened, func(r blindResult) string {
			for _, m := range r.setup.Agent.Modes {
				if m.Name == "ask" && m.Prompt == "Answer only." && slices.Equal(m.Tools, []string{"read_file"}) {
					return ""
				}
			}
			return fmt.Sprintf("modes %+v lack ask", r.setup.Agent.Modes)
		})},
	{name: "settings start mode", source: "Tether settings: mode a new session starts in; ACP session-modes: currentModeId",
		project: `{"mode": "plan"}`,
		check: both(opened, func(r blindResult) string {
			if r.setup.Agent.Mode != agent.ModePlan {
				return fmt.Sprintf("mode %q, want plan", r.setup.Agent.Mode)
			}
			return ""
		})},
	{name: "flag mode beats settings", source: "Claude Code settings precedence: command line first",
		project: `{"mode": "plan"}`, args: []string{"-mode", "review"},
		check: both(opened, func(r blindResult) string {
			if r.setup.Agent.Mode != agent.ModeReview {
				return fmt.Sprintf("mode %q, want review", r.setup.Agent.Mode)
			}
			return ""
		})},
	{name: "sensitive files from settings", source: "Tether settings doc: sensitiveFiles globs added to the built-in ones",
		project: `{"sensitiveFiles": ["deploy/**"]}`,
		check: both(opened, func(r blindResult) string {
			if !r.setup.Agent.Workspace.Sensitivity().Sensitive("deploy/prod.yaml") {
				return "deploy/prod.yaml not sensitive"
			}
			return ""
		})},
	{name: "local file overrides project", source: "Claude Code settings precedence: local project settings above shared project settings",
		project: `{"mode": "plan"}`, local: `{"mode": "explore"}`,
		check: both(opened, func(r blindResult) string {
			if r.setup.Agent.Mode != agent.ModeExplore {
				return fmt.Sprintf("mode %q, want explore", r.setup.Agent.Mode)
			}
			return ""
		})},
	{name: "malformed project file names file", source: "Tether settings doc: every error names the file, the line and the field",
		project: `{"permissions": {"allow": "go test"}}`,
		check:   failsNaming(settings.ProjectFile, "permissions.allow")},
	{name: "settings MCP server started", source: "ACP session-setup: the agent connects the MCP servers; settings mcpServers is the common format",
		user:  `{"mcpServers": {"broken": {"command": "/no/such/mcp-server"}}}`,
		check: failsNaming("broken")},
	{name: "disabled MCP server not started", source: "mcpServers format (Cline, Roo): disabled: true keeps the entry unused",
		user:  `{"mcpServers": {"off": {"command": "/no/such/mcp-server", "disabled": true}}}`,
		check: opened},
	{name: "untrusted project MCP not started", source: "Tether settings doc, Trust: mcpServers start programs; only once trusted",
		project: `{"mcpServers": {"evil": {"command": "/no/such/mcp-server"}}}`,
		check: both(opened, func(r blindResult) string {
			if !strings.Contains(r.log, "mcpServers") {
				return "the log does not say mcpServers were left out"
			}
			return ""
		})},
	{name: "web.allow offers read_webpage", source: "Tether settings doc: web.allow domains read_webpage may reach",
		user: `{"web": {"allow": ["go.dev"]}}`,
		check: both(opened, func(r blindResult) string {
			if !r.hasTool("read_webpage") {
				return "read_webpage not offered"
			}
			return ""
		})},
	{name: "mode naming an unknown tool refused", source: "Tether settings doc: errors name the field and what is allowed",
		project: `{"modes": {"ask": {"tools": ["nope"]}}}`,
		check:   failsNaming("modes.ask.tools", "nope")},
}

// TestSettingsBlindBatch opens a session as session/new would, in a
// fresh directory, for every case; the score is printed.
func TestSettingsBlindBatch(t *testing.T) {
	script := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(script, []byte(`{"content":"hi"}`+"\n"), 0o644)
	good := 0
	for _, c := range blindCases {
		t.Run(c.name, func(t *testing.T) {
			cfg := t.TempDir()
			t.Setenv("XDG_CONFIG_HOME", cfg)
			cwd := t.TempDir()
			write := func(path, data string) {
				if data == "" {
					return
				}
				os.MkdirAll(filepath.Dir(path), 0o755)
				if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write(filepath.Join(cfg, "tether", "settings.json"), c.user)
			write(filepath.Join(cwd, settings.ProjectFile), c.project)
			write(filepath.Join(cwd, settings.LocalFile), c.local)
			if c.trust {
				if err := settings.Trust(cwd); err != nil {
					t.Fatal(err)
				}
			}
			r := openBlind(t, append([]string{"-model", "script:" + script, "-db", "memory", "-sandbox", "off"}, c.args...), cwd)
			if msg := c.check(r); msg != "" {
				t.Errorf("%s (source: %s)", msg, c.source)
				return
			}
			good++
		})
	}
	t.Logf("%d/%d cases behave as expected", good, len(blindCases))
}

// openBlind starts the host with args and opens one session in cwd.
func openBlind(t *testing.T, args []string, cwd string) blindResult {
	t.Helper()
	return openBlindEnv(t, args, acp.SessionEnv{Cwd: cwd})
}

// openBlindEnv is openBlind with the editor's session/new as env.
func openBlindEnv(t *testing.T, args []string, env acp.SessionEnv) blindResult {
	t.Helper()
	cwd := env.Cwd
	var log bytes.Buffer
	o, err := parseFlags(args, &log)
	if err != nil {
		return blindResult{err: err, log: log.String(), cwd: cwd}
	}
	logger := slog.New(slog.NewTextHandler(&log, nil))
	ctx := context.Background()
	h, err := newHost(ctx, o, logger)
	if err != nil {
		return blindResult{err: err, log: log.String(), cwd: cwd}
	}
	t.Cleanup(h.close)
	setup, err := h.open(ctx, env)
	if setup != nil && setup.Close != nil {
		t.Cleanup(setup.Close)
	}
	return blindResult{setup: setup, err: err, log: log.String(), cwd: cwd}
}

// TestUntrustedSaidToEditor: what an untrusted project's files set and
// was left out is a notice for the editor, with how to trust them; a
// trusted project has none.
func TestUntrustedSaidToEditor(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	script := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(script, []byte(`{"content":"hi"}`+"\n"), 0o644)
	cwd := t.TempDir()
	os.MkdirAll(filepath.Join(cwd, ".tether"), 0o755)
	os.WriteFile(filepath.Join(cwd, settings.ProjectFile), []byte(`{"permissions": {"allow": ["make"]}, "web": {"allow": ["go.dev"]}}`), 0o644)
	args := []string{"-model", "script:" + script, "-db", "memory", "-sandbox", "off"}
	r := openBlind(t, args, cwd)
	if r.err != nil {
		t.Fatal(r.err)
	}
	got := strings.Join(r.setup.Notices, "\n")
	for _, want := range []string{"permissions.allow", "web.allow", "-trust", cwd} {
		if !strings.Contains(got, want) {
			t.Errorf("notices %q do not say %q", got, want)
		}
	}
	r = openBlind(t, append(args, "-workspace", cwd, "-trust"), cwd)
	if r.err != nil {
		t.Fatal(r.err)
	}
	if len(r.setup.Notices) > 0 || !slices.Contains(r.setup.Agent.CommandRules.Allow, "make") {
		t.Errorf("after -trust: notices %q, allow %q", r.setup.Notices, r.setup.Agent.CommandRules.Allow)
	}
}

// "Allow always" on a command saves that exact command as an allow rule
// in the project's settings, which the next session applies; a critical
// command or a pipeline offers nothing to save.
func TestAllowAlwaysSavedToProject(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	script := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(script, []byte(`{"content":"hi"}`+"\n"), 0o644)
	cwd := t.TempDir()
	args := []string{"-model", "script:" + script, "-db", "memory", "-sandbox", "off"}
	r := openBlind(t, args, cwd)
	if r.err != nil {
		t.Fatal(r.err)
	}
	for _, cmd := range []string{"rm -rf /", "go test && curl x | sh", "echo $(id)"} {
		if rule, _, _, ok := r.setup.SaveRule(cmd); ok {
			t.Errorf("%q offers to save %q", cmd, rule)
		}
	}
	rule, where, save, ok := r.setup.SaveRule("go test ./...")
	if !ok || rule != "go test ./..." || where != settings.ProjectFile {
		t.Fatalf("SaveRule: %q %q %v", rule, where, ok)
	}
	if err := save(); err != nil {
		t.Fatal(err)
	}
	r = openBlind(t, args, cwd)
	if r.err != nil {
		t.Fatal(r.err)
	}
	if !slices.Contains(r.setup.Agent.CommandRules.Allow, "go test ./...") || len(r.setup.Notices) > 0 {
		t.Errorf("next session: allow %q, notices %q", r.setup.Agent.CommandRules.Allow, r.setup.Notices)
	}
}
