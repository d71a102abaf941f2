package settings

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/tetherdev/tether/internal/lazyregexp"
	"github.com/tetherdev/tether/safety"
)

// BuiltinModes are the modes every Tether executor knows.
var BuiltinModes = []string{"agent", "explore", "plan", "review"}

var (
	modeName   = lazyregexp.New(`^[a-z][a-z0-9_-]{0,31}$`)
	serverName = lazyregexp.New(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)
	toolName   = lazyregexp.New(`^[A-Za-z0-9_.-]+$`)
	claudeRule = lazyregexp.New(`^([A-Za-z][A-Za-z0-9_]*)\((.*)\)$`)
)

// CheckModel reports whether model names a backend Tether can open.
func CheckModel(model string) error {
	scheme, name, _ := strings.Cut(model, ":")
	if !slices.Contains([]string{"ollama", "openai", "script"}, scheme) || strings.TrimSpace(name) == "" {
		return fmt.Errorf("%q is not a model; want ollama:NAME, openai:NAME or script:FILE (e.g. \"ollama:qwen3:8b\")", model)
	}
	return nil
}

// check validates what the types cannot say. pos gives the position of
// each field path, for the error.
func (s *Settings) check(file string, pos map[string][2]int) error {
	at := func(field, msg string) error {
		p := pos[field]
		return &Error{File: file, Line: p[0], Col: p[1], Field: field, Msg: msg}
	}
	if s.Model != "" {
		if err := CheckModel(s.Model); err != nil {
			return at("model", err.Error())
		}
	}
	if s.Mode != "" && !modeName.MatchString(s.Mode) {
		return at("mode", fmt.Sprintf("%q is not a mode name; want agent, explore, plan, review or a mode of \"modes\"", s.Mode))
	}
	// Fields are checked in a fixed order, and map entries by name, so
	// the same file always gives the same first error.
	for _, l := range []struct {
		list  string
		rules []string
	}{{"deny", s.Permissions.Deny}, {"ask", s.Permissions.Ask}, {"allow", s.Permissions.Allow}} {
		for i, r := range l.rules {
			if _, err := CommandRule(l.list, r); err != nil {
				return at(fmt.Sprintf("permissions.%s[%d]", l.list, i), err.Error())
			}
		}
	}
	for _, g := range []struct {
		name  string
		globs []string
	}{{"sensitiveFiles", s.SensitiveFiles}, {"secretFiles", s.SecretFiles}} {
		name, globs := g.name, g.globs
		for i, g := range globs {
			if strings.TrimSpace(g) == "" {
				return at(fmt.Sprintf("%s[%d]", name, i), "empty pattern; want a glob such as \"config/*.yaml\"")
			}
			if _, err := safety.NewSensitivity(safety.SensitivityRule{Pattern: g, Sensitive: true}); err != nil {
				return at(fmt.Sprintf("%s[%d]", name, i), fmt.Sprintf("%q is not a glob: %v", g, strings.TrimPrefix(err.Error(), "safety: sensitivity rule 1: ")))
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(s.MCPServers)) {
		m := s.MCPServers[name]
		if err := checkMCPServer(name, m); err != nil {
			return at(mapField("mcpServers", name), err.Error())
		}
	}
	for _, name := range slices.Sorted(maps.Keys(s.LSPServers)) {
		l := s.LSPServers[name]
		f := mapField("lspServers", name)
		switch {
		case !serverName.MatchString(name):
			return at(f, "a server name is letters, digits, '.', '_' and '-'")
		case strings.TrimSpace(l.Command) == "":
			return at(f, "\"command\" is required: the program to start, e.g. \"gopls\"")
		case len(l.Languages) == 0 && builtinLanguages(name, l.Command) == nil:
			return at(f, fmt.Sprintf("\"languages\" is required for a server Tether does not know (it knows %s): the extensions it serves, e.g. {\".nix\": \"nix\"}", knownServers()))
		}
		for ext, id := range l.Languages {
			if !strings.HasPrefix(ext, ".") || ext != strings.ToLower(ext) || len(ext) < 2 || id == "" {
				return at(f+".languages", fmt.Sprintf("%q: %q: want a lower-case extension with its dot and a language id, e.g. \".go\": \"go\"", ext, id))
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(s.Modes)) {
		m := s.Modes[name]
		f := mapField("modes", name)
		if !modeName.MatchString(name) {
			return at(f, fmt.Sprintf("%q is not a mode name; want lower-case letters, digits, '-' and '_', starting with a letter", name))
		}
		for i, t := range m.Tools {
			if !toolName.MatchString(t) {
				return at(fmt.Sprintf("%s.tools[%d]", f, i), fmt.Sprintf("%q is not a tool name", t))
			}
		}
	}
	for i, t := range s.DisabledTools {
		if !toolName.MatchString(t) {
			return at(fmt.Sprintf("disabledTools[%d]", i), fmt.Sprintf("%q is not a tool name (e.g. \"run_terminal_command\")", t))
		}
	}
	for _, w := range []struct {
		list    string
		domains []string
	}{{"allow", s.Web.Allow}, {"deny", s.Web.Deny}} {
		list := w.list
		for i, d := range w.domains {
			if d == "*" && list == "allow" {
				continue
			}
			if n := strings.ToLower(strings.TrimSpace(d)); n == "" || strings.ContainsAny(n, "/:*@ ") {
				return at(fmt.Sprintf("web.%s[%d]", list, i), fmt.Sprintf("%q: want a bare host name such as example.com (it covers subdomains)%s", d, map[bool]string{true: `, or "*" for every public one`}[list == "allow"]))
			}
		}
	}
	return nil
}

func mapField(field, name string) string {
	if strings.ContainsAny(name, ".[]") || name == "" {
		return fmt.Sprintf("%s[%q]", field, name)
	}
	return field + "." + name
}

func checkMCPServer(name string, m MCPServer) error {
	if !serverName.MatchString(name) || strings.Contains(name, "__") {
		return fmt.Errorf("%q is not a server name; want letters, digits, '.', '_' and '-' without \"__\" (tools are named SERVER__TOOL)", name)
	}
	if m.Disabled {
		return nil
	}
	switch {
	case m.Command == "" && m.URL == "":
		if k := misspeltEndpoint(m.raw); k != "" {
			return fmt.Errorf("no \"command\" or \"url\": the key %q is not one of them; check its spelling (spaces count)", k)
		}
		return fmt.Errorf("give \"command\" (a program to start) or \"url\" (an HTTP server; Gemini's \"httpUrl\" is read too)")
	case m.Command != "" && m.URL != "":
		return fmt.Errorf("give \"command\" or \"url\", not both")
	case m.Type == "stdio" && m.Command == "":
		return fmt.Errorf("type \"stdio\" needs \"command\"")
	case (m.Type == "http" || m.Type == "streamable-http" || m.Type == "sse") && m.URL == "":
		return fmt.Errorf("type %q needs \"url\"", m.Type)
	}
	if m.URL != "" && !strings.Contains(m.URL, "${") {
		u, err := url.Parse(m.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("url %q: want an http:// or https:// address", m.URL)
		}
	}
	return nil
}

// CommandRule checks one rule of permissions.LIST (allow, ask or deny)
// and returns it in Tether's syntax. Claude Code's Bash(…) form is
// accepted ("Bash(npm run test:*)" is "npm run test"; "Bash" alone is
// "*"); its other tools' rules are refused with what to write instead.
// Tether rules are word prefixes, so Claude Code's exact-command form
// ("Bash(npm test)", no wildcard) is refused in allow, where reading it
// as a prefix would approve more than was written.
func CommandRule(list, rule string) (string, error) {
	r := strings.TrimSpace(rule)
	if r == "" {
		return "", fmt.Errorf("empty rule; want a command prefix such as \"go test\"")
	}
	claude := false
	if r == "Bash" {
		r = "*"
	} else if m := claudeRule.FindStringSubmatch(r); m != nil {
		switch tool := m[1]; tool {
		case "Bash", "Shell", "run_terminal_command":
			r, claude = strings.TrimSpace(m[2]), true
		case "Read", "Edit", "Write", "MultiEdit", "NotebookEdit", "Glob", "Grep":
			return "", fmt.Errorf("%q is a file rule; Tether's rules are for commands. List the glob under \"secretFiles\" (reading it asks) or \"sensitiveFiles\" (changing it asks)", rule)
		case "WebFetch", "WebSearch":
			return "", fmt.Errorf("%q: web access is set under \"web\": {\"allow\": [\"example.com\"], \"deny\": […]}", rule)
		default:
			return "", fmt.Errorf("%q: only Bash(…) rules name commands; to switch a tool off list it under \"disabledTools\"", rule)
		}
	} else if strings.HasPrefix(r, "mcp__") {
		return "", fmt.Errorf("%q is a tool, not a command; to switch a tool off list it under \"disabledTools\"", rule)
	}
	if r == "" {
		return "", fmt.Errorf("%q: empty command; want e.g. Bash(npm run test:*)", rule)
	}
	if r == "*" || r == ":*" {
		return "*", nil
	}
	body, wild := strings.CutSuffix(r, ":*")
	if !wild {
		body, wild = strings.CutSuffix(r, " *")
	}
	body = strings.TrimSpace(body)
	if strings.Contains(body, "*") {
		return "", fmt.Errorf("%q: a wildcard may only end a rule (\"git log *\" or \"git log:*\"); Tether rules are word prefixes", rule)
	}
	if strings.ContainsAny(body, "|;&<>`\n") || strings.Contains(body, "$(") {
		return "", fmt.Errorf("%q: a rule names one command, not a pipeline or list; write a rule for each command (\"git log\", \"grep\")", rule)
	}
	if claude && !wild && list == "allow" {
		return "", fmt.Errorf("%q is an exact command in Claude Code, but Tether rules are prefixes that also cover arguments; write %q (or Bash(%s:*)) if its arguments may vary", rule, body, body)
	}
	return body, nil
}

// misspeltEndpoint finds a key of an MCP server entry that looks like
// "command", "url" or "httpUrl" but is not exactly it ("httpUrl " with a
// trailing space, "URL").
func misspeltEndpoint(raw json.RawMessage) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return ""
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		n := nearest(strings.TrimSpace(k), []string{"command", "url", "httpUrl", "serverUrl"})
		if n != "" && n != k {
			return k
		}
	}
	return ""
}
