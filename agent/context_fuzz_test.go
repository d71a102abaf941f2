package agent

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzParseAttachment: any reference either fails with ErrAttachment or
// yields an attachment whose Name parses back to itself.
func FuzzParseAttachment(f *testing.F) {
	for _, s := range []string{"src/a.go", "src/a.go:L10-L50", "a.go:L7", "a:L0", "x:L9-L3", ":L1", "a.go:L1-L99999999999999999999", "C:\\a.go:L2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ref string) {
		a, err := ParseAttachment(ref)
		if err != nil {
			return
		}
		back, err := ParseAttachment(a.Name())
		if err != nil {
			t.Fatalf("Name %q of %q does not parse: %v", a.Name(), ref, err)
		}
		if back != a {
			t.Fatalf("%q: %+v != %+v", ref, back, a)
		}
	})
}

// FuzzParseTodos: whatever a model sends, the plan is bounded and every
// step has text and a known status.
func FuzzParseTodos(f *testing.F) {
	for _, s := range []string{`{"todos":[{"text":"a","status":"done"}]}`, `{"items":["a","b"]}`, `{"todos":[{"title":"x","done":true}]}`, `{"todos":null}`, `[]`, `{"todos":[1]}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, args string) {
		items, err := parseTodos(json.RawMessage(args))
		if err != nil {
			return
		}
		if len(items) > maxTodos {
			t.Fatalf("%d items", len(items))
		}
		for _, it := range items {
			if _, ok := todoStatus(string(it.Status)); !ok || (strings.TrimSpace(it.Text) == "" && it.Text != "") {
				t.Fatalf("bad item %+v", it)
			}
		}
	})
}
