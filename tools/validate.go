package tools

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
)

// validate checks args (already normalised) against s and returns one
// problem per offending field, in the schema's declared order.
func validate(s *schema, args map[string]any) []string {
	var problems []string
	for _, name := range s.Order {
		p := s.Properties[name]
		v, ok := args[name]
		if !ok || v == nil {
			if s.required(name) {
				problems = append(problems, fmt.Sprintf("missing required %q (%s)%s", name, p.Type, descSuffix(p)))
			}
			continue
		}
		problems = append(problems, checkValue(name, p, v)...)
	}
	// Required names without a property entry (hand-written schemas).
	for _, name := range s.Required {
		if _, declared := s.Properties[name]; !declared {
			if _, ok := args[name]; !ok {
				problems = append(problems, fmt.Sprintf("missing required %q", name))
			}
		}
	}
	return problems
}

func descSuffix(p *schema) string {
	if p.Description == "" {
		return ""
	}
	return ": " + p.Description
}

func checkValue(path string, p *schema, v any) []string {
	if len(p.Type) > 0 && !typeMatches(p.Type, v) {
		return []string{fmt.Sprintf("%q must be %s, got %s", path, article(p.Type.String()), describeValue(v))}
	}
	var problems []string
	if len(p.Enum) > 0 && !slices.ContainsFunc(p.Enum, func(e any) bool { return fmt.Sprint(e) == fmt.Sprint(v) }) {
		problems = append(problems, fmt.Sprintf("%q must be one of %s, got %s", path, enumList(p.Enum), describeValue(v)))
	}
	if n, ok := v.(float64); ok {
		if p.Minimum != nil && n < *p.Minimum {
			problems = append(problems, fmt.Sprintf("%q must be at least %v, got %v", path, *p.Minimum, n))
		}
		if p.Maximum != nil && n > *p.Maximum {
			problems = append(problems, fmt.Sprintf("%q must be at most %v, got %v", path, *p.Maximum, n))
		}
	}
	switch x := v.(type) {
	case []any:
		if p.Items != nil {
			for i, e := range x {
				problems = append(problems, checkValue(fmt.Sprintf("%s[%d]", path, i), p.Items, e)...)
			}
		}
	case map[string]any:
		if len(p.Properties) > 0 {
			for _, q := range validate(p, x) {
				problems = append(problems, path+": "+q)
			}
		}
	}
	return problems
}

func typeMatches(t schemaType, v any) bool {
	for _, name := range t {
		switch x := v.(type) {
		case string:
			if name == "string" {
				return true
			}
		case bool:
			if name == "boolean" {
				return true
			}
		case float64:
			if name == "number" || (name == "integer" && x == math.Trunc(x)) {
				return true
			}
		case []any:
			if name == "array" {
				return true
			}
		case map[string]any:
			if name == "object" {
				return true
			}
		case nil:
			if name == "null" {
				return true
			}
		}
	}
	return false
}

func article(t string) string {
	switch t {
	case "integer", "array", "object":
		return "an " + t
	case "any":
		return "a value"
	}
	return "a " + t
}

func describeValue(v any) string {
	switch x := v.(type) {
	case string:
		if len(x) > 40 {
			x = x[:40] + "…"
		}
		return fmt.Sprintf("the string %q", x)
	case float64:
		return fmt.Sprintf("the number %v", x)
	case bool:
		return fmt.Sprintf("%v", x)
	case []any:
		return fmt.Sprintf("an array of %d", len(x))
	case map[string]any:
		return "an object"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

func enumList(enum []any) string {
	parts := make([]string, len(enum))
	for i, e := range enum {
		b, _ := json.Marshal(e)
		parts[i] = string(b)
	}
	return strings.Join(parts, ", ")
}

// shape renders the expected arguments, one line per field, for error
// messages and text-mode prompts:
//
//	"path": string (required): File to read
func shape(s *schema, indent string) string {
	var b strings.Builder
	for _, name := range s.Order {
		p := s.Properties[name]
		req := ""
		if s.required(name) {
			req = " (required)"
		}
		typ := p.Type.String()
		if p.Type.is("array") && p.Items != nil {
			typ = "array of " + p.Items.Type.String()
		}
		if len(p.Enum) > 0 {
			typ += " one of " + enumList(p.Enum)
		}
		fmt.Fprintf(&b, "%s%q: %s%s%s\n", indent, name, typ, req, descSuffix(p))
	}
	return b.String()
}
