package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// PathAliases are the names models use for a parameter called "path",
// tried in this order; accepting them saves a failed round trip when a
// model guesses the parameter's name.
func PathAliases() []string {
	return []string{"file", "filePath", "file_path", "filepath", "filename", "file_name", "fileName", "target_file"}
}

// member is one top-level member of an arguments object, in source order.
type member struct {
	key   string
	value any
}

// decodeMembers decodes a JSON object keeping its members in source order,
// so that a key given twice is seen rather than silently overwritten.
// Each value is decoded once, in place: a write call's large content is
// not copied on the way.
func decodeMembers(raw []byte) ([]member, error) {
	if !json.Valid(raw) {
		var v any
		return nil, json.Unmarshal(raw, &v) // says where the JSON breaks
	}
	i := skipSpace(raw, 0)
	if raw[i] != '{' {
		return nil, fmt.Errorf("got %s", excerptJSON(raw))
	}
	var out []member
	for i = skipSpace(raw, i+1); raw[i] != '}'; i = skipSpace(raw, i) {
		if raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
		end := valueEnd(raw, i)
		var key string
		if err := json.Unmarshal(raw[i:end], &key); err != nil {
			return nil, err
		}
		i = skipSpace(raw, end)
		i = skipSpace(raw, i+1) // the colon
		end = valueEnd(raw, i)
		var v any
		if err := json.Unmarshal(raw[i:end], &v); err != nil {
			return nil, err
		}
		out = append(out, member{key, v})
		i = end
	}
	return out, nil
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// valueEnd returns the end of the JSON value starting at b[i], in input
// already known to be valid.
func valueEnd(b []byte, i int) int {
	depth := 0
	for j := i; j < len(b); j++ {
		switch b[j] {
		case '"':
			for j++; b[j] != '"'; j++ {
				if b[j] == '\\' {
					j++
				}
			}
			if depth == 0 {
				return j + 1
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return j + 1
			}
			if depth < 0 {
				return j
			}
		case ',', ' ', '\t', '\n', '\r', ':':
			if depth == 0 {
				return j
			}
		}
	}
	return len(b)
}

// normalizeArgs turns what a model sent into a JSON object that fits s as
// closely as the input allows, without guessing values:
//
//   - empty or null arguments become {};
//   - a JSON string holding an object (double-encoded arguments) is decoded
//     once;
//   - keys are mapped to declared parameters through aliases (the tool's own,
//     then path aliases) and then by folding case, '_' and '-'
//     ("filePath", "start-line" → "file_path", "start_line"); other keys
//     are kept when the schema allows additional properties, else dropped;
//   - a parameter named twice (two aliases, an alias and its name, or one
//     key repeated) with different values is an error naming both: which
//     one the model meant cannot be known, and judging one while the tool
//     uses the other would defeat every check;
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
	if string(raw) == "null" {
		raw = []byte("{}")
	}
	members, err := decodeMembers(raw)
	if err != nil {
		return nil, nil, fmt.Errorf("arguments must be a JSON object like {\"name\": value}: %v", err)
	}

	out := make(map[string]any, len(members))
	from := make(map[string]string, len(members)) // parameter → the key that set it
	var unknown, problems []string
	for _, m := range members {
		target := m.key
		if len(s.Properties) > 0 {
			if _, ok := s.Properties[m.key]; !ok {
				target = resolveKey(s, aliases, m.key)
			}
			if target == "" && s.open() {
				target = m.key // a key the schema allows, kept as sent
			}
			if target == "" {
				unknown = append(unknown, m.key)
				continue
			}
		}
		prev, taken := out[target]
		switch {
		case !taken:
			out[target], from[target] = m.value, m.key
		case !reflect.DeepEqual(prev, m.value):
			problems = append(problems, fmt.Sprintf("%s given twice: %s (%s) and %s (%s); send it once",
				target, showValue(prev), from[target], showValue(m.value), m.key))
		}
	}
	if len(problems) > 0 {
		return nil, nil, &ArgumentError{Problems: problems}
	}
	if len(s.Properties) == 0 {
		return out, nil, nil
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

// showValue renders an argument value for an error message: strings as
// they are, anything else as JSON, both cut short.
func showValue(v any) string {
	s, ok := v.(string)
	if !ok {
		b, _ := json.Marshal(v)
		s = string(b)
	}
	return excerptJSON([]byte(s))
}

func excerptJSON(b []byte) string {
	const limit = 60
	if len(b) <= limit {
		return string(b)
	}
	cut := limit
	for cut > 0 && b[cut]&0xC0 == 0x80 {
		cut--
	}
	return string(b[:cut]) + "…"
}

func resolveKey(s *schema, aliases map[string][]string, key string) string {
	for target, names := range aliases {
		if _, ok := s.Properties[target]; ok && slices.Contains(names, key) {
			return target
		}
	}
	if _, ok := s.Properties["path"]; ok && slices.Contains(PathAliases(), key) {
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
		for _, n := range PathAliases() {
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
		var ae *ArgumentError
		if errors.As(err, &ae) {
			return nil, &ArgumentError{Tool: toolName, Problems: ae.Problems, Shape: shape(s, "  ")}
		}
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
