package tools

import (
	"context"
	"encoding/json"
	"reflect"
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

// FuzzDecodeMembers: the member scanner agrees with encoding/json on any
// object (the last of repeated keys wins there), and refuses what it
// refuses.
func FuzzDecodeMembers(f *testing.F) {
	for _, s := range []string{
		`{"path":"a.go"}`, `{"a":1,"a":2}`, ` { "a" : [1, {"b": "}"}] , "c":"\"q\\\"" } `, `{}`, `[]`, `{"a":}`,
		`{"x":1e5,"y":true,"z":null}`, `"str"`, `{"a\u00e9":"\ud83d\ude00"}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		members, err := decodeMembers([]byte(raw))
		var want map[string]any
		werr := json.Unmarshal([]byte(raw), &want)
		if werr != nil || want == nil {
			if err == nil && werr != nil {
				t.Fatalf("accepted %q, which encoding/json refuses: %v", raw, werr)
			}
			return
		}
		if err != nil {
			t.Fatalf("refused the object %q: %v", raw, err)
		}
		got := map[string]any{}
		for _, m := range members {
			got[m.key] = m.value
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: members %v, encoding/json %v", raw, got, want)
		}
	})
}
