package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/require"
)

// agentSchemas names the schema definition each agent message is checked
// against: requests and notifications by method, responses by the method
// of the client's request they answer.
var agentSchemas = map[string]string{
	"session/update":             "SessionNotification",
	"session/request_permission": "RequestPermissionRequest",
	"fs/read_text_file":          "ReadTextFileRequest",
	"fs/write_text_file":         "WriteTextFileRequest",
	"initialize":                 "InitializeResponse",
	"authenticate":               "AuthenticateResponse",
	"session/new":                "NewSessionResponse",
	"session/load":               "LoadSessionResponse",
	"session/list":               "ListSessionsResponse",
	"session/prompt":             "PromptResponse",
	"session/set_mode":           "SetSessionModeResponse",
	"session/close":              "CloseSessionResponse",
}

// validateTranscript checks every message the agent sent (lines starting
// "< ") against the ACP schema shipped in the npm package, and returns how
// many it checked. An error response is checked as a JSON-RPC error.
func validateTranscript(t *testing.T, sdk, path string) int {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(sdk, "schema", "v1", "schema.json"))
	require.NoError(t, err)
	var root map[string]any
	require.NoError(t, json.Unmarshal(raw, &root))
	defs := root["$defs"]
	resolved := map[string]*jsonschema.Resolved{}
	schemaFor := func(def string) *jsonschema.Resolved {
		if rs, ok := resolved[def]; ok {
			return rs
		}
		b, _ := json.Marshal(map[string]any{
			"$schema": "https://json-schema.org/draft/2020-12/schema",
			"$ref":    "#/$defs/" + def,
			"$defs":   defs,
		})
		var s jsonschema.Schema
		require.NoError(t, json.Unmarshal(b, &s))
		rs, err := s.Resolve(nil)
		require.NoError(t, err, "resolving %s", def)
		resolved[def] = rs
		return rs
	}

	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	sent := map[string]string{} // the client's request ids → methods
	checked := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		dir, line, _ := strings.Cut(sc.Text(), " ")
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &m), "transcript line %q", line)
		id := fmt.Sprint(m["id"])
		method, _ := m["method"].(string)
		if dir == ">" {
			if method != "" && m["id"] != nil {
				sent[id] = method
			}
			continue
		}
		require.Equal(t, "2.0", m["jsonrpc"], "agent message %s", line)
		var def string
		var instance any
		switch {
		case method != "":
			def, instance = agentSchemas[method], m["params"]
		case m["error"] != nil:
			def, instance = "Error", m["error"]
		default:
			def, instance = agentSchemas[sent[id]], m["result"]
		}
		if def == "" {
			t.Errorf("no schema known for agent message %s", line)
			continue
		}
		// Round-trip through JSON so numbers and maps are as the schema
		// validator expects them.
		b, _ := json.Marshal(instance)
		var v any
		require.NoError(t, json.Unmarshal(b, &v))
		if err := schemaFor(def).Validate(v); err != nil {
			t.Errorf("agent message does not match %s: %v\n%s", def, err, line)
		}
		checked++
	}
	require.NoError(t, sc.Err())
	require.Positive(t, checked, "no agent message in the transcript")
	return checked
}
