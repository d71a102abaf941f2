package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/invopop/jsonschema"
)

// schema is the subset of JSON Schema that argument normalisation,
// validation and prompt rendering understand: what jsonschema.Reflector
// produces for argument structs, and what MCP servers commonly send.
// Keywords outside this subset are kept in the spec sent to the model and
// ignored here.
type schema struct {
	Type        schemaType         `json:"type"`
	Description string             `json:"description"`
	Properties  map[string]*schema `json:"-"`
	Order       []string           `json:"-"` // property order as declared
	Required    []string           `json:"required"`
	Enum        []any              `json:"enum"`
	Items       *schema            `json:"items"`
	Minimum     *float64           `json:"minimum"`
	Maximum     *float64           `json:"maximum"`
	Default     any                `json:"default"`
	// AdditionalProperties is kept raw: true or a schema means keys
	// beyond Properties are allowed (an MCP server's open-ended tool).
	AdditionalProperties json.RawMessage `json:"additionalProperties"`
}

// open reports an object schema that allows keys beyond its properties.
func (s *schema) open() bool {
	a := bytes.TrimSpace(s.AdditionalProperties)
	return string(a) == "true" || (len(a) > 0 && a[0] == '{')
}

// schemaType accepts "type": "string" and "type": ["string","null"].
type schemaType []string

func (t *schemaType) UnmarshalJSON(b []byte) error {
	var one string
	if json.Unmarshal(b, &one) == nil {
		*t = schemaType{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return err
	}
	*t = many
	return nil
}

func (t schemaType) is(name string) bool { return slices.Contains(t, name) }

func (t schemaType) String() string {
	ts := slices.DeleteFunc(slices.Clone(t), func(s string) bool { return s == "null" })
	if len(ts) == 0 {
		return "any"
	}
	return strings.Join(ts, "|")
}

func (s *schema) UnmarshalJSON(b []byte) error {
	type plain schema
	if err := json.Unmarshal(b, (*plain)(s)); err != nil {
		return err
	}
	var raw struct {
		Properties json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(b, &raw); err != nil || len(raw.Properties) == 0 {
		return err
	}
	if err := json.Unmarshal(raw.Properties, &s.Properties); err != nil {
		return err
	}
	// encoding/json maps lose order; recover it so prompts list
	// parameters as declared.
	dec := json.NewDecoder(strings.NewReader(string(raw.Properties)))
	if _, err := dec.Token(); err != nil {
		return err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		s.Order = append(s.Order, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return err
		}
	}
	return nil
}

func parseSchema(raw json.RawMessage) (*schema, error) {
	if len(raw) == 0 {
		return &schema{Type: schemaType{"object"}}, nil
	}
	var s schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("tools: parameters are not a JSON Schema object: %w", err)
	}
	return &s, nil
}

func (s *schema) required(name string) bool { return slices.Contains(s.Required, name) }

// reflectSchema infers the JSON Schema of an argument struct. Fields are
// required unless tagged omitempty/omitzero; jsonschema tags add
// descriptions, enums, bounds and defaults.
func reflectSchema(t reflect.Type) (json.RawMessage, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("tools: arguments must be a struct, not %s", t)
	}
	r := jsonschema.Reflector{DoNotReference: true, ExpandedStruct: true, Anonymous: true}
	sc := r.ReflectFromType(t)
	sc.Version = ""
	sc.ID = ""
	sc.AdditionalProperties = nil
	if sc.Properties == nil || sc.Properties.Len() == 0 {
		return json.RawMessage(`{"type":"object","properties":{}}`), nil
	}
	return json.Marshal(sc)
}
