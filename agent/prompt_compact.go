package agent

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/tetherdev/tether/tools"
)

// The compact prompt is the same contract as the full one in fewer words,
// for a model whose context window cannot spare a third of itself for
// instructions: the role, the rules and the call format stay; the
// guidance sections (attached code, search tips, code navigation) go, and
// the tools are listed one line each (see shortTools, compactSpecs).

const compactTextCallFormat = `TOOL CALLS: write each call as <tool_call>{"name": "TOOL_NAME", "arguments": {"ARGUMENT": "VALUE"}}</tool_call> with valid JSON (escape newlines as \n and quotes as \"). After your calls, stop: the results come back in <tool_result> blocks. Never write a <tool_result> yourself.`

// compactSystem is system() for a small window.
func (p promptBuilder) compactSystem() string {
	var parts []string
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			parts = append(parts, s)
		}
	}
	role := p.mode.Role
	if role == "" {
		role = builtinModes[0].Role
	}
	add(role)
	if !p.mode.ReadOnly {
		// The rules in one paragraph: the agent's own, then what the
		// offered tools add (tools.SectionRules).
		add("RULES: " + strings.Join(append(slices.Clone(agentRules), p.guidance(tools.SectionRules)...), " "))
	}
	switch p.calling {
	case ToolCallingText:
		add(compactTextCallFormat)
		add(p.toolSection())
	case ToolCallingEnvelope:
		add(envelopeCallFormat)
		add(p.toolSection())
	}
	add(completionRule)
	add(p.mode.Prompt)
	add(p.extra)
	if p.project != "" {
		add("PROJECT CONTEXT (follow its instructions unless the user says otherwise):\n\n" + p.project)
	}
	if p.memory != "" {
		add("SESSION MEMORY (trust it instead of repeating work):\n" + p.memory)
	}
	return strings.Join(parts, "\n\n")
}

// firstSentence is a tool description's first sentence (its summary).
func firstSentence(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\n"); i >= 0 {
		s = s[:i]
	}
	for i := 0; i+1 < len(s); i++ {
		if s[i] == '.' && s[i+1] == ' ' {
			return s[:i+1]
		}
	}
	return s
}

// schemaArgs lists an object schema's properties, required first, each
// group in the schema's order where it has one (sorted otherwise).
func schemaArgs(schema json.RawMessage) (required, optional []string) {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return nil, nil
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range s.Required {
		if _, ok := s.Properties[n]; ok {
			required = append(required, n)
		}
	}
	for _, n := range names {
		if !slices.Contains(required, n) {
			optional = append(optional, n)
		}
	}
	return required, optional
}

// stripDescriptions removes every "description" and "examples" from a
// JSON Schema, keeping its structure and types; a schema that does not
// decode is kept as it is.
func stripDescriptions(schema json.RawMessage) json.RawMessage {
	var v any
	if json.Unmarshal(schema, &v) != nil {
		return schema
	}
	var strip func(any, bool)
	strip = func(x any, inProperties bool) {
		switch t := x.(type) {
		case map[string]any:
			if !inProperties { // a property may be named "description"
				delete(t, "description")
				delete(t, "examples")
			}
			for k, c := range t {
				strip(c, k == "properties" && !inProperties)
			}
		case []any:
			for _, c := range t {
				strip(c, false)
			}
		}
	}
	strip(v, false)
	b, err := json.Marshal(v)
	if err != nil {
		return schema
	}
	return b
}
