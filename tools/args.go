package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// pathAliases are the names models use for a parameter called "path"
// (seed 000, "Tool Argument Flexibility"), tried in this order.
func pathAliases() []string {
	return []string{"file", "filePath", "file_path", "filepath", "filename", "file_name", "fileName"}
}

// normalizeArgs turns what a model sent into a JSON object that fits s as
// closely as the input allows, without guessing values:
//
//   - empty or null arguments become {};
//   - a JSON string holding an object (double-encoded arguments) is decoded
//     once;
//   - keys are mapped to declared parameters through aliases (the tool's own,
//     then path aliases) and then by folding case, '_' and '-'
//     ("filePath", "start-line" → "file_path", "start_line");
//   - scalars are coerced where the schema is unambiguous: "42" for an
//     integer, "true" for a boolean, 7 for a string, a lone value for an
//     array, a JSON string for an array or object;
//   - defaults declared in the schema fill absent fields.
//
// It returns the keys it could not place; they are dropped and mentioned
// only if validation fails.
func normalizeArgs(s *schema, aliases map[string][]string, raw json.RawMessage) (map[string]any, []string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		raw = []byte("{}")
	}
	if raw[0] == '"' {
		var inner string
		if err := json.Unmarshal(raw, &inner); err != nil {
			return nil, nil, fmt.Errorf("arguments are not valid JSON: %v", err)
		}
		raw = bytes.TrimSpace([]byte(inner))
		if len(raw) == 0 {
			raw = []byte("{}")
		}
	}
	var args map[string]any
	if err := json.Unmarshal(raw, &args); err != nil {
		return nil, nil, fmt.Errorf("arguments must be a JSON object like {\"name\": value}: %v", err)
	}
	if args == nil {
		args = map[string]any{}
	}
	if len(s.Properties) == 0 {
		return args, nil, nil
	}

	out := make(map[string]any, len(args))
	var unknown []string
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	slices.Sort(keys) // deterministic choice when two aliases collide
	// Exact names win over aliases: place them first.
	for _, k := range keys {
		if _, ok := s.Properties[k]; ok {
			out[k] = args[k]
		}
	}
	for _, k := range keys {
		if _, ok := s.Properties[k]; ok {
			continue
		}
		target := resolveKey(s, aliases, k)
		if target == "" {
			unknown = append(unknown, k)
			continue
		}
		if _, taken := out[target]; !taken {
			out[target] = args[k]
		}
	}
	for name, p := range s.Properties {
		v, ok := out[name]
		if !ok {
			if p.Default != nil {
				out[name] = p.Default
			}
			continue
		}
		out[name] = coerce(p, v)
	}
	return out, unknown, nil
}

func resolveKey(s *schema, aliases map[string][]string, key string) string {
	for target, names := range aliases {
		if _, ok := s.Properties[target]; ok && slices.Contains(names, key) {
			return target
		}
	}
	if _, ok := s.Properties["path"]; ok && slices.Contains(pathAliases(), key) {
		return "path"
	}
	fk := fold(key)
	for _, name := range s.Order {
		if fold(name) == fk {
			return name
		}
	}
	for target, names := range aliases {
		if _, ok := s.Properties[target]; !ok {
			continue
		}
		for _, n := range names {
			if fold(n) == fk {
				return target
			}
		}
	}
	if _, ok := s.Properties["path"]; ok {
		for _, n := range pathAliases() {
			if fold(n) == fk {
				return "path"
			}
		}
	}
	return ""
}

func fold(s string) string {
	s = strings.ToLower(s)
	return strings.NewReplacer("_", "", "-", "", " ", "").Replace(s)
}

// coerce converts v toward p's type where the conversion is lossless and
// unambiguous; anything else is returned unchanged for validation to report.
func coerce(p *schema, v any) any {
	t := p.Type
	if len(t) == 0 || typeMatches(t, v) {
		return coerceInside(p, v)
	}
	switch x := v.(type) {
	case string:
		s := strings.TrimSpace(x)
		switch {
		case t.is("integer") || t.is("number"):
			if f, err := strconv.ParseFloat(s, 64); err == nil {
				return f
			}
		case t.is("boolean"):
			switch strings.ToLower(s) {
			case "true", "yes", "1":
				return true
			case "false", "no", "0", "":
				return false
			}
		case t.is("array"):
			if strings.HasPrefix(s, "[") {
				var arr []any
				if json.Unmarshal([]byte(s), &arr) == nil {
					return coerceInside(p, arr)
				}
			}
			return coerceInside(p, []any{x})
		case t.is("object"):
			var obj map[string]any
			if json.Unmarshal([]byte(s), &obj) == nil {
				return coerceInside(p, obj)
			}
		}
	case float64:
		switch {
		case t.is("string"):
			return strconv.FormatFloat(x, 'f', -1, 64)
		case t.is("boolean") && (x == 0 || x == 1):
			return x == 1
		case t.is("array"):
			return coerceInside(p, []any{x})
		}
	case bool:
		switch {
		case t.is("string"):
			return strconv.FormatBool(x)
		case t.is("array"):
			return coerceInside(p, []any{x})
		}
	case map[string]any:
		if t.is("array") {
			return coerceInside(p, []any{x})
		}
	}
	return v
}

func coerceInside(p *schema, v any) any {
	switch x := v.(type) {
	case []any:
		if p.Items != nil {
			for i := range x {
				x[i] = coerce(p.Items, x[i])
			}
		}
	case map[string]any:
		if len(p.Properties) > 0 {
			for name, q := range p.Properties {
				if e, ok := x[name]; ok {
					x[name] = coerce(q, e)
				}
			}
		}
	}
	return v
}

// prepare normalises and validates raw against s, returning the arguments
// as a JSON object ready to decode.
func prepare(toolName string, s *schema, aliases map[string][]string, raw json.RawMessage) (json.RawMessage, error) {
	args, unknown, err := normalizeArgs(s, aliases, raw)
	if err != nil {
		return nil, &ArgumentError{Tool: toolName, Problems: []string{err.Error()}, Shape: shape(s, "  ")}
	}
	if problems := validate(s, args); len(problems) > 0 {
		for _, k := range unknown {
			problems = append(problems, fmt.Sprintf("unexpected %q (not a parameter of %s)", k, toolName))
		}
		return nil, &ArgumentError{Tool: toolName, Problems: problems, Shape: shape(s, "  ")}
	}
	if len(s.Properties) > 0 {
		for _, k := range unknown {
			delete(args, k)
		}
	}
	return json.Marshal(args)
}
