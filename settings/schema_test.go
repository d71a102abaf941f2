package settings

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"reflect"
	"testing"

	"github.com/invopop/jsonschema"
)

var update = flag.Bool("update", false, "rewrite settings.schema.json from the Go types")

// schemaFile is the JSON Schema published for editors: a settings file
// that starts with "$schema" pointing at it gets completion and checks.
const schemaFile = "settings.schema.json"

// generateSchema derives the schema from the Settings type and its
// jsonschema tags, the same tags the decoder enforces enums and bounds
// from.
func generateSchema() ([]byte, error) {
	r := &jsonschema.Reflector{
		RequiredFromJSONSchemaTags: true,
		Mapper: func(t reflect.Type) *jsonschema.Schema {
			if t == durationType {
				return &jsonschema.Schema{Type: "string"}
			}
			return nil
		},
	}
	s := r.Reflect(&Settings{})
	s.ID = "https://github.com/tetherdev/tether/raw/main/settings/settings.schema.json"
	s.Title = "Tether settings"
	s.Description = "user ($XDG_CONFIG_HOME/tether/settings.json), project (.tether/settings.json) and local (.tether/settings.local.json) settings of Tether's programs"
	// Other hosts' keys are allowed in an MCP server entry.
	s.Definitions["MCPServer"].AdditionalProperties = jsonschema.TrueSchema
	data, err := json.MarshalIndent(s, "", "  ")
	return append(data, '\n'), err
}

func TestSchemaUpToDate(t *testing.T) {
	want, err := generateSchema()
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(schemaFile, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is out of date with the Settings type: run go test ./settings -run TestSchemaUpToDate -update", schemaFile)
	}
}

// TestSchemaAcceptsBlindOK checks the published schema and the loader
// agree on the top-level fields: every field the decoder knows is a
// property of the schema, and no other.
func TestSchemaFields(t *testing.T) {
	var s struct {
		Ref  string `json:"$ref"`
		Defs map[string]struct {
			Properties           map[string]json.RawMessage `json:"properties"`
			AdditionalProperties *bool                      `json:"additionalProperties"`
		} `json:"$defs"`
	}
	data, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	def := s.Defs["Settings"]
	fields := jsonFields(reflect.TypeFor[Settings]())
	if len(def.Properties) != len(fields) {
		t.Errorf("schema has %d properties, the decoder %d fields", len(def.Properties), len(fields))
	}
	for name := range fields {
		if _, ok := def.Properties[name]; !ok {
			t.Errorf("schema lacks %q", name)
		}
	}
	if def.AdditionalProperties == nil || *def.AdditionalProperties {
		t.Error("schema allows unknown top-level fields; the loader refuses them")
	}
}
