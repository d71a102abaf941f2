package settings

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"github.com/tetherdev/tether/lsp"
	"github.com/tetherdev/tether/safety"
)

// CommandRules are the permissions as safety rules, in Tether's syntax.
// AllowReadOnly is true unless the settings say false. The rules were
// checked when the file was parsed.
func (s Settings) CommandRules() safety.CommandRules {
	conv := func(list string, rules []string) []string {
		var out []string
		for _, r := range rules {
			if n, err := CommandRule(list, r); err == nil {
				out = append(out, n)
			}
		}
		return out
	}
	return safety.CommandRules{
		Allow:         conv("allow", s.Permissions.Allow),
		Ask:           conv("ask", s.Permissions.Ask),
		Deny:          conv("deny", s.Permissions.Deny),
		AllowReadOnly: s.Permissions.AllowReadOnly == nil || *s.Permissions.AllowReadOnly,
	}
}

// SensitivityRules are SensitiveFiles and SecretFiles as safety rules,
// to add to the built-in ones (safety.WithSensitivityRules).
func (s Settings) SensitivityRules() []safety.SensitivityRule {
	var out []safety.SensitivityRule
	for _, g := range s.SensitiveFiles {
		out = append(out, safety.SensitivityRule{Pattern: g, Sensitive: true})
	}
	for _, g := range s.SecretFiles {
		out = append(out, safety.SensitivityRule{Pattern: g, Sensitive: true, Secret: true})
	}
	return out
}

// MCPConfig is MCPServers as an mcpServers JSON document, each entry as
// written (other hosts' keys included), for mcp.ParseConfig; nil when
// there are none.
func (s Settings) MCPConfig() []byte {
	if len(s.MCPServers) == 0 {
		return nil
	}
	doc := map[string]map[string]json.RawMessage{"mcpServers": {}}
	for _, name := range slices.Sorted(maps.Keys(s.MCPServers)) {
		m := s.MCPServers[name]
		raw := m.raw
		if raw == nil { // built in Go rather than parsed
			raw, _ = json.Marshal(m)
		}
		doc["mcpServers"][name] = raw
	}
	data, _ := json.Marshal(doc)
	return data
}

// otherSpellings reads the endpoint keys other hosts use for a URL:
// Gemini CLI's "httpUrl" (streamable HTTP) and Windsurf's "serverUrl".
// The entry handed on then carries "url" and "type" as the MCP package
// reads them.
func (m *MCPServer) otherSpellings() {
	if m.URL != "" || m.Command != "" {
		return
	}
	var raw map[string]json.RawMessage
	if json.Unmarshal(m.raw, &raw) != nil {
		return
	}
	for _, k := range []string{"httpUrl", "serverUrl"} {
		var u string
		if json.Unmarshal(raw[k], &u) != nil || u == "" {
			continue
		}
		m.URL = u
		raw["url"], _ = json.Marshal(u)
		if k == "httpUrl" && m.Type == "" {
			m.Type = "http"
			raw["type"], _ = json.Marshal("http")
		}
		m.raw, _ = json.Marshal(raw)
		return
	}
}

// builtinLanguages are the languages of the built-in language server
// named name or run by command, or nil when Tether knows none.
func builtinLanguages(name, command string) map[string]string {
	for _, d := range lsp.DefaultServers() {
		if d.Name == name || d.Command == command {
			return d.Languages
		}
	}
	return nil
}

func knownServers() string {
	var names []string
	for _, d := range lsp.DefaultServers() {
		names = append(names, d.Command)
	}
	return strings.Join(names, ", ")
}

// LSPSpecs are the language servers to run: the built-in ones, with
// those of the settings added or replacing a built-in of the same name
// or command. A server given without languages keeps the built-in's.
func (s Settings) LSPSpecs() []lsp.ServerSpec {
	specs := lsp.DefaultServers()
	for _, name := range slices.Sorted(maps.Keys(s.LSPServers)) {
		l := s.LSPServers[name]
		spec := lsp.ServerSpec{Name: name, Command: l.Command, Args: l.Args, Languages: l.Languages}
		for _, k := range slices.Sorted(maps.Keys(l.Env)) {
			spec.Env = append(spec.Env, k+"="+l.Env[k])
		}
		i := slices.IndexFunc(specs, func(d lsp.ServerSpec) bool { return d.Name == name || d.Command == l.Command })
		if i >= 0 {
			if spec.Languages == nil {
				spec.Languages = specs[i].Languages
			}
			if spec.Args == nil && spec.Command == specs[i].Command {
				spec.Args, spec.Init, spec.InitializationOptions = specs[i].Args, specs[i].Init, specs[i].InitializationOptions
			}
			specs = slices.Delete(specs, i, i+1)
		}
		// The settings' servers come first: they are preferred for their
		// extensions.
		specs = slices.Insert(specs, 0, spec)
	}
	return specs
}
