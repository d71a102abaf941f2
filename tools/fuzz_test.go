package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// FuzzExecute feeds arbitrary argument text, as a model might write it,
// through normalisation, validation and decoding: the registry must always
// answer with a result, never panic, and any error must name the tool.
func FuzzExecute(f *testing.F) {
	for _, s := range []string{
		`{"path":"a.go"}`, `"{\"file\":\"a\"}"`, `{"path":"a","start_line":"7","tags":"x","follow":"yes"}`,
		`null`, ``, `[]`, `{"path":{"nested":1}}`, `"\"double\""`, `{"start_line":1e400}`, `{"tags":[1,true,null]}`,
	} {
		f.Add(s)
	}
	var r Registry
	if err := r.Register(echoTool()); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, args string) {
		res := r.Execute(context.Background(), Call{Name: "read_file", Arguments: json.RawMessage(args)})
		if res.IsError && !strings.Contains(res.Text, "read_file") {
			t.Fatalf("error result does not name the tool: %q", res.Text)
		}
		if !res.IsError {
			var a map[string]any
			if err := json.Unmarshal([]byte(res.Text), &a); err != nil || a["path"] == nil {
				t.Fatalf("accepted arguments %q decoded to %q", args, res.Text)
			}
		}
	})
}
