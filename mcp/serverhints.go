package mcp

import (
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tetherdev/tether/tools"
)

// What a served tool tells clients about itself, beyond its name and
// schema: a title for people, the hints the spec defines, and the schema
// of its structured result.

// metaSchema is the output schema of every served tool: its structured
// content is the call's tools.Meta. Built on first use, not at start-up.
var metaSchema = sync.OnceValue(func() *jsonschema.Schema {
	s, err := jsonschema.For[tools.Meta](nil)
	if err != nil {
		panic("mcp: tools.Meta has no JSON Schema: " + err.Error()) // a programming error, caught by every test
	}
	return s
})

// titleOf makes a title for people from a tool name: "read_file" → "Read file".
func titleOf(name string) string {
	t := strings.ReplaceAll(name, "_", " ")
	if t == "" {
		return t
	}
	return strings.ToUpper(t[:1]) + t[1:]
}

// annotationsOf states a served tool's hints. Read-only tools are
// idempotent and not destructive; every other tool may destroy data.
// Workspace file tools (those ActionOf knows by their paths) touch only
// the confined workspace, so they are closed-world; a command, or a tool
// Tether does not know, may reach anything.
func annotationsOf(spec tools.Spec) *sdk.ToolAnnotations {
	destructive := !spec.ReadOnly
	_, workspaceOnly := fileTools[spec.Name]
	openWorld := !workspaceOnly
	return &sdk.ToolAnnotations{
		Title:           titleOf(spec.Name),
		ReadOnlyHint:    spec.ReadOnly,
		DestructiveHint: &destructive,
		IdempotentHint:  spec.ReadOnly,
		OpenWorldHint:   &openWorld,
	}
}
