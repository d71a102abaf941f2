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
	"github.com/tetherdev/tether/settings"
)

// The blind batch, testdata/settings_blind/*.txtar: expectations about
// how the editor agent applies the settings files and the flags to a
// session, written before acp read settings, each from the source its
// "source:" line cites: Claude Code's settings documentation
// (code.claude.com/docs/en/settings, "Settings precedence", permission
// rules), Tether's settings doc (docs/settings.md), the ACP specification
// (agentclientprotocol.com/protocol/session-setup for cwd and
// mcpServers, /protocol/session-modes for modes).
//
// A case is a comment of lines "source: …", "args: FLAGS" (split at
// spaces), "trust" (the user trusted the project files beforehand) and
// "want CHECK", then files user.json, project.json and local.json (the
// user's, .tether/settings.json, .tether/settings.local.json). A case
// with no "want error" expects session/new to succeed.
type blindCase struct {
	source, name string
	args         []string
	trust        bool
	wants        []string
	files        map[string]string
}

func readBlindCase(t *testing.T, path string) blindCase {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c := blindCase{name: strings.TrimSuffix(filepath.Base(path), ".txtar"), files: map[string]string{}}
	file := ""
	for line := range strings.Lines(string(data)) {
		if n, ok := strings.CutPrefix(strings.TrimSpace(line), "-- "); ok && strings.HasSuffix(n, " --") {
			file = strings.TrimSuffix(n, " --")
			continue
		}
		if file != "" {
			c.files[file] += line
			continue
		}
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "source: "):
			c.source = strings.TrimPrefix(line, "source: ")
		case strings.HasPrefix(line, "args: "):
			c.args = strings.Fields(strings.TrimPrefix(line, "args: "))
		case line == "trust":
			c.trust = true
		case strings.HasPrefix(line, "want "):
			c.wants = append(c.wants, strings.TrimPrefix(line, "want "))
		case line != "":
			t.Fatalf("%s: line %q is not source:, args:, trust or want", path, line)
		}
	}
	if c.source == "" || len(c.wants) == 0 {
		t.Fatalf("%s: a case needs a source: line and a want", path)
	}
	return c
}

type blindResult struct {
	setup *acp.Setup
	err   error
	log   string
	cwd   string
}

// check says what is wrong with r by want, or "".
func (r blindResult) check(want string, expectErr bool) string {
	verb, arg, _ := strings.Cut(want, " ")
	if verb == "error" {
		if r.err == nil {
			return "session/new succeeded; want an error"
		}
		if _, w, _ := strings.Cut(arg, " "); !strings.Contains(r.err.Error(), w) {
			return fmt.Sprintf("error %q does not name %q", r.err, w)
		}
		return ""
	}
	if r.err != nil {
		return "session/new failed: " + r.err.Error()
	}
	if expectErr {
		return ""
	}
	cfg := r.setup.Agent
	list := func(name string) []string {
		switch name {
		case "allow":
			return cfg.CommandRules.Allow
		case "ask":
			return cfg.CommandRules.Ask
		case "deny":
			return cfg.CommandRules.Deny
		case "tool":
			return cfg.Tools.Names()
		}
		return nil
	}
	switch verb {
	case "opens":
		return ""
	case "allow", "ask", "deny", "tool":
		how, v, _ := strings.Cut(arg, " ")
		if has := slices.Contains(list(verb), v); has != (how == "has") {
			return fmt.Sprintf("%s %q: %s %q", verb, list(verb), how, v)
		}
		return ""
	case "readonly":
		if fmt.Sprint(cfg.CommandRules.AllowReadOnly) != arg {
			return fmt.Sprintf("AllowReadOnly %v, want %s", cfg.CommandRules.AllowReadOnly, arg)
		}
		return ""
	case "mode":
		if string(cfg.Mode) != arg {
			return fmt.Sprintf("mode %q, want %s", cfg.Mode, arg)
		}
		return ""
	case "modespec":
		f := strings.SplitN(arg, " ", 3)
		for _, m := range cfg.Modes {
			if string(m.Name) == f[0] && slices.Equal(m.Tools, []string{f[1]}) && m.Prompt == f[2] {
				return ""
			}
		}
		return fmt.Sprintf("modes %+v lack %s", cfg.Modes, arg)
	case "sensitive":
		if !cfg.Workspace.Sensitivity().Sensitive(arg) {
			return arg + " is not sensitive"
		}
		return ""
	case "log":
		if _, w, _ := strings.Cut(arg, " "); !strings.Contains(r.log, w) {
			return fmt.Sprintf("the log does not say %q: %s", w, r.log)
		}
		return ""
	}
	return "unknown want " + want
}

// TestSettingsBlindBatch opens a session as session/new would, in a
// fresh directory, for every case; the score is printed.
func TestSettingsBlindBatch(t *testing.T) {
	paths, _ := filepath.Glob("testdata/settings_blind/*.txtar")
	if len(paths) < 15 {
		t.Fatalf("%d cases in testdata/settings_blind, want at least 15", len(paths))
	}
	script := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(script, []byte(`{"content":"hi"}`+"\n"), 0o644)
	good := 0
	for _, path := range paths {
		c := readBlindCase(t, path)
		t.Run(c.name, func(t *testing.T) {
			cfg := t.TempDir()
			t.Setenv("XDG_CONFIG_HOME", cfg)
			cwd := t.TempDir()
			for name, dst := range map[string]string{"user.json": filepath.Join(cfg, "tether", "settings.json"),
				"project.json": filepath.Join(cwd, settings.ProjectFile), "local.json": filepath.Join(cwd, settings.LocalFile)} {
				if data, ok := c.files[name]; ok {
					os.MkdirAll(filepath.Dir(dst), 0o755)
					if err := os.WriteFile(dst, []byte(data), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			if c.trust {
				if err := settings.Trust(cwd); err != nil {
					t.Fatal(err)
				}
			}
			r := openBlind(t, append([]string{"-model", "script:" + script, "-db", "memory", "-sandbox", "off"}, c.args...), cwd)
			expectErr := slices.ContainsFunc(c.wants, func(w string) bool { return strings.HasPrefix(w, "error ") })
			for _, w := range c.wants {
				if msg := r.check(w, expectErr); msg != "" {
					t.Errorf("want %s: %s (source: %s)", w, msg, c.source)
					return
				}
			}
			good++
		})
	}
	t.Logf("%d/%d cases behave as expected", good, len(paths))
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
